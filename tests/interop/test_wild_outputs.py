"""No command prints ``None`` for a file from the wild, and no snapshot shows it (issue 20).

Every command that reads sessions runs on every file of ``tests/fixtures/wild/`` (a private copy,
quiet), human and ``--json`` output; an error message counts as output too. JSON ``null`` is a
value, not the word: only a Python ``None`` leaking into text is caught.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
from pathlib import Path

import pytest

from pitui.cli import main
from tests.interop.wild import wild_files

NONE = re.compile(r"\bNone\b")
SNAPSHOTS = Path(__file__).resolve().parents[1] / "ui" / "__snapshots__"
QUIET = 1_000_000_000  # an mtime long past: every file is quiet


@pytest.fixture
def store(tmp_path: Path) -> Path:
    folder = tmp_path / "sessions"
    folder.mkdir()
    for path in wild_files():
        copy = folder / path.name
        shutil.copyfile(path, copy)
        os.utime(copy, (QUIET, QUIET))
    return folder


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    with contextlib.suppress(SystemExit):  # usage errors exit through SystemExit
        main(list(argv))
    out, err = capsys.readouterr()
    return out + err


def _file_commands(path: str) -> list[list[str]]:
    return [
        ["inspect", path],
        ["inspect", "--json", path],
        ["doctor", path],
        ["doctor", "--json", path],
        ["export", "-f", "md", "-o", "-", path],
        ["export", "-f", "html", "-o", "-", path],
        ["export", "-f", "jsonl", "-o", "-", path],
    ]


def test_no_command_prints_none(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = str(store)
    commands = [
        ["list", "--session-dir", folder, "--all"],
        ["list", "--session-dir", folder, "--all", "--json"],
        ["stats", "--session-dir", folder, "--all"],
        ["stats", "--session-dir", folder, "--all", "--json"],
        ["stats", "--session-dir", folder, "--all", "--by", "model"],
        ["doctor", "--session-dir", folder, "--all"],
    ]
    for path in sorted(store.iterdir()):
        commands.extend(_file_commands(str(path)))
    seen = []
    for argv in commands:
        text = _run(capsys, *argv)
        assert text.strip(), argv  # every command says something
        for line in text.splitlines():
            if NONE.search(line):
                seen.append(f"{' '.join(argv)}: {line.strip()[:200]}")
    assert seen == []


def test_no_snapshot_shows_none() -> None:
    snapshots = sorted(SNAPSHOTS.rglob("*.svg"))
    assert snapshots, SNAPSHOTS
    shown = [p.name for p in snapshots if NONE.search(p.read_text(encoding="utf-8"))]
    assert shown == []
