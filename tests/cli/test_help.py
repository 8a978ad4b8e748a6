"""Every command's --help reads as plain text for a user: no reST markup, no notes for developers."""

from __future__ import annotations

import argparse

import pytest

from trustscore.cli import build_parser

COMMANDS = ("score", "eval", "calibrate", "serve", "train-detector", "export-embedding")


def _help(*argv: str, capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as stop:
        build_parser().parse_args([*argv, "--help"])
    assert stop.value.code == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("command", COMMANDS)
def test_help_shows_no_rest_markup(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    text = _help(command, capsys=capsys)
    assert "``" not in text
    assert f"trustscore {command}" in text


def test_serve_help_is_for_users(capsys: pytest.CaptureFixture[str]) -> None:
    text = _help("serve", capsys=capsys)
    assert "start one vLLM server per local endpoint" in text
    assert "trustscore/serve.py" not in text
    assert "this module" not in text


@pytest.mark.parametrize("command", COMMANDS)
def test_every_option_says_what_it_does(command: str) -> None:
    (sub,) = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    silent = [a.dest for a in sub.choices[command]._actions if not a.help]
    assert silent == []


def test_the_command_list_names_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    text = _help(capsys=capsys)
    assert all(command in text for command in COMMANDS)
