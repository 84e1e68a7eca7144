"""The quick parsers (``pitui list …`` and the picker's ``pitui [options]``) answer exactly as
the whole parser does, and hand everything else to it."""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

from pitui import cli
from tests.conftest import REPO


def whole(argv: list[str]) -> argparse.Namespace:
    return cli.build_parser().parse_args(argv)


def test_the_subcommand_names_are_the_whole_parsers() -> None:
    parser = cli.build_parser()
    actions = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    assert set(actions[0].choices) == cli._SUBCOMMANDS


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["--all"],
        ["--all", "--no-watch", "--print"],
        ["--session-dir", "/tmp/s", "--no-index"],
        ["--current", "/tmp/x.jsonl", "--demo"],
        ["--al"],  # an abbreviation, as argparse allows
        ["list"],
        ["list", "--all", "--json", "--sort", "recent"],
    ],
)
def test_quick_parses_agree_with_the_whole_parser(argv: list[str]) -> None:
    quick = cli._quick_parse(argv)
    assert quick is not None
    if argv[:1] == ["list"]:  # (the whole parser adds the picker's defaults, which list ignores)
        assert vars(quick).items() <= vars(whole(argv)).items()
    else:
        assert vars(quick) == vars(whole(argv))


@pytest.mark.parametrize(
    "argv",
    [
        ["-h"],
        ["--help"],
        ["--version"],
        ["--bogus"],
        ["--all", "inspect", "x.jsonl"],
        ["open", "abc"],
        ["list", "--nope"],
        ["stats"],
        ["--session-dir", "open"],  # a value named like a command: the whole parser decides
    ],
)
def test_anything_else_goes_to_the_whole_parser(argv: list[str]) -> None:
    assert cli._quick_parse(argv) is None


def test_the_picker_is_parsed_without_importing_the_other_commands() -> None:
    code = (
        "import sys\n"
        "from pitui import cli\n"
        "cli._quick_parse(['--all'])\n"
        "print(sorted(m for m in sys.modules if m.startswith('pitui.commands.')))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True
    )
    loaded = "['pitui.commands.app', 'pitui.commands.common', 'pitui.commands.list']"
    assert out.stdout.strip() == loaded
