"""Shared test fixtures: where the shared fixture corpora are, and isolated XDG/agent dirs."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parent.parent
# CI lays shared/ beside the clone; a developer's tree has it at ../shared too.
SHARED = Path(os.environ.get("PITUI_SHARED_DIR", REPO.parent / "shared"))
FIXTURES = SHARED / "fixtures"
CORPORA = ("pi-written", "pi-written-1.6.0")


def load_expected(corpus: str) -> dict[str, Any]:
    with open(FIXTURES / corpus / "expected.json", encoding="utf-8") as handle:
        data: dict[str, Any] = json.load(handle)
    return data


def fixture_sessions(corpus: str) -> list[tuple[Path, dict[str, Any]]]:
    """(file path, expected record) for every session of a pi-written corpus."""
    expected = load_expected(corpus)
    agent = FIXTURES / corpus / "agent"
    return [(agent / rel, record) for rel, record in sorted(expected["sessions"].items())]


def fixture_by_scenario(corpus: str, scenario: str) -> Path:
    for path, record in fixture_sessions(corpus):
        if record["scenario"] == scenario:
            return path
    raise KeyError(scenario)


@pytest.fixture(autouse=True)
def _isolated_dirs(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    """No test reads or writes the real home, cache or config."""
    base = tmp_path_factory.mktemp("xdg")
    monkeypatch.setenv("XDG_CACHE_HOME", str(base / "cache"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(base / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(base / "data"))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(base / "agent"))
    yield


@pytest.fixture(autouse=True)
def _isolated_trash(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """send2trash reads XDG_DATA_HOME once at import: point its home trash at a temp dir."""
    from send2trash import plat_other

    data = tmp_path_factory.mktemp("data")
    monkeypatch.setattr(plat_other, "XDG_DATA_HOME", os.fsencode(data))
    monkeypatch.setattr(plat_other, "HOMETRASH_B", os.fsencode(data / "Trash"))
    monkeypatch.setattr(plat_other, "HOMETRASH", str(data / "Trash"))
