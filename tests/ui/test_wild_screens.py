"""The session view and the picker on the files from the wild (issue 20): no ``None`` on screen.

Each file of ``tests/fixtures/wild/`` that is a session is opened in the session view (quiet copy),
and the whole store in the picker with each row's preview shown; the screen is exported as SVG
and searched for the word, which only a Python ``None`` leaking into text would put there.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import time
from pathlib import Path

import pytest
from textual.widgets import Static

from pitui.cli import main
from pitui.core.manager import SessionManager
from pitui.core.session import SETTLE_SECONDS, NotASessionError, Session
from pitui.ui.widgets.raw_lines import RawLinesView, why_not
from tests.interop.wild import WILD, wild_files
from tests.ui.sessionview import ScreenApp, copy_session, opened, settle, wait_for

NONE = re.compile(r"\bNone\b")


def _sessions() -> list[Path]:
    out = []
    for path in wild_files():
        try:
            Session.open(str(path), final=True).close()
        except NotASessionError:
            continue
        out.append(path)
    return out


@pytest.mark.parametrize("source", _sessions(), ids=lambda p: p.stem)
async def test_the_session_view_never_shows_none(tmp_path: Path, source: Path) -> None:
    path = copy_session(source, tmp_path)
    app = ScreenApp(path)
    async with app.run_test(size=(140, 45)) as pilot:
        await opened(app, pilot)
        screen = app.export_screenshot()
    assert not NONE.search(screen), source.name


# ---------------------------------------------------------------------- a file that is no session


@pytest.mark.parametrize("name", ["line-before-header.jsonl", "header-without-id.jsonl"])
async def test_a_file_that_is_no_session_shows_its_lines(tmp_path: Path, name: str) -> None:
    path = copy_session(WILD / name, tmp_path)
    before = path.read_bytes()
    app = ScreenApp(path)
    async with app.run_test(size=(140, 45)) as pilot:
        screen = app.session_screen
        await wait_for(pilot, lambda: bool(screen.query(RawLinesView)))
        await settle(app, pilot)
        view = screen.query_one(RawLinesView)
        assert view.option_count == len(path.read_bytes().splitlines())
        assert view.has_focus
        status = screen.query_one("#tree-status", Static).content
        assert str(status).startswith("Not a pi session: "), status
        assert not screen.query_one("#context-pane").display
        # every key of the session view and the tree answers: it works, or says why not
        for key, expected in (
            ("ctrl+r", why_not("resume")),
            ("ctrl+z", why_not("undo")),
            ("ctrl+e", why_not("extract")),
            ("ctrl+g", why_not("toggle_follow")),
            ("L", why_not("edit_label")),
            ("enter", why_not("select")),
            ("alt+y", why_not("copy_resume_command")),
        ):
            app.notes.clear()
            await pilot.press(key)
            await settle(app, pilot)
            assert [message for _, message in app.notes] == [expected], key
        app.notes.clear()
        await pilot.press("ctrl+y")  # copies the selected line
        await settle(app, pilot)
        assert any("line 1" in message for _, message in app.notes), app.notes
        assert not app.resumed
    assert path.read_bytes() == before


# ------------------------------------------------------------ an unterminated last line, fresh


def _fresh_copy(tmp_path: Path, seconds_ahead: float) -> Path:
    """A copy of the file without its last newline, as if written ``seconds_ahead`` from now."""
    path = tmp_path / "fresh.jsonl"
    shutil.copyfile(WILD / "no-trailing-newline.jsonl", path)
    stamp = time.time() + seconds_ahead
    os.utime(path, (stamp, stamp))
    return path


async def test_the_session_view_takes_the_last_line_once_the_file_is_quiet(
    tmp_path: Path,
) -> None:
    path = _fresh_copy(tmp_path, 0.0)
    app = ScreenApp(path)  # not watching: no file event will come, the file just goes quiet
    async with app.run_test(size=(140, 45)) as pilot:
        screen = app.session_screen
        await opened(app, pilot)
        session = screen.session
        assert session is not None
        if session.pending:  # (a slow machine may open it after it went quiet)
            assert "still being written" in app.export_screenshot().replace("&#160;", " ")
        await wait_for(pilot, lambda: len(session.entries) == 2, timeout=SETTLE_SECONDS + 8)
        await pilot.pause(0.3)  # (a context build the new entry started may be cancelled)
        assert session.pending == 0
        assert "still being written" not in app.export_screenshot().replace("&#160;", " ")


@pytest.mark.parametrize("fresh", [True, False], ids=["fresh", "quiet"])
async def test_every_reader_gives_the_same_answer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fresh: bool
) -> None:
    # Issue 20 acceptance: inspect, SessionManager.open, the session view and the listing read
    # the same file the same way at the same moment. Fresh: written "now" for the next minute.
    path = _fresh_copy(tmp_path, 60.0 if fresh else -3600.0)
    want = 1 if fresh else 2
    main(["inspect", "--json", str(path)])
    report = json.loads(capsys.readouterr().out)
    assert report["entryCount"] == want
    assert (report["pendingBytes"] > 0) is fresh
    with SessionManager.open(str(path)) as manager:
        assert len(manager.get_entries()) == want
    app = ScreenApp(path)
    async with app.run_test(size=(140, 45)) as pilot:
        await opened(app, pilot)
        session = app.session_screen.session
        assert session is not None and len(session.entries) == want
    # The listing counts a last line that parses at once, as pi's /resume does (its index keys
    # on size and mtime, which do not change when the file goes quiet): compared when quiet.
    if not fresh:
        main(["list", "--session-dir", str(tmp_path), "--all", "--json"])
        (listed,) = json.loads(capsys.readouterr().out)
        assert listed["messageCount"] == want
