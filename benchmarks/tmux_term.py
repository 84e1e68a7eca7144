"""Driving a program in a real terminal (tmux) as a person would: the benchmarks' shared helpers.

A program runs in a detached tmux session of a fixed size; keys go in with ``send-keys``; what a
person sees is ``capture-pane`` (text only). The floor of any Textual app is :data:`EMPTY_APP`:
an ``Input`` holding ``"> "``, measured in the same run as the app under test.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SIZE = (160, 45)
POLL = 0.01  # seconds between two looks at the screen

EMPTY_APP = r"""
from textual.app import App
from textual.widgets import Input

class Echo(App):
    def compose(self):
        yield Input(placeholder="type", value="> ")

Echo().run()
"""


def tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], check=True, capture_output=True, text=True).stdout


def pane(session: str) -> str:
    """The screen as text (no colours)."""
    return tmux("capture-pane", "-p", "-t", session)


def send(session: str, *keys: str, literal: bool = False) -> None:
    """Keys as tmux names them (``BSpace``, ``Left``, ``C-u``), or ``literal`` text."""
    tmux("send-keys", "-t", session, *(("-l",) if literal else ()), *keys)


def start(session: str, command: str, env: Mapping[str, str], size: tuple[int, int] = SIZE) -> None:
    """Run ``command`` in a new detached tmux session (a stale one of that name is killed)."""
    exports = " ".join(f"{key}={value!s}" for key, value in env.items())
    width, height = size
    subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)
    tmux(
        "new-session", "-d", "-s", session, "-x", str(width), "-y", str(height),
        f"env {exports} {command}",
    )  # fmt: skip


def stop(session: str) -> None:
    subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)


def wait_for(
    session: str, shown: Callable[[str], bool], timeout: float = 120.0, start: float | None = None
) -> float:
    """Seconds from ``start`` (default: now) until ``shown(screen)``; NaN after ``timeout``."""
    begin = time.perf_counter() if start is None else start
    while time.perf_counter() - begin < timeout:
        if shown(pane(session)):
            return time.perf_counter() - begin
        time.sleep(POLL)
    return float("nan")


def wait_for_text(session: str, text: str, timeout: float = 120.0) -> None:
    """Wait until the screen shows ``text``; give up (exit) with the screen after ``timeout``."""
    if math.isnan(wait_for(session, lambda screen: text in screen, timeout)):
        raise SystemExit(f"{text!r} never appeared:\n{pane(session)}")


def pane_pid(session: str) -> int:
    return int(tmux("list-panes", "-t", session, "-F", "#{pane_pid}").split()[0])


def empty_app_command() -> str:
    """The command line of the empty Textual app (:data:`EMPTY_APP`, written to a temp file)."""
    script = Path(tempfile.mkdtemp(prefix="pitui-empty-app-")) / "echo_app.py"
    script.write_text(EMPTY_APP)
    return f"{sys.executable} {script}"


def app_env(agent: Path, cache: Path) -> dict[str, str]:
    """pitui's environment for a store: this checkout's code, its own cache, default settings."""
    return {
        "PI_CODING_AGENT_DIR": str(agent),
        "XDG_CACHE_HOME": str(cache),
        "XDG_CONFIG_HOME": str(cache / "config"),  # pitui's defaults, not this user's config
        "TERM": "xterm-256color",
        "PYTHONPATH": str(REPO),
    }


def warm_index(env: Mapping[str, str], *, texts: bool = True) -> None:
    """A previous run, as a user had one: every session listed and (``texts``) its texts read
    into the index (``list --search`` reads them), so the picker starts from a warm index."""
    search = ["--search", "re:^$"] if texts else []
    subprocess.run(
        [sys.executable, "-m", "pitui", "list", "--all", *search, "--json"],
        env={**os.environ, **env},
        stdout=subprocess.DEVNULL,
        check=True,
    )
