"""How a command leaves: the normal way (``sys.exit``, the interpreter's teardown, no ``os._exit``):
its output whole, its exit code and messages, and a reader that goes away early is no error."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pitui import cli
from tests.conftest import FIXTURES, REPO
from tests.core.sessiondata import HEADER, jsonl, user

AGENT = FIXTURES / "pi-written" / "agent"
ENTRY_POINT = (
    "import sys\n"
    "from pitui.cli import entry_point\n"
    "sys.argv = ['pitui', *sys.argv[1:]]\n"
    "entry_point()\n"
)


def run(args: list[str], tmp_path: Path, agent: Path = AGENT) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PI_CODING_AGENT_DIR": str(agent), "XDG_CACHE_HOME": str(tmp_path)}
    return subprocess.run(
        [sys.executable, "-c", ENTRY_POINT, *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        check=False,
    )


def test_a_listing_prints_all_of_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    done = run(["list", "--all", "--json"], tmp_path)
    assert done.returncode == 0
    assert done.stderr == ""
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(AGENT))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cli.main(["list", "--all", "--json"]) == 0
    assert done.stdout == capsys.readouterr().out


def test_a_failing_command_keeps_its_code_and_message(tmp_path: Path) -> None:
    done = run(["inspect", str(tmp_path / "missing.jsonl")], tmp_path)
    assert done.returncode == 1
    assert done.stderr.startswith("pitui: ") and done.stderr.count("\n") == 1


def test_a_reader_that_goes_away_is_no_error(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    folder = agent / "sessions" / "--tmp--"
    folder.mkdir(parents=True)
    for n in range(300):  # a listing much bigger than a pipe's buffer
        header = {**HEADER, "id": f"s{n}", "cwd": "/tmp"}
        (folder / f"s{n:03}.jsonl").write_bytes(
            jsonl(user("u1", None, f"question {n} " + "x" * 900), header=header)
        )
    env = {**os.environ, "PI_CODING_AGENT_DIR": str(agent), "XDG_CACHE_HOME": str(tmp_path)}
    with subprocess.Popen(
        [sys.executable, "-c", ENTRY_POINT, "list", "--all", "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=REPO,
        env=env,
    ) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        assert proc.stdout.read(10) == b"[\n  {\n    "
        proc.stdout.close()
        errors = proc.stderr.read()
    assert proc.returncode == 0
    assert errors == b""
