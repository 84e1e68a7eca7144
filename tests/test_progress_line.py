"""The commands' progress line: on a terminal only, for long work only, always cleared."""

from __future__ import annotations

import io

import pytest

from pitui.cli.common import PROGRESS_MIN_FILES, progress_line


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_progress_line_is_redrawn_in_place_and_cleared(monkeypatch: pytest.MonkeyPatch) -> None:
    err = Terminal()
    monkeypatch.setattr("sys.stderr", err)
    with progress_line("Loading") as progress:
        assert progress is not None
        progress(5, PROGRESS_MIN_FILES)
        progress(6, PROGRESS_MIN_FILES)
    assert err.getvalue() == (
        f"\rLoading 5/{PROGRESS_MIN_FILES}\rLoading 6/{PROGRESS_MIN_FILES}\r\x1b[K"
    )


def test_short_work_shows_no_line(monkeypatch: pytest.MonkeyPatch) -> None:
    err = Terminal()
    monkeypatch.setattr("sys.stderr", err)
    with progress_line("Reading") as progress:
        assert progress is not None
        progress(1, PROGRESS_MIN_FILES - 1)
    assert err.getvalue() == ""


def test_the_line_is_cleared_when_the_work_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    err = Terminal()
    monkeypatch.setattr("sys.stderr", err)
    with pytest.raises(KeyError), progress_line("Checking") as progress:
        assert progress is not None
        progress(1, PROGRESS_MIN_FILES)
        raise KeyError("x")
    assert err.getvalue().endswith("\r\x1b[K")


def test_no_line_when_stderr_is_not_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stderr", io.StringIO())
    with progress_line("Loading") as progress:
        assert progress is None
