"""The command line's one parser (a click group): its commands, imported only when they run, the
picker's options, ``--session-dir`` before or after the command, and the exit codes of usage
errors (2, with the usage line)."""

from __future__ import annotations

import argparse
import importlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import click
import pytest

from pitui.cli import app as app_command
from pitui.cli.main import COMMANDS, cli, main
from tests.conftest import REPO
from tests.core.sessiondata import HEADER, jsonl, user

SESSION_ID = "0195bbbb-0000-7000-8000-000000000042"


def test_each_command_is_defined_by_its_module() -> None:
    assert set(COMMANDS) == {
        "open", "inspect", "doctor", "list", "rename", "label", "labels", "switch", "extract",
        "prune", "rm", "restore", "stats", "export", "diff",
    }  # fmt: skip
    with click.Context(cli) as ctx:
        for name, module in COMMANDS.items():
            command = cli.get_command(ctx, name)
            assert command is importlib.import_module(module).command
            assert command is not None and command.name == name


def _loaded_after(code: str, env: dict[str, str] | None = None) -> list[str]:
    probe = (
        "import sys\n"
        f"{code}\n"
        "print(sorted(m for m in sys.modules if m.startswith(('pitui.cli', 'pitui.ui'))"
        " or m.split('.')[0] == 'textual'))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**os.environ, **(env or {})},
        check=True,
    )
    loaded: list[str] = json.loads(done.stdout.strip().splitlines()[-1].replace("'", '"'))
    return loaded


def test_a_listing_imports_only_its_command(tmp_path: Path) -> None:
    env = {"PI_CODING_AGENT_DIR": str(tmp_path / "agent"), "XDG_CACHE_HOME": str(tmp_path)}
    code = "from pitui.cli.main import main\nassert main(['list', '--all', '--json']) == 0"
    loaded = _loaded_after(code, env)
    assert loaded == ["pitui.cli", "pitui.cli.common", "pitui.cli.list", "pitui.cli.main"]


def test_a_warm_listing_imports_neither_the_search_nor_the_reader(tmp_path: Path) -> None:
    # a warm `pitui list --json` is a folder scan, one query and the threaded order (a fork
    # included): pi's search, the full text and the session reader are for other commands
    folder = tmp_path / "agent" / "sessions" / "--home-ana-proj--"
    folder.mkdir(parents=True)
    (folder / "parent.jsonl").write_bytes(jsonl(user("u1", None)))
    fork = {**HEADER, "id": "0195aaaa-0000-7000-8000-000000000002"}
    fork["parentSession"] = str(folder / "parent.jsonl")
    (folder / "fork.jsonl").write_bytes(jsonl(user("u1", None), header=fork))
    env = {"PI_CODING_AGENT_DIR": str(tmp_path / "agent"), "XDG_CACHE_HOME": str(tmp_path)}
    listing = "from pitui.cli.main import main\nassert main(['list', '--all', '--json']) == 0\n"
    probe = (
        listing + "import sys\nprint(sorted(m for m in sys.modules if m.startswith('pitui.core')))"
    )
    for _run in ("cold", "warm"):  # (the second from the index)
        done = subprocess.run(
            [sys.executable, "-c", probe],
            capture_output=True,
            text=True,
            cwd=REPO,
            env={**os.environ, **env},
            check=True,
        )
    assert '"parentSessionPath": "' + str(folder / "parent.jsonl") in done.stdout
    loaded = json.loads(done.stdout.strip().splitlines()[-1].replace("'", '"'))
    assert not {
        "pitui.core.search", "pitui.core.fulltext", "pitui.core.summary", "pitui.core.session",
        "pitui.core.session_info", "pitui.core.js",
    } & set(loaded)  # fmt: skip


def test_the_picker_is_parsed_without_importing_the_commands() -> None:
    code = (
        "import pitui.cli.app as app\n"
        "app.run_picker = lambda args: 0\n"
        "from pitui.cli.main import main\n"
        "assert main(['--all']) == 0"
    )
    loaded = _loaded_after(code)
    assert loaded == ["pitui.cli", "pitui.cli.app", "pitui.cli.common", "pitui.cli.main"]


