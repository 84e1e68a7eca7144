"""``p=$(pitui --print)``: stdout is a pipe, yet the picker draws on the real terminal at its real
size, follows a resize, prints the chosen path to the pipe, and exits 1 when none was chosen."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.core.sessiondata import assistant, user
from tests.pty_terminal import Terminal, pitui_env
from tests.ui.picker_kit import write_session

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a pty")

CWD = "/home/ana/code/webapp"


class PrintRun(Terminal):
    """``pitui --print`` with a pty as its terminal and a pipe as its stdout."""

    def __init__(self, tmp_path: Path, columns: int, rows: int) -> None:
        agent = tmp_path / "agent"
        self.path = write_session(
            agent, CWD, "0195cccc-0000-7000-8000-000000000001",
            [user("u1", None, "Make the printed path reach the pipe"),
             assistant("a1", "u1", "done")],
        )  # fmt: skip
        env = pitui_env(tmp_path, agent, tmp_path)
        argv = [sys.executable, "-m", "pitui", "--all", "--no-watch", "--print"]
        super().__init__(argv, env, tmp_path, columns=columns, rows=rows, stdout=subprocess.PIPE)

    def finish(self, keys: bytes) -> tuple[int, bytes]:
        """Press ``keys``; pitui's exit code and what it printed to the pipe."""
        os.write(self.master, keys)
        try:
            stdout, _ = self.proc.communicate(timeout=40)
        finally:
            code = self.close()
        return code, stdout


def _bottom_row_drawn(rows: int) -> bytes:
    # Textual places the cursor at each line it draws: the last row is reached only if it
    # knows the screen is that tall
    return rb"\x1b\[" + str(rows).encode() + rb";1H"


def test_print_draws_on_the_terminal_follows_a_resize_and_prints_the_choice(
    tmp_path: Path,
) -> None:
    run = PrintRun(tmp_path, columns=110, rows=33)
    run.wait_for_pattern(rb"Make the printed path")
    run.wait_for_pattern(_bottom_row_drawn(33), timeout=5)
    run.wait_for_pattern(rb"last activity")  # the preview: the list is ready for keys
    run.resize(140, 41)
    run.wait_for_pattern(_bottom_row_drawn(41), timeout=10)
    run.read(0.5)
    code, stdout = run.finish(b"\r")  # Enter: choose the session
    assert code == 0
    assert stdout.decode() == f"{run.path}\n"
    assert b"Make the printed path" in run.output  # (the UI went to the terminal, not the pipe)


def test_print_exits_1_when_nothing_was_chosen(tmp_path: Path) -> None:
    run = PrintRun(tmp_path, columns=100, rows=30)
    run.wait_for_pattern(rb"last activity")
    code, stdout = run.finish(b"\x1b")  # Esc: leave without choosing
    assert code == 1
    assert stdout == b""
    assert b"pitui: no session was chosen" in run.output


def test_without_a_terminal_the_streams_stay() -> None:
    # no controlling terminal (a new session, pipes for every stream): nothing to stand in
    probe = (
        "import os\n"
        "from pitui.cli.app import _on_the_terminal\n"
        "before = [os.fstat(fd).st_ino for fd in (0, 1, 2)]\n"
        "with _on_the_terminal():\n"
        "    inside = [os.fstat(fd).st_ino for fd in (0, 1, 2)]\n"
        "print(before == inside)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], stdin=subprocess.PIPE, capture_output=True, text=True,
        start_new_session=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout == "True\n"
