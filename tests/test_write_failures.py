"""Permission denied, a read-only file system, a full disk (issue 8): every write failure is one
line (``WriteError`` from the core; ``pitui: …`` on stderr and exit 1 from the commands) and the
session file is left exactly as it was, with no temp file behind.

The suite runs as root here, and root writes a mode-444 file anyway; so the failures are injected
where the kernel would report them: ``os.open`` for writing raises EACCES or EROFS, ``os.write``
or ``os.fsync`` ENOSPC, ``os.replace`` EROFS, for the session file and its folder only. The real
``chmod 444`` case runs when the suite is not root.
"""

from __future__ import annotations

import errno
import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pitui.core import actions, edit
from pitui.core.session import Session
from tests.conftest import FIXTURES
from tests.core.sessiondata import chain, jsonl

WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND


def aged(path: Path) -> Path:
    past = time.time() - 3600
    os.utime(path, (past, past))
    return path


@pytest.fixture
def session_file(tmp_path: Path) -> Path:
    folder = tmp_path / "sessions"
    folder.mkdir()
    path = folder / "s.jsonl"
    path.write_bytes(jsonl(*chain(["q1", "a1", "q2", "a2"])))
    return aged(path)


@pytest.fixture
def v1_file(tmp_path: Path) -> Path:
    folder = tmp_path / "legacy"
    folder.mkdir()
    path = folder / "v1.jsonl"
    shutil.copy(FIXTURES / "pi-legacy" / "large-session.jsonl", path)
    return aged(path)


