"""Fixtures shared by the UI tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import local_zone


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A temp $HOME with an empty pi agent dir (``~/.pi/agent``), and UTC as local time (the
    preview and the stats draw dates): what the picker snapshots stand on."""
    folder = tmp_path / "home"
    (folder / ".pi" / "agent").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(folder))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(folder / ".pi" / "agent"))
    with local_zone("UTC"):
        yield folder
