"""One small library context and answers to it (the newcomer's probe, rewritten as a fixture)."""

from __future__ import annotations

QUESTION = "When did the Alder Street Library open, and is it open on Sundays?"
CONTEXT = (
    "The Alder Street Library opened on 14 March 2011 in the former post office building on Alder "
    "Street. It was designed by the architect Clara Voss and holds about 42,000 books. The library is "
    "open from Monday to Saturday, 9 am to 6 pm, and is closed on Sundays. Membership is free for "
    "residents of Elmford; visitors pay $12 a year. Around 35% of its members are children. In 2019 a "
    "reading garden was added behind the building."
)
VERBATIM = "The Alder Street Library opened on 14 March 2011 and is closed on Sundays."
PARAPHRASE = "It first welcomed readers in the spring of 2011, and it does not open on Sundays."
WRONG_DATE = "The Alder Street Library opened on 14 March 2001 and is closed on Sundays."
NEGATED = "The Alder Street Library opened on 14 March 2011, and yes, it is open on Sundays."
ADDITION = "It opened in 2011; books can be borrowed for three weeks and renewed twice."
REFUSAL = "The context does not say who founded the library."
GERMAN = "Die Bibliothek wurde am 14. März 2011 eröffnet und ist sonntags geschlossen."
