"""What is not a regular file is refused at once with a message that says so (issue 24.9, 24.16):
a FIFO named ``*.jsonl`` made ``inspect`` and the library block for ever, and a folder or a FIFO
was called "no such session file"."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from pitui.cli import main
from pitui.core.lookup import SessionNotFoundError, find_session
from pitui.core.manager import SessionManager
from pitui.core.session import Session


def finishes(call: Callable[[], object], seconds: float = 10.0) -> None:
    """Run ``call`` in a thread; fail if it is still blocked after ``seconds``."""
    done = threading.Event()

    def run() -> None:
        try:
            call()
        except BaseException:
            pass
        finally:
            done.set()

    threading.Thread(target=run, daemon=True).start()
    if not done.wait(seconds):
        # unblock it: a writer opening the FIFO lets a blocked reader's open return
        raise AssertionError(f"{call!r} blocked for {seconds} s")


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe.jsonl"
    os.mkfifo(path)
    return path


def test_find_session_says_what_a_path_is(tmp_path: Path, fifo: Path) -> None:
    folder = tmp_path / "folder.jsonl"
    folder.mkdir()
    with pytest.raises(SessionNotFoundError, match="not a regular file"):
        find_session(str(fifo))
    with pytest.raises(SessionNotFoundError, match="is a folder"):
        find_session(str(folder))
    with pytest.raises(SessionNotFoundError, match="no such session file"):
        find_session(str(tmp_path / "gone.jsonl"))


def test_commands_refuse_a_fifo_at_once(fifo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (
        ["inspect", str(fifo)],
        ["rename", str(fifo), "x"],
        ["export", str(fifo), "-f", "md"],
        ["doctor", str(fifo)],
    ):
        codes: list[int] = []

        def run(argv: list[str] = argv, codes: list[int] = codes) -> None:
            codes.append(main(argv))

        finishes(run)
        assert codes == [1], argv
        said = capsys.readouterr()
        assert "regular file" in said.err + said.out, argv  # (the doctor reports on stdout)


def test_the_library_refuses_a_fifo_at_once(fifo: Path) -> None:
    for call in (lambda: Session.open(fifo), lambda: SessionManager.open(str(fifo))):
        raised: list[BaseException] = []

        def run(call: Callable[[], object] = call, raised: list[BaseException] = raised) -> None:
            try:
                call()
            except BaseException as exc:
                raised.append(exc)

        finishes(run)
        assert raised and isinstance(raised[0], Exception), raised  # (an error, not a hang)
        assert "regular file" in str(raised[0])
