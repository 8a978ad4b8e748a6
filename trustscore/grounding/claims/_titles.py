"""A named person's role, compared with the role the context gives the same person: "Mayor Okafor"
against "Councilmember Denise Okafor", "his nephew Thomas" against "his son, Thomas".

A role is a noun of office, occupation or kinship (:data:`ROLES`) bound to a person's name in the ways
news text binds them: before the name ("Councilmember Denise Okafor", "mission director Kenji Sato"),
or in apposition, after it or before it ("Luis Ortega, the utility's general manager", "the general
manager, Luis Ortega", "his son, Thomas"). Two mentions name the same person by :mod:`._people`.

A response's role is contradicted when the context names one person so (and no other the name could
be), gives that person a role of the same kind that the person cannot hold beside it (a position, an
occupation of one field, or a kinship to the same one: "his son" against "his nephew"), gives none that
is the response's or that a person of the response's role is also called ("physician" is a "doctor"),
and writes the response's role in none of the sentences that name the person ("Councilmember Okafor
and Mayor Reinholt" leaves "Mayor Okafor" unread: the sentence is about both). A former or acting role
rivals none; a role of another kind (a lawyer who is a senator), or one the context gives no one, says
nothing here. The same role is contradicted where the two name its country or state otherwise ("Texas
Governor Doug Ducey" against "Arizona Gov. Doug Ducey"), unless a sentence naming the person writes the
response's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from trustscore.grounding._places import place_level
from trustscore.grounding.claims._people import one_of, one_person, person_words
from trustscore.grounding.claims._verdict import Verdict

if TYPE_CHECKING:
    from spacy.tokens import Doc, Span, Token

__all__ = ["ROLES", "PersonTitles", "Title", "person_titles", "roles_inside", "title_verdicts"]

_KINDS: dict[str, tuple[str, ...]] = {
    "position": (
        "mayor", "councilmember", "councillor", "councilman", "councilwoman", "alderman", "governor",
        "senator", "congressman", "congresswoman", "minister", "premier", "president", "chancellor",
        "ambassador", "commissioner", "secretary", "chairman", "chairwoman", "chairperson", "speaker",
        "sheriff", "judge", "prosecutor", "treasurer", "spokesman", "spokeswoman", "spokesperson",
        "executive", "ceo", "director", "manager",
    ),
    "law": ("attorney", "lawyer", "counsel", "solicitor", "barrister"),
    "medicine": (
        "doctor", "physician", "surgeon", "neurologist", "cardiologist", "oncologist", "psychiatrist",
        "nurse", "paramedic", "pharmacist", "dentist",
    ),
    "school": ("teacher", "principal", "headteacher", "headmaster", "professor", "lecturer", "student"),
    "work": (
        "engineer", "architect", "scientist", "researcher", "reporter", "journalist", "editor", "author",
        "writer", "photographer", "guard", "detective", "inspector", "sergeant", "constable", "firefighter",
        "pilot", "driver", "farmer", "chef", "coach", "captain", "goalkeeper", "striker", "defender",
        "midfielder",
    ),
    "kin": (
        "son", "daughter", "nephew", "niece", "brother", "sister", "father", "mother", "husband", "wife",
        "uncle", "aunt", "cousin", "grandson", "granddaughter", "grandfather", "grandmother", "widow",
        "stepson", "stepdaughter",
    ),
}  # fmt: skip
"""Roles by kind: two of one kind given one person contradict each other (a councilmember is no mayor,
a teacher no principal), two of different kinds may both hold (a lawyer who is a senator). Roles one
person commonly holds beside another of the same kind (founder, owner, partner) are not listed."""
_KIND = {role: kind for kind, roles in _KINDS.items() for role in roles}
ROLES = frozenset(_KIND)
"""Nouns of office, occupation or kinship that a text binds to a person's name."""
_ALIKE = (
    frozenset(
        {"doctor", "physician", "surgeon", "neurologist", "cardiologist", "oncologist", "psychiatrist"}
    ),
    frozenset({"attorney", "lawyer", "counsel", "solicitor", "barrister"}),
    frozenset({"councilmember", "councillor", "councilman", "councilwoman", "alderman"}),
    frozenset({"chairman", "chairwoman", "chairperson"}),
    frozenset({"spokesman", "spokeswoman", "spokesperson"}),
    frozenset({"congressman", "congresswoman"}),
    frozenset({"executive", "ceo"}),
    frozenset({"principal", "headteacher", "headmaster"}),
    frozenset({"professor", "lecturer"}),
    frozenset({"reporter", "journalist", "writer", "author", "editor"}),
    frozenset({"widow", "wife"}),
)
"""Roles one person may be called by both: a neurologist is a doctor, a CEO a chief executive."""
_ABBREVIATED = {
    "gov.": "governor", "sen.": "senator", "sgt.": "sergeant", "det.": "detective", "capt.": "captain",
    "insp.": "inspector",
}  # fmt: skip
"""Role nouns news text writes short before a name ("Gov. Doug Ducey")."""
_MODIFIERS = frozenset({"compound", "amod"})
_FORMER = frozenset({"former", "ex", "retired", "then", "late", "acting", "interim", "future"})
"""Words that make a role one the person held at another time, or holds for now: no rival of another."""


@dataclass(frozen=True)
class Title:
    """One role a text binds to a person's name."""

    person: frozenset[str]
    """The words of the person's name, casefolded (:func:`._people.person_words`)."""
    name: str
    role: str
    """The role noun, casefolded ("manager")."""
    text: str
    """The role as written, with the words that make it up ("general manager")."""
    start: int
    end: int
    of: str | None
    """Whose the role is, where a possessive says ("his" of "his son"): a kinship is relative to it."""
    current: bool
    """Not a role held at another time or for now ("former mayor", "acting director")."""
    place: tuple[str, str] | None = None
    """The country or state the role is of, where a modifier names one: its level and name (("region",
    "arizona"), :func:`_place`)."""


