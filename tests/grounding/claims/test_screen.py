"""Abstentions and answers in another language: recognised before any word is matched."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trustscore import Sample
from trustscore.grounding._abstention import abstention
from trustscore.grounding._screen import unchecked

from .library import CONTEXT, GERMAN, QUESTION, VERBATIM


@pytest.mark.parametrize(
    "response",
    [
        "The context does not say who founded the library.",
        "I don't know.",
        "This is not mentioned in the passage.",
        "There is no information about the founder.",
        "The founder cannot be determined from the text.",
        "I am unable to answer that from the documents provided.",
        "This information is not available in the context.",
        "It is not known who founded the library.",
        "The opening hours are not available from the passage.",
        "The founder's name is not mentioned.",
        "That isn't mentioned.",
        "Unable to answer based on given passages.",
        "The opening date is not specifically mentioned in the given passages. Therefore, it is unable to "
        "answer based on the given passages.",
        "Sorry. I don't have that information.",
        "I'm sorry, but I can't answer that based on the given text.",
        "However, the passages do not say who founded it.",
        "The answer cannot be determined.",
        "The provided passages do not contain an answer to this question.",
        "Based on the given passages, I cannot determine the founder.",
        "It is not possible to determine the founder from the given passages.",
        "Neither passage mentions the founder.",
        "The passages say nothing about the founder.",
        "The founder is not named in the passages.",
        "There's no information provided about the founder.",
        "Not mentioned.",
        "N/A",
        "Answer: Unable to answer based on given passages.",
        "Sorry, I can't help with that.",
        "The passages do not mention the founder. Please consult another source.",
        "I don't know. Is there anything else I can help with?",
        "I'm unable to answer that.",
        "We're unable to determine that from the text.",
        "This is not mentioned in passage 2.",
        "I am not sure what the passage says about the founder in passage 2.",
        "I don't know what the context says.",
        # words of the declined question, not an answer
        "I don't know which of the 3 options is right.",
        "The context does not say what happened in 2019.",
        "The passage does not mention the 2019 figures.",
        "I cannot determine the 2020 revenue from the passages.",
        "I am not sure which of the 2 candidates won.",
        "It is not mentioned in passages 1-3.",
        "This is not mentioned in passage 2 or 3.",
        "I don't know what the report says.",
        "I don't know which states allow it.",
        "I'm not sure which claims are true.",
        "I don't know whether the article states it.",
        # a report's word inside the declined question ("wrote", "said")
        "The passage does not say how many books she wrote.",
        "The text does not say what he told the court.",
        # the text itself names what it lacks, whatever that is
        "The passage does not give the reservoir's maximum depth.",
        "The FAQ does not state the price of the Pulse 3.",
        "The provided text does not list the ingredients.",
        "No price is mentioned.",
        "No date was given in the text.",
    ],
)
def test_declining_answers_are_abstentions(response: str) -> None:
    assert abstention(response) is not None


def test_every_refusal_of_the_contrast_set_is_an_abstention() -> None:
    """Its 25 wordings: naming what the context does not say, not knowing, not finding it, too little
    information ("I'm not sure.", "I couldn't find that in the context", "Not enough information.")."""
    with (Path(__file__).parents[3] / "examples" / "contrast_set.jsonl").open(encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    refusals = {r["response"] for r in rows if r["phenomenon"] == "refusal"}
    assert len(refusals) >= 25 and sorted(r for r in refusals if abstention(r) is None) == []


@pytest.mark.parametrize(
    "response",
    [
        VERBATIM,
        "It does not open on Sundays.",
        "No, the library is closed on Sundays.",
        "The ambiance is casual, and WiFi is not available.",
        "He is not available for the game on Saturday.",
        "The ratio is not known as the current gain.",
        "It is not known for its garden.",
        "It is not available in Europe.",
        "This is not available in red.",
        "It is not available on weekends; the shop is closed.",
        # the same words stating a fact, or hedging one
        "I'm not sure, but I think it opened in 2011.",
        "I am not sure the library is that old; it opened in 2011.",
        "Officials said there was not enough information to charge him.",
        "The president made no mention of the scandal.",
        "Police could not find the suspect.",
        "The library does not have a reading room.",
        "The library is not in the city centre.",
        "Your router's internal IP address can not be found in a few ways.",
        "Feedback is not provided to you on an electronic display.",
        "The exact normal values are not stated but are suggested to be a guide.",
        "The team was unclear from the start about its goals.",
        "I'm not sure about the year, but the library was paid for by the council.",
        "I'm not sure. I think the council paid for it in 2011.",
        "It was not clear from the documents, but the library cost 3 million dollars.",
        "The passages do not mention the founder. The library opened in 2011.",
        "There was not enough information available to the pilots, the report found.",
        "The board said insufficient information was provided by the contractor.",
        "The inquiry found insufficient data: the sensors failed.",
        "We could not find any survivors, the coast guard said.",
        "We do not have data caps on any plan.",
        "There is no data fee for roaming in the EU.",
        "She is not in information technology.",
        "The answer is not in the reference manual; it is 42.",
        "Breakfast is not included.",
        "Bail was not given, and the suspect remains in custody.",
        "Investigators were unable to determine the cause of the crash.",
        "The cause of death cannot be determined.",
        "Rescuers were unable to find the boy.",
        "No details were released by police.",
        # declining words that go on to state something, or report what someone else said
        "None of the documents mention the founder, who was John Smith.",
        "The passages do not mention it; the king died in 1066.",
        "The passages do not mention it (the king died in 1066).",
        "I don't know, the context says 240 pupils.",
        "I don't know, maybe 240.",
        "I don't know, probably Paris.",
        "I don't know, maybe two hundred forty.",
        "The context does not say, maybe John Smith.",
        "I cannot say for sure, roughly forty dollars.",
        "I'm not sure, but I think it opened in May.",
        "It is not mentioned in the passage, which lists $40 as the fee.",
        "I cannot say for sure from the text, it states that the school has no pool.",
        "The documents do not mention it, and the library opened in 2011.",
        "Her name is not mentioned in the documents, because she requested anonymity.",
        "Police said there is no information about the victims.",
        '"I don\'t know where he went," said his mother.',
        # the same words about the speaker or a product
        "I don't know much about cars.",
        "I don't know why, I just love dogs!",
        "I can't find my keys.",
        "I can't say enough good things about this vacuum.",
        "I am unable to find a job.",
        "This plan contains no data.",
        "Details are not available until Monday.",
        "Tax is not mentioned anywhere on the receipt.",
        "The text does not contain errors.",
        "The source does not provide funding for the project.",
        "Unable to determine the cause, doctors operated.",
        "No answer was given by the minister.",
        "No injuries were reported.",
        "The source does not give funding.",
        "The documents do not list any assets.",
        "The context does not say who wrote it, police said.",
        "There is no information about the victims, police said.",
        "The text does not give a price, but it costs $4.",
        # courtesy that carries a claim
        "I don't know. You can check the museum, which opened in 1998.",
        "I don't know. Please check the website, it says the museum opened in 1998.",
        "The context says it opened in 2011. "
        + "It has a garden and many books. " * 8
        + "The context does not say who founded it.",
    ],
)
def test_answers_that_state_something_are_not_abstentions(response: str) -> None:
    assert abstention(response) is None


def test_an_abstention_is_reported_as_its_own_outcome() -> None:
    found = unchecked(Sample(question=QUESTION, context=[CONTEXT], response="I don't know."))
    assert found is not None and found[0] == "abstention" and "declines" in found[1]


@pytest.mark.parametrize(
    ("response", "language"),
    [
        (GERMAN, "de"),
        ("Según el texto, se inauguró en el año 2017 y Laura Fischer estuvo a cargo del proyecto.", "es"),
    ],
)
def test_an_answer_in_another_language_is_not_checked_word_by_word(response: str, language: str) -> None:
    pytest.importorskip("py3langid", reason="language identification comes with trustscore[claims]")
    found = unchecked(Sample(question=QUESTION, context=[CONTEXT], response=response))
    assert found is not None and found[0] == "other_language"
    assert f"'{language}'" in found[1] and "'en'" in found[1]


@pytest.mark.parametrize(
    "response",
    [
        "2011.",
        "Clara Voss.",
        "Yes, on 14 March 2011.",
        VERBATIM,
        "Baltasar Corrada del Río designed it in 2007.",
    ],
)
def test_short_and_english_answers_are_checked(response: str) -> None:
    assert unchecked(Sample(question=QUESTION, context=[CONTEXT], response=response)) is None