@pytest.fixture
def picker_args(monkeypatch: pytest.MonkeyPatch) -> list[argparse.Namespace]:
    calls: list[argparse.Namespace] = []

    def run_picker(args: argparse.Namespace) -> int:
        calls.append(args)
        return 0

    monkeypatch.setattr(app_command, "run_picker", run_picker)
    return calls


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        ([], {}),
        (["--all"], {"all": True}),
        (["--all", "--no-watch", "--print"], {"all": True, "no_watch": True, "print_only": True}),
        (["--session-dir", "/tmp/s", "--no-index"], {"session_dir": "/tmp/s", "no_index": True}),
        (["--current", "/tmp/x.jsonl", "--demo"], {"current": "/tmp/x.jsonl", "demo": True}),
    ],
)
def test_the_picker_gets_its_options(
    picker_args: list[argparse.Namespace], argv: list[str], expected: dict[str, Any]
) -> None:
    defaults = {
        "all": False, "session_dir": None, "print_only": False, "demo": False,
        "no_watch": False, "no_index": False, "current": None,
    }  # fmt: skip
    assert main(argv) == 0
    (args,) = picker_args
    assert vars(args) == {**defaults, **expected}


def usage_error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "Error: " in err
    return err


@pytest.mark.parametrize(
    "argv",
    [
        ["--bogus"],
        ["--al"],  # (no abbreviations: an option is named in full)
        ["bogus"],
        ["list", "--nope"],
        ["list", "--sort", "sideways"],
        ["inspect"],
        ["--session-dir"],
        ["export", "x.jsonl"],  # --format is required
        ["rm", "--all", "--older-than", "soon"],
        ["rm", "--all", "--max-messages", "-1"],
    ],
)
def test_usage_errors_exit_2_with_the_usage_line(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    usage_error(argv, capsys)


def test_a_usage_error_shows_the_commands_usage(capsys: pytest.CaptureFixture[str]) -> None:
    err = usage_error(["list", "--nope"], capsys)
    assert err.startswith("Usage: pitui list [OPTIONS]") and "No such option '--nope'" in err


def test_a_picker_option_before_a_command_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    err = usage_error(["--all", "inspect", "x.jsonl"], capsys)
    assert "--all is an option of the picker" in err


@pytest.mark.parametrize("argv", [["-h"], ["--help"], ["list", "-h"], ["rm", "--help"]])
def test_help_exits_0(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 0
    assert capsys.readouterr().out.startswith("Usage: pitui")


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.startswith("pitui ")


@pytest.fixture
def custom_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """pi's --session-dir: a folder of its own with one session, and an empty agent dir."""
    folder = tmp_path / "custom"
    folder.mkdir()
    header = {**HEADER, "id": SESSION_ID, "cwd": str(tmp_path)}
    (folder / f"2025-01-01T00-00-00-000Z_{SESSION_ID}.jsonl").write_bytes(
        jsonl(user("u1", None, "hello from a custom dir"), header=header)
    )
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "agent"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    return folder


def _listed(argv: list[str], capsys: pytest.CaptureFixture[str]) -> list[str]:
    assert main(argv) == 0
    return [info["id"] for info in json.loads(capsys.readouterr().out)]


def test_session_dir_before_or_after_the_command(
    custom_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _listed(["list", "--json"], capsys) == []
    before = _listed(["--session-dir", str(custom_dir), "list", "--json"], capsys)
    after = _listed(["list", "--session-dir", str(custom_dir), "--json"], capsys)
    assert before == after == [SESSION_ID]


def test_inspect_takes_an_id_prefix(custom_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # a prefix looked up in the custom session dir, given before the command or after it
    for argv in (
        ["--session-dir", str(custom_dir), "inspect", SESSION_ID[:13], "--json"],
        ["inspect", SESSION_ID[:13], "--session-dir", str(custom_dir), "--json"],
    ):
        assert main(argv) == 0
        assert json.loads(capsys.readouterr().out)["id"] == SESSION_ID
    # and without it, in the sessions of this folder (where pi keeps them), then of all folders
    assert main(["inspect", SESSION_ID[:13]]) == 1
    assert "no session id starts with" in capsys.readouterr().err
