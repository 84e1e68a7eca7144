"""Shared test fixtures: where the shared fixture corpora are, isolated XDG/agent dirs, a private
copy of the pi-written store, and the ``pitui`` command run in process."""

from __future__ import annotations

import gc
import io
import json
import os
import shutil
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parent.parent
# CI lays shared/ beside the clone; a developer's tree has it at ../shared too.
SHARED = Path(os.environ.get("PITUI_SHARED_DIR", REPO.parent / "shared"))
FIXTURES = SHARED / "fixtures"
CORPORA = ("pi-written", "pi-written-1.6.0")
#: The fields of a listed session that pi's ``SessionInfo`` and ``pitui list --json`` both have,
#: under pi's names (the path aside: it differs between a corpus and its copy).
PI_LISTED_KEYS = (
    "id", "cwd", "name", "parentSessionPath", "created", "modified", "messageCount",
    "firstMessage",
)  # fmt: skip

#: ``run(*argv, stdin="")``: the ``pitui`` command run in process → (exit code, stdout, stderr).
Run = Callable[..., tuple[int, str, str]]


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


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Run:
    """The ``pitui`` command in process: ``run("rename", path, "x")`` → (code, out, err).
    ``stdin`` is what it reads there (nothing by default); a usage error's ``SystemExit`` is
    its exit code."""
    from pitui.cli import main

    def call(*argv: str, stdin: str = "") -> tuple[int, str, str]:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
        try:
            code = main(list(argv))
        except SystemExit as exc:  # usage errors
            code = int(exc.code or 0)
        out, err = capsys.readouterr()
        return code, out, err

    return call


def run_json(run: Run, *argv: str) -> list[dict[str, Any]]:
    """``run(*argv, "--json")``, which must succeed: its output, read."""
    code, out, err = run(*argv, "--json")
    assert code == 0, err
    data: list[dict[str, Any]] = json.loads(out)
    return data


@pytest.fixture
def agent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private copy of the pi-written store as the agent directory (file times kept: nothing
    looks busy), with ``tmp_path`` as the working directory."""
    copy = tmp_path / "agent"
    shutil.copytree(FIXTURES / "pi-written" / "agent", copy)
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(copy))
    monkeypatch.chdir(tmp_path)
    return copy


@contextmanager
def local_zone(zone: str) -> Iterator[str]:
    """``zone`` as the local time zone inside the block (``TZ``, re-read with ``time.tzset``),
    the one before after it."""
    saved = os.environ.get("TZ")
    os.environ["TZ"] = zone
    time.tzset()
    try:
        yield zone
    finally:
        if saved is None:
            os.environ.pop("TZ", None)
        else:
            os.environ["TZ"] = saved
        time.tzset()


@pytest.fixture
def utc() -> Iterator[None]:
    """UTC as the local time zone while the test runs (times are drawn in local time)."""
    with local_zone("UTC"):
        yield


@pytest.fixture
def collector() -> Iterator[None]:
    """The test process's cyclic collector left as it was, whatever the test did to it (held,
    released, frozen: :mod:`pitui.core.memory`)."""
    from pitui.core import memory

    was_enabled, frozen = gc.isenabled(), gc.get_freeze_count()
    yield
    memory.release_collector(freeze=False)
    if gc.get_freeze_count() > frozen:
        gc.unfreeze()
    if was_enabled:
        gc.enable()
