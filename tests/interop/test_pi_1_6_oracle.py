"""The second oracle, pi 1.6.0, must report exactly what its own fixtures recorded.

The corpus ``pi-written-1.6.0`` was written and reported by pi 1.6.0 on node 22; here the oracle
runs its session modules on this machine's node (20), so these tests are what lets the other
interop tests trust what it says. Also: PITUI_REQUIRE_PI_ORACLE=1 fails, not skips, when either
release is unavailable.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FIXTURES, REPO, load_expected
from tests.interop.pi_oracle import PI_1_6, PiOracle

CORPUS = FIXTURES / "pi-written-1.6.0"
AGENT = CORPUS / "agent"

if not (CORPUS / "expected.json").is_file():
    pytest.skip(f"pi-written-1.6.0 fixtures not found under {FIXTURES}", allow_module_level=True)

EXPECTED: dict[str, Any] = load_expected("pi-written-1.6.0")
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
    "contextEntryIds",
    "projection",
)


def _digest(path: Path) -> tuple[str, int]:
    return hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime_ns


@pytest.fixture(scope="module")
def reports(pi_oracle_1_6: PiOracle) -> dict[str, dict[str, Any]]:
    files = sorted(AGENT.glob("sessions/*/*.jsonl"))
    before = {f: _digest(f) for f in files}
    got = pi_oracle_1_6.report(files)
    assert {f: _digest(f) for f in files} == before, "the oracle changed a fixture file"
    return {Path(r["path"]).relative_to(AGENT).as_posix(): r for r in got}


def test_the_oracle_is_pi_1_6_0(pi_oracle_1_6: PiOracle) -> None:
    info = pi_oracle_1_6.version()
    assert (info["package"], info["version"]) == (PI_1_6.package, PI_1_6.version)
    assert info["fastExports"] is True


@pytest.mark.parametrize(
    "rel", sorted(SESSIONS), ids=[SESSIONS[k]["scenario"] for k in sorted(SESSIONS)]
)
def test_report_matches_expected(reports: dict[str, dict[str, Any]], rel: str) -> None:
    got = reports[rel]
    want = SESSIONS[rel]
    assert "error" not in got, got.get("error")
    for key in REPORT_KEYS:
        assert got[key] == want[key], f"{want['scenario']}: {key}"
    assert got["openRewrote"] is False


def test_list_all_matches_expected(pi_oracle_1_6: PiOracle) -> None:
    records = pi_oracle_1_6.list_sessions(AGENT)
    relative = [{**r, "path": Path(r["path"]).relative_to(AGENT).as_posix()} for r in records]
    assert [r["path"] for r in relative] == EXPECTED["listAll"]
    for record in relative:
        assert record == SESSIONS[record["path"]]["list"]


@pytest.mark.parametrize("required", ["1", ""])
def test_a_missing_oracle_fails_when_required(tmp_path: Path, required: str) -> None:
    # No node on PATH: the fixture must fail with PITUI_REQUIRE_PI_ORACLE=1 and skip otherwise.
    test = tmp_path / "test_needs_both.py"
    test.write_text(
        textwrap.dedent(
            """
            def test_needs_both(pi_oracles):
                pass
            """
        ),
        encoding="utf-8",
    )
    (tmp_path / "conftest.py").write_text(
        "from tests.interop.conftest import pi_oracle, pi_oracle_1_6, pi_oracles  # noqa: F401\n",
        encoding="utf-8",
    )
    env = {
        "PATH": str(tmp_path),  # neither node nor npm
        "PYTHONPATH": str(REPO),
        "PITUI_REQUIRE_PI_ORACLE": required,
        "HOME": str(tmp_path),
    }
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs", str(test)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    out = proc.stdout + proc.stderr
    if required:
        assert proc.returncode == 1, out
        assert "oracle required but unavailable" in out
        assert "1 error" in out or "1 failed" in out
    else:
        assert proc.returncode == 0, out
        assert "1 skipped" in out
