"""The oracle harness itself: pi 0.73.1 must report exactly what the fixtures recorded.

If these pass, the package is installed, the harness calls pi the way the fixtures were recorded,
and the other interop tests can trust what it says about files pitui wrote.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.interop.pi_oracle import PiOracle

ROOT = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("PITUI_SHARED_DIR") or ROOT.parent / "shared")
FIXTURES = SHARED / "fixtures" / "pi-written"
AGENT = FIXTURES / "agent"

if not (FIXTURES / "expected.json").is_file():
    pytest.skip(f"pi-written fixtures not found under {SHARED}", allow_module_level=True)

EXPECTED: dict[str, Any] = json.loads((FIXTURES / "expected.json").read_text(encoding="utf-8"))
SESSIONS: dict[str, dict[str, Any]] = EXPECTED["sessions"]

REPORT_KEYS = (
    "sessionId",
    "cwd",
    "name",
    "leafId",
    "branchIds",
    "rootIds",
    "entryCount",
    "entryTypeCounts",
    "labels",
    "labelTimestamps",
    "treePreorder",
    "header",
    "context",
    "llm",
)


def _digest(path: Path) -> tuple[str, int]:
    return hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime_ns


@pytest.fixture(scope="module")
def fixture_reports(pi_oracle: PiOracle) -> dict[str, dict[str, Any]]:
    """One node process for every fixture file, keyed by path relative to the agent dir."""
    files = sorted(AGENT.glob("sessions/*/*.jsonl"))
    before = {f: _digest(f) for f in files}
    reports = pi_oracle.report(files)
    assert {f: _digest(f) for f in files} == before, "the oracle changed a fixture file"
    assert [r["path"] for r in reports] == [str(f) for f in files]
    return {Path(r["path"]).relative_to(AGENT).as_posix(): r for r in reports}


def test_every_fixture_file_has_an_expectation() -> None:
    on_disk = {f.relative_to(AGENT).as_posix() for f in AGENT.glob("sessions/*/*.jsonl")}
    assert on_disk == set(SESSIONS)


@pytest.mark.parametrize(
    "rel", sorted(SESSIONS), ids=[SESSIONS[k]["scenario"] for k in sorted(SESSIONS)]
)
def test_report_matches_expected(fixture_reports: dict[str, dict[str, Any]], rel: str) -> None:
    got = fixture_reports[rel]
    want = SESSIONS[rel]
    assert "error" not in got, got.get("error")
    for key in REPORT_KEYS:
        assert got[key] == want[key], f"{want['scenario']}: {key}"
    # Files written by pi 0.73.1 itself: opening them must not migrate or rewrite anything.
    assert got["openRewrote"] is False
    assert got["pathCycle"] is False


def _relative_records(records: list[dict[str, Any]], agent: Path) -> list[dict[str, Any]]:
    return [{**r, "path": Path(r["path"]).relative_to(agent).as_posix()} for r in records]


def test_list_all_matches_expected(pi_oracle: PiOracle) -> None:
    records = _relative_records(pi_oracle.list_sessions(AGENT), AGENT)
    assert [r["path"] for r in records] == EXPECTED["listAll"]
    for record in records:
        assert record == SESSIONS[record["path"]]["list"]


def test_list_by_cwd_matches_expected(pi_oracle: PiOracle) -> None:
    for cwd, paths in EXPECTED["listByCwd"].items():
        records = _relative_records(pi_oracle.list_sessions(AGENT, cwd), AGENT)
        assert [r["path"] for r in records] == paths, cwd


def test_list_never_creates_directories(pi_oracle: PiOracle, tmp_path: Path) -> None:
    # pi's list(cwd) creates the cwd's session folder; the oracle must do that in its copy only.
    agent = tmp_path / "agent"
    shutil.copytree(AGENT, agent)
    tree_before = sorted(p.relative_to(agent) for p in agent.rglob("*"))
    assert pi_oracle.list_sessions(agent, "/no/such/project") == []
    assert len(pi_oracle.list_sessions(agent)) == len(SESSIONS)
    assert sorted(p.relative_to(agent) for p in agent.rglob("*")) == tree_before


V1_SESSION = (
    '{"type":"session","id":"legacy-1","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/p"}\n'
    '{"type":"message","timestamp":"2025-01-01T00:00:01.000Z",'
    '"message":{"role":"user","content":"hi","timestamp":1735689601000}}\n'
)


def _compact(obj: dict[str, Any]) -> str:
    """One line as pi writes it: compact separators, non-ASCII raw."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def _write_v3(path: Path, *entries: dict[str, Any]) -> Path:
    header = {
        "type": "session",
        "version": 3,
        "id": "s",
        "timestamp": "2025-01-01T00:00:00.000Z",
        "cwd": "/p",
    }
    lines = [_compact(obj) for obj in (header, *entries)]
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return path


def test_report_never_touches_originals(pi_oracle: PiOracle, tmp_path: Path) -> None:
    # Each of these makes pi 0.73.1 rewrite the file it opens: a v1 migration, a fresh header
    # written into an empty file, a fresh header over a file without a header line.
    files = {
        "v1.jsonl": V1_SESSION,
        "empty.jsonl": "",
        "headerless.jsonl": '{"type":"message","id":"a","parentId":null}\n',
    }
    paths = []
    for name, text in files.items():
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        os.utime(path, ns=(1_000_000_000_000_000_000, 1_000_000_000_000_000_000))
        paths.append(path)
    before = {p: _digest(p) for p in paths}
    reports = pi_oracle.report(paths)
    assert {p: _digest(p) for p in paths} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(files)
    assert [r["openRewrote"] for r in reports] == [True, True, True]
    v1 = reports[0]
    assert v1["header"]["version"] == 3  # migrated in the copy
    assert v1["sessionId"] == "legacy-1"
    assert v1["context"]["roles"] == ["user"]
    assert reports[1]["entryCount"] == 0


def test_report_survives_cycles_and_missing_files(pi_oracle: PiOracle, tmp_path: Path) -> None:
    # A self-parented leaf makes pi's getBranch() loop forever; the oracle must say so instead.
    cyclic = _write_v3(
        tmp_path / "cycle.jsonl",
        {
            "type": "message",
            "id": "aaaa0001",
            "parentId": "aaaa0001",
            "timestamp": "2025-01-01T00:00:01.000Z",
            "message": {"role": "user", "content": "hi", "timestamp": 1735689601000},
        },
    )
    missing = tmp_path / "missing.jsonl"
    got_cycle, got_missing = pi_oracle.report([cyclic, missing])
    assert got_cycle["pathCycle"] is True
    assert got_cycle["branchIds"] is None
    assert got_cycle["rootIds"] == ["aaaa0001"]
    assert got_missing["path"] == str(missing)
    assert "ENOENT" in got_missing["error"]
    assert not missing.exists()


def test_report_round_trips_raw_line_separators(pi_oracle: PiOracle, tmp_path: Path) -> None:
    # JSON.stringify leaves U+2028/U+2029/U+0085 raw; the Python side must not split on them.
    name = "a\u2028b\u2029c\x85d"
    path = _write_v3(
        tmp_path / "names.jsonl",
        {
            "type": "session_info",
            "id": "bbbb0001",
            "parentId": None,
            "timestamp": "2025-01-01T00:00:01.000Z",
            "name": name,
        },
    )
    (got,) = pi_oracle.report([path])
    assert got["name"] == name
