"""pitui in a real pseudo-terminal, on the terminal-hostile fixture: the bytes that reach the
terminal hold none of the session's escape sequences.

The snapshots prove what is drawn; this proves what is sent. The app runs as a user runs it
(``python -m pitui``) with a pty as its terminal; the test walks the picker with its preview,
the rename dialog, the doctor, the session view in the "all" filter and back, then reads
everything pitui wrote.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import fixture_by_scenario
from tests.pty_terminal import Terminal, pitui_env
from tests.ui.picker_kit import copy_fixture, write_hostile_session

# What the fixture's messages hold (see its README) and pitui itself never sends.
HOSTILE = [
    b"\x1b]0;",  # set the window title
    b"\x1b]8;;https://example.com",  # a hyperlink
    b"\x1b[?1049h(alt",  # the alternate screen, from a message
    b"\x1b[5A",  # cursor movement
    b"\x1b[31mred",  # colours, from a name and from messages
    b"\x1b[1;32m\xe2\x9c\x93",
    b"\x1b[2K31m",
    b"\xc2\x9b",  # a C1 CSI
    b"\x07",  # the bell
    b"\x08\x08\x08XYZ",  # backspaces
    "\u202e".encode(),  # a bidi override
]


def store_env(tmp_path: Path, scenario: str) -> dict[str, str]:
    """The environment of a pitui run on a store holding one fixture, nothing of the user's."""
    home = tmp_path / "home"
    agent = home / ".pi" / "agent"
    copy_fixture(fixture_by_scenario("pi-written", scenario), agent, "/home/ana/webapp")
    return pitui_env(home, agent, tmp_path)


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pty")
def test_no_session_escape_sequence_reaches_the_terminal(tmp_path: Path) -> None:
    env = store_env(tmp_path, "terminal-hostile")
    term = Terminal([sys.executable, "-m", "pitui", "--all", "--no-watch"], env, tmp_path)
    try:
        term.wait_for(b"Resume Session")
        term.wait_for(b"last activity")  # the preview of the hostile session
        term.send(b"\x12")  # Ctrl+R: rename, the hostile name pre-filled
        term.wait_for(b"Rename Session")
        term.send(b"\x1b", settle=1.0)  # Esc: cancel
        term.send(b"\x1bOR")  # F3: the doctor
        term.wait_for(b"healthy")
        term.send(b"\x1b", settle=1.0)  # Esc: back to the picker
        term.send(b"\x14")  # Ctrl+T: the session view
        term.wait_for(b"Context at")
        term.send(b"\x01", settle=1.0)  # Ctrl+A: every entry
        term.send(b"\x1b", settle=1.0)  # Esc: back to the picker
        term.send(b"\x1b", settle=1.0)  # Esc: quit
    finally:
        code = term.close()
    assert code == 0
    # Textual's own: the mouse pointer's shape (OSC 22, ended by a bell)
    output = re.sub(rb"\x1b\]22;[a-z-]*\x07", b"", bytes(term.output))
    assert b"Doctor" in output and b"red text" in output  # the hostile text was shown
    for sequence in HOSTILE:
        assert sequence not in output, f"{sequence!r} reached the terminal"


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pty")
def test_pitui_leaves_when_the_terminal_goes_away_with_sighup_ignored(tmp_path: Path) -> None:
    # Issue 24.12: with SIGHUP ignored (nohup, `trap '' HUP`, su) a closed terminal left pitui
    # running at full CPU, its input thread reading the dead terminal's end in a loop.
    env = store_env(tmp_path, "minimal")
    ignore_hup = "import os, signal, sys; signal.signal(signal.SIGHUP, signal.SIG_IGN); "
    run_pitui = "sys.argv = ['pitui', '--all', '--no-watch']; import runpy; "
    run = "runpy.run_module('pitui', run_name='__main__')"
    argv = [sys.executable, "-c", ignore_hup + run_pitui + run]
    term = Terminal(argv, env, tmp_path)
    try:
        term.wait_for(b"Resume Session")
    finally:
        os.close(term.master)  # the terminal goes away
    try:
        term.proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(term.proc.pid, signal.SIGKILL)
        raise AssertionError("pitui was still running 10 s after its terminal went away") from None


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pty")
def test_no_escape_sequence_from_any_field_reaches_the_terminal(tmp_path: Path) -> None:
    # the fixture's folder is rewritten (to be listed here): a session's own cwd, with an OSC
    # title in it, retitled the terminal from the session view's header
    home = tmp_path / "home"
    agent = home / ".pi" / "agent"
    write_hostile_session(agent, "/home/ana/webapp", mtime=time.time() - 3600)
    env = pitui_env(home, agent, tmp_path)
    term = Terminal([sys.executable, "-m", "pitui", "--all", "--no-watch"], env, tmp_path)
    try:
        term.wait_for(b"Resume Session")
        term.wait_for(b"last activity")
        term.send(b"\x14")  # Ctrl+T: the session view, its header naming the folder
        term.wait_for(b"Context at")
        term.send(b"\x1b", settle=1.0)
        term.send(b"\x1b", settle=1.0)
    finally:
        code = term.close()
    assert code == 0
    output = bytes(term.output)
    assert "␛]0;pwned".encode() in output  # shown
    assert b"\x1b]0;pwned" not in output and "\u202e".encode() not in output  # never sent