@dataclass(frozen=True)
class PersonTitles:
    """The roles a text binds to names, every person it names, and the sentences that name each."""

    titles: tuple[Title, ...]
    people: frozenset[frozenset[str]]
    naming: tuple[tuple[frozenset[str], frozenset[str]], ...]
    """Each person's mention: the name's words and the words of its sentence, casefolded."""


def person_titles(doc: Doc) -> PersonTitles:
    """The roles bound to the persons a parsed text names."""
    found: list[Title] = []
    people: set[frozenset[str]] = set()
    naming: list[tuple[frozenset[str], frozenset[str]]] = []
    for ent in doc.ents:
        if ent.label_ != "PERSON":
            continue
        inside = roles_inside(ent)
        person = person_words(doc, ent, skip=frozenset(t.i for t in inside))
        if not person:
            continue
        people.add(person)
        naming.append((person, frozenset(_role(t) or t.lower_ for t in ent.sent if not t.is_punct)))
        name = doc[ent.start + len(inside) : ent.end].text
        for noun in [*inside, *_bound_roles(doc, ent)]:
            modifiers = [c for c in noun.lefts if c.dep_ in _MODIFIERS and c.i >= noun.i - 3]
            first = min([noun.i, *(c.left_edge.i for c in modifiers)])
            start, end = doc[first].idx, noun.idx + len(noun)
            of = next((c.lower_ for c in noun.children if c.dep_ == "poss"), None)
            current = not any(t.lower_ in _FORMER for t in doc[max(0, first - 2) : noun.i])
            role = _role(noun)
            assert role is not None  # both sources keep only role nouns
            text = doc.text[start:end]
            found.append(Title(person, name, role, text, start, end, of, current, _place(noun)))
    return PersonTitles(tuple(found), frozenset(people), tuple(naming))


def roles_inside(ent: Span) -> list[Token]:
    """Role nouns the recogniser took into a person's name ("Councilmember Denise Okafor"): no part of
    the name."""
    out = []
    for token in ent:
        if _role(token) is None or token.i == ent.root.i:
            break
        out.append(token)
    return out


def _role(token: Token) -> str | None:
    """The role noun ``token`` writes, casefolded and written out ("Gov." is "governor"), or None."""
    return _ABBREVIATED.get(token.lower_) or (token.lower_ if token.lower_ in ROLES else None)


def _place(noun: Token) -> tuple[str, str] | None:
    """The country or state a role is of, where a modifier names one the place table holds ("Arizona
    Gov.", "New Mexico Governor"): its level and name, casefolded. Not a city, a county or a
    nationality ("Maricopa County Sheriff", "Democratic Gov."), which may lie inside another's place."""
    for c in noun.lefts:
        if c.dep_ not in _MODIFIERS or not c.ent_type_:
            continue
        place = next((e for e in noun.doc.ents if e.start <= c.i < e.end), None)
        if place is not None and (level := place_level(place.text)) is not None:
            return level, place.text.casefold()
    return None


def _bound_roles(doc: Doc, ent: Span) -> list[Token]:
    """Role nouns bound to the name from outside it: just before it ("Mayor Okafor"), in apposition
    after it ("Luis Ortega, the general manager") or the name in apposition to one ("his son, Thomas")."""
    root = ent.root
    out = []
    if (
        ent.start > 0
        and _role(before := doc[ent.start - 1]) is not None
        and ent.start <= before.head.i < ent.end
    ):
        out.append(before)
    out += [c for c in root.children if c.dep_ == "appos" and _role(c) is not None]
    if root.dep_ == "appos" and _role(root.head) is not None:
        out.append(root.head)
    return out


def title_verdicts(response: PersonTitles, stated: PersonTitles) -> list[Verdict]:
    """The response's roles the context gives the same person otherwise, contradicted."""
    out = []
    for title in response.titles:
        if not one_person([p for p in stated.people if one_of(p, title.person)]):
            continue
        theirs = [t for t in stated.titles if one_of(t.person, title.person)]
        rivals = (
            []
            if any(_alike(title.role, t.role) for t in theirs)
            else [t for t in theirs if _rivals(title, t)]
        )
        if any(title.role in words for p, words in stated.naming if one_of(p, title.person)):
            rivals = []
        rivals = rivals or _elsewhere(title, theirs, stated)
        if not title.current or not rivals:
            continue
        said = f"{rivals[0].name}, {rivals[0].text}"
        out.append(Verdict("role", "contradicted", title.text, title.start, title.end, said))
    return out


def _rivals(mine: Title, theirs: Title) -> bool:
    """Two roles that one person cannot both hold now: of one kind, both current, and a kinship relative
    to the same one ("his son" against "his nephew"; "big sister" and "their older daughter" may be
    one girl)."""
    kind = _KIND[mine.role]
    if kind != _KIND[theirs.role] or not theirs.current:
        return False
    return kind != "kin" or (mine.of is not None and mine.of == theirs.of)


def _elsewhere(title: Title, theirs: list[Title], stated: PersonTitles) -> list[Title]:
    """The person's same role, where the context names its place otherwise: another country or
    another state ("Arizona Gov." against "Texas Governor"), and the response's place in no sentence that
    names the person."""
    place = title.place
    if place is None:
        return []
    if any(set(place[1].split()) <= words for p, words in stated.naming if one_of(p, title.person)):
        return []
    return [
        t
        for t in theirs
        if t.current and _alike(title.role, t.role) and t.place is not None and t.place[0] == place[0]
    ]


def _alike(one: str, other: str) -> bool:
    return one == other or any(one in kind and other in kind for kind in _ALIKE)