class Failures:
    """Make the kernel calls on one folder fail with an errno, the rest of the system untouched."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
        self.folder = str(folder)
        self.fds: set[int] = set()  # descriptors opened for writing in the folder
        self.monkeypatch = monkeypatch
        self._open = os.open

        def tracking_open(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
            fd = self._open(path, flags, *args, **kwargs)
            if flags & WRITE_FLAGS and self._mine(path):
                self.fds.add(fd)
            return fd

        monkeypatch.setattr(os, "open", tracking_open)

    def _mine(self, path: Any) -> bool:
        return isinstance(path, str | os.PathLike) and os.path.abspath(os.fspath(path)).startswith(
            self.folder + os.sep
        )

    def _error(self, code: int, path: str | None = None) -> OSError:
        return OSError(code, os.strerror(code), path)

    def open_for_writing(self, code: int) -> None:
        real = self._open

        def failing_open(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
            if flags & WRITE_FLAGS and self._mine(path):
                raise self._error(code, os.fspath(path))
            return real(path, flags, *args, **kwargs)

        self.monkeypatch.setattr(os, "open", failing_open)

    def write(self, code: int, *, after: int = 0) -> None:
        """``os.write`` on the folder's files fails; the first call may write ``after`` bytes
        (a short write), as a disk that fills up in the middle does."""
        real = os.write
        calls = [0]

        def failing_write(fd: int, data: Any) -> int:
            if fd not in self.fds:
                return real(fd, data)
            calls[0] += 1
            if calls[0] == 1 and after:
                return real(fd, bytes(data)[:after])
            raise self._error(code)

        self.monkeypatch.setattr(os, "write", failing_write)

    def fsync(self, code: int) -> None:
        real = os.fsync

        def failing_fsync(fd: Any) -> None:
            if fd in self.fds:
                raise self._error(code)
            real(fd)

        self.monkeypatch.setattr(os, "fsync", failing_fsync)

    def replace(self, code: int) -> None:
        real = os.replace

        def failing_replace(src: Any, dst: Any, **kwargs: Any) -> None:
            if self._mine(dst):
                raise self._error(code, os.fspath(dst))
            real(src, dst, **kwargs)

        self.monkeypatch.setattr(os, "replace", failing_replace)


@pytest.fixture
def failures(monkeypatch: pytest.MonkeyPatch) -> Callable[[Path], Failures]:
    """``failures(path)``: inject failures for the folder of ``path``."""
    return lambda path: Failures(monkeypatch, path.parent)


def snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    return {p.name: (p.read_bytes(), p.stat().st_mode) for p in sorted(folder.iterdir())}


def label_entry(path: Path) -> tuple[Session, dict[str, Any]]:
    session = Session.open(path, final=True)
    target = session.get("m2")
    assert target is not None
    return session, edit.label_entry(session, target, "important")


def one_line(exc: BaseException) -> str:
    text = str(exc)
    assert text and "\n" not in text
    return text


# -------------------------------------------------------------------------------- the core

APPEND_CASES = {
    "permission denied": ("open_for_writing", errno.EACCES, "Permission denied"),
    "read-only file system": ("open_for_writing", errno.EROFS, "Read-only file system"),
    "disk full": ("write", errno.ENOSPC, "No space left on device"),
}


@pytest.mark.parametrize("case", sorted(APPEND_CASES))
def test_append_failures_are_one_line_and_leave_the_file(
    case: str, session_file: Path, failures: Callable[[Path], Failures]
) -> None:
    method, code, words = APPEND_CASES[case]
    before = snapshot(session_file.parent)
    session, entry = label_entry(session_file)
    getattr(failures(session_file), method)(code)
    with pytest.raises(edit.WriteError) as caught:
        actions.append(session, lambda _: [entry])
    assert words in one_line(caught.value) and str(session_file) in str(caught.value)
    assert snapshot(session_file.parent) == before


def test_a_disk_full_in_the_middle_of_a_line_leaves_no_half_line(
    session_file: Path, failures: Callable[[Path], Failures]
) -> None:
    before = session_file.read_bytes()
    session, entry = label_entry(session_file)
    failures(session_file).write(errno.ENOSPC, after=10)
    with pytest.raises(edit.WriteError) as caught:
        actions.append(session, lambda _: [entry])
    one_line(caught.value)
    assert session_file.read_bytes() == before


REWRITE_CASES = {
    "folder not writable": ("open_for_writing", errno.EACCES, "Permission denied"),
    "read-only file system": ("open_for_writing", errno.EROFS, "Read-only file system"),
    "disk full at fsync": ("fsync", errno.ENOSPC, "No space left on device"),
    "read-only at rename": ("replace", errno.EROFS, "Read-only file system"),
}


@pytest.mark.parametrize("case", sorted(REWRITE_CASES))
def test_atomic_write_failures_are_one_line_and_leave_the_file(
    case: str, session_file: Path, failures: Callable[[Path], Failures]
) -> None:
    method, code, words = REWRITE_CASES[case]
    before = snapshot(session_file.parent)
    getattr(failures(session_file), method)(code)
    with pytest.raises(edit.WriteError) as caught:
        edit.atomic_write(str(session_file), [b'{"type":"session","id":"new"}\n'])
    assert words in one_line(caught.value)
    assert snapshot(session_file.parent) == before  # same bytes, same mode, no temp file


@pytest.mark.parametrize("case", sorted(REWRITE_CASES))
def test_a_failed_migration_leaves_the_v1_file(
    case: str, v1_file: Path, failures: Callable[[Path], Failures]
) -> None:
    method, code, words = REWRITE_CASES[case]
    before = snapshot(v1_file.parent)
    session = Session.open(v1_file, final=True)
    target = session.entries[-1]
    entry = edit.label_entry(session, target, "x")
    getattr(failures(v1_file), method)(code)
    with pytest.raises(edit.WriteError) as caught:
        actions.append(session, lambda _: [entry])  # migrates first: the rewrite fails
    assert words in one_line(caught.value)
    assert snapshot(v1_file.parent) == before


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes a mode-444 file anyway")
def test_a_real_read_only_file(session_file: Path) -> None:
    session_file.chmod(0o444)
    before = snapshot(session_file.parent)
    session, entry = label_entry(session_file)
    with pytest.raises(edit.WriteError) as caught:
        actions.append(session, lambda _: [entry])
    assert "Permission denied" in one_line(caught.value)
    assert snapshot(session_file.parent) == before


# ------------------------------------------------------------------------------ commands


COMMAND_CASES = {
    "permission denied": ("open_for_writing", errno.EACCES, "Permission denied"),
    "read-only file system": ("open_for_writing", errno.EROFS, "Read-only file system"),
    "disk full": ("write", errno.ENOSPC, "No space left on device"),
}


@pytest.mark.parametrize("case", sorted(COMMAND_CASES))
@pytest.mark.parametrize("command", ["label", "rename"])
def test_commands_print_one_line_and_exit_1(
    command: str,
    case: str,
    session_file: Path,
    failures: Callable[[Path], Failures],
    run: Callable[..., tuple[int, str, str]],
) -> None:
    method, code, words = COMMAND_CASES[case]
    before = snapshot(session_file.parent)
    getattr(failures(session_file), method)(code)
    args = ("m2", "keep") if command == "label" else ("a new name",)
    status, out, err = run(command, str(session_file), *args)
    assert (status, out) == (1, "")
    assert err.startswith("pitui: ") and err.endswith("\n") and err.count("\n") == 1
    assert words in err
    assert snapshot(session_file.parent) == before


@pytest.mark.parametrize("case", sorted(REWRITE_CASES))
def test_rename_of_a_v1_file_that_cannot_be_rewritten(
    case: str,
    v1_file: Path,
    failures: Callable[[Path], Failures],
    run: Callable[..., tuple[int, str, str]],
) -> None:
    method, code, words = REWRITE_CASES[case]
    before = snapshot(v1_file.parent)
    getattr(failures(v1_file), method)(code)
    status, out, err = run("rename", str(v1_file), "named")
    assert (status, out) == (1, "") and err.count("\n") == 1 and words in err
    assert snapshot(v1_file.parent) == before
