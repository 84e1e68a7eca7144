"""A program run with a pseudo-terminal as its terminal, and what it drew there.

Shared by the real-terminal tests (the bytes pitui sends) and ``pitui --print`` (the UI on the
terminal while stdout is a pipe). POSIX only.
"""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import signal
import struct
import subprocess
import termios
import time
from collections.abc import Callable
from pathlib import Path


def set_size(fd: int, columns: int, rows: int) -> None:
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))


def _take_terminal() -> None:
    # (in the child, a session leader: the pty on stdin becomes its controlling terminal, what
    # /dev/tty names, as a shell's terminal is)
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def pitui_env(home: Path, agent: Path, tmp_path: Path) -> dict[str, str]:
    """The environment of a pitui run in a terminal on the store ``agent``: its own cache and
    config under ``tmp_path``, UTF-8, UTC, this checkout's code; nothing of the user's."""
    return {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "PI_CODING_AGENT_DIR": str(agent),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
        "TZ": "UTC",
        "PYTHONPATH": os.environ.get("PYTHONPATH", ""),
    }


class Terminal:
    """``argv`` on a ``columns`` × ``rows`` pty: stdin and stderr are the pty, stdout too unless
    ``stdout`` says otherwise (``subprocess.PIPE``: then the pty is also made the controlling
    terminal, as a shell's ``p=$(…)`` leaves it). ``output`` is everything drawn so far."""

    def __init__(
        self,
        argv: list[str],
        env: dict[str, str],
        cwd: Path,
        *,
        columns: int = 140,
        rows: int = 40,
        stdout: int | None = None,
    ) -> None:
        self.master, slave = pty.openpty()
        set_size(slave, columns, rows)
        piped = stdout is not None
        self.proc = subprocess.Popen(
            argv, stdin=slave, stdout=stdout if piped else slave, stderr=slave, env=env,
            cwd=cwd, start_new_session=True, close_fds=True,
            preexec_fn=_take_terminal if piped else None,
        )  # fmt: skip
        os.close(slave)
        self.output = bytearray()

    def read(self, seconds: float) -> None:
        """What the program draws during ``seconds`` (less if it ends or stops drawing)."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            ready, _, _ = select.select([self.master], [], [], left)
            if not ready:
                return
            try:
                chunk = os.read(self.master, 65536)
            except OSError:  # the program has exited
                return
            if not chunk:
                return
            self.output += chunk

    def wait_for(self, text: bytes, timeout: float = 30.0) -> None:
        """Until the program draws ``text`` (from now on)."""
        self._wait(lambda drawn: text in drawn, len(self.output), text, timeout)

    def wait_for_pattern(self, pattern: bytes, timeout: float = 30.0) -> None:
        """Until ``pattern`` matches all that was drawn so far."""
        self._wait(lambda drawn: re.search(pattern, drawn) is not None, 0, pattern, timeout)

    def _wait(
        self, found: Callable[[bytes], bool], start: int, what: bytes, timeout: float
    ) -> None:
        deadline = time.monotonic() + timeout
        while not found(bytes(self.output[start:])):
            if time.monotonic() > deadline or self.proc.poll() is not None:
                tail = bytes(self.output[-2000:])
                raise AssertionError(f"{what!r} never appeared; last output: {tail!r}")
            self.read(0.2)

    def send(self, keys: bytes, settle: float = 0.6) -> None:
        os.write(self.master, keys)
        self.read(settle)

    def resize(self, columns: int, rows: int) -> None:
        set_size(self.master, columns, rows)
        os.kill(self.proc.pid, signal.SIGWINCH)

    def close(self, timeout: float = 15) -> int:
        """Wait for the program to end (killed past ``timeout``); its exit code."""
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            raise
        finally:
            self.read(0.3)
            os.close(self.master)
