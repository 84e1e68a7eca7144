"""Helpers to put the fake `pi` executable (tests/fakes/pi) first on PATH for a test."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

FAKES_DIR = Path(__file__).resolve().parent
FAKE_PI = FAKES_DIR / "pi"


def install_fake_pi(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Make `pi` resolve to the fake for this test and return the path of its log.

    Each run of the fake appends ``{"argv": [args...], "cwd": os.getcwd()}`` to the log. Set
    ``PITUI_FAKE_PI_EXIT`` with monkeypatch afterwards to make it exit non-zero.
    """
    log = tmp_path / "fake-pi.log"
    monkeypatch.setenv("PATH", f"{FAKES_DIR}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.setenv("PITUI_FAKE_PI_LOG", str(log))
    monkeypatch.delenv("PITUI_FAKE_PI_EXIT", raising=False)
    return log


def read_fake_pi_log(path: Path) -> list[dict[str, Any]]:
    """Every run recorded in the log, oldest first; [] if the fake never ran."""
    if not path.exists():
        return []
    lines = path.read_text(encoding="ascii").split("\n")
    return [json.loads(line) for line in lines if line]
