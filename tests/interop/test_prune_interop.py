"""After a prune, pi reads the same leaf, active path and context as before (issue 23 §1).

pi 0.73.1's and pi 1.6.0's own SessionManager (the oracles) report each file before and after
pitui pruned it: branchy files of both fixture corpora (one branch at a time, and every stale
branch at once) and generated sessions (``gen_store.py``, many branches, compactions). pi must
report the same leaf, branch, context, model and converted LLM messages, the same name and
header; its tree must be the old one without the pruned entries (every other entry at the same
place and depth); the labels of kept entries must be unchanged; pi must not have to rewrite the
file.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pitui.core import actions, prune
from pitui.core.session import Session
from tests.conftest import CORPORA, fixture_sessions
from tests.interop.pi_oracle import PiOracle

GEN_STORE = Path(__file__).resolve().parents[3] / "shared" / "tools" / "gen_store.py"
# per fixture session, at most this many single-branch prunes (long-5000 has 60 branches)
MAX_TOPS = 4
SAME = ("sessionId", "cwd", "name", "leafId", "branchIds", "context", "llm", "header")


def _tops(session: Session) -> list[str]:
    """The starts of the branches off the active path (and the other roots), in file order."""
    active = {meta.uid for meta in session.branch()}
    tops = [meta for meta in session.roots if meta.uid not in active]
    for meta in session.entries:
        if meta.uid in active:
            tops.extend(child for child in meta.children or () if child.uid not in active)
    return [meta.uid for meta in sorted(tops, key=lambda meta: meta.line)]


def _spread(items: list[str], count: int) -> list[str]:
    if len(items) <= count:
        return items
    step = (len(items) - 1) / (count - 1)
    return [items[round(i * step)] for i in range(count)]


@dataclass(frozen=True)
class Case:
    original: Path  # a copy of the source, as it was
    pruned: Path  # a copy, pruned
    gone: frozenset[str]  # the uids pruned
    labels_dropped: bool  # a label of a kept entry was allowed to go (--drop-labels)


def _prune_copies(sources: list[Path], folder: Path) -> list[Case]:
    """Copies of each source, each pruned one way (one branch, or every stale one)."""
    cases: list[Case] = []
    for number, source in enumerate(sources):
        with Session.open(source, final=True) as session:
            tops = _tops(session)
            wanted: list[tuple[str, list[str]]] = []
            for uid in _spread(tops, MAX_TOPS):
                try:
                    prune.plan_prune(session, [uid], drop_labels=True)
                except prune.PruneRefusedError:
                    continue
                wanted.append((uid, [uid]))
            stale = prune.plan_stale(session, 0, now=time.time() + 10**9)
            if stale.plan is not None and len(stale.plan.tops) > 1:
                wanted.append(("stale", [meta.uid for meta in stale.plan.tops]))
        for name, uids in wanted:
            original = folder / f"{number}-{name}-before.jsonl"
            pruned_copy = folder / f"{number}-{name}.jsonl"
            shutil.copy2(source, original)
            shutil.copy2(source, pruned_copy)
            with Session.open(pruned_copy, final=True) as session:
                done = actions.prune(session, uids, force=True, drop_labels=True)
            cases.append(Case(original, pruned_copy, done.plan.uids, bool(done.plan.kept_labels)))
    return cases


def _assert_same_reading(
    before: dict[str, Any], after: dict[str, Any], gone: frozenset[str], label: str
) -> None:
    assert "error" not in after, after.get("error")
    assert after["openRewrote"] is False and after["pathCycle"] is False
    for key in SAME:
        assert after[key] == before[key], f"{label}: {key}"
    assert after["treePreorder"] == [row for row in before["treePreorder"] if row[0] not in gone]
    assert after["rootIds"] == [uid for uid in before["rootIds"] if uid not in gone]
    assert after["entryCount"] == before["entryCount"] - len(gone)


def _kept_labels(report: dict[str, Any], gone: frozenset[str]) -> dict[str, Any]:
    return {target: text for target, text in report["labels"].items() if target not in gone}


def _check(oracle: PiOracle, cases: list[Case]) -> int:
    """Each case read by ``oracle`` before and after; returns how many had their kept labels
    compared (those where no label of a kept entry was allowed to go)."""
    files = [str(path) for case in cases for path in (case.original, case.pruned)]
    reports = {item["path"]: item for item in oracle.report(files)}
    labels_compared = 0
    for case in cases:
        before, after = reports[str(case.original)], reports[str(case.pruned)]
        label = f"{oracle.release.label} {case.pruned.name}"
        _assert_same_reading(before, after, case.gone, label)
        if not case.labels_dropped:
            assert _kept_labels(after, case.gone) == _kept_labels(before, case.gone), label
            assert {k: v for k, v in after["labelTimestamps"].items() if k not in case.gone} == {
                k: v for k, v in before["labelTimestamps"].items() if k not in case.gone
            }
            labels_compared += 1
    return labels_compared


@pytest.fixture(scope="module")
def fixture_cases(tmp_path_factory: pytest.TempPathFactory) -> list[Case]:
    folder = tmp_path_factory.mktemp("pruned-fixtures")
    sources = [path for corpus in CORPORA for path, _ in fixture_sessions(corpus)]
    return _prune_copies(sources, folder)


@pytest.fixture(scope="module")
def generated_cases(
    tmp_path_factory: pytest.TempPathFactory,
) -> list[Case]:
    if not GEN_STORE.exists():
        pytest.skip(f"{GEN_STORE} is not here")
    agent = tmp_path_factory.mktemp("gen")
    subprocess.run(
        [sys.executable, str(GEN_STORE), str(agent), "--sessions", "6", "--entries", "160",
         "--entries-sigma", "0", "--branch-rate", "0.3", "--compactions", "1.5",
         "--named-rate", "0.5", "--seed", "23", "--jobs", "1", "-q"],
        check=True,
    )  # fmt: skip
    sources = sorted((agent / "sessions").glob("*/*.jsonl"))
    return _prune_copies(sources, tmp_path_factory.mktemp("pruned-gen"))


def test_the_cases_cover_branchy_files(
    fixture_cases: list[Case],
    generated_cases: list[Case],
) -> None:
    names = {case.pruned.name for case in fixture_cases}
    assert len(fixture_cases) >= 20 and any("stale" in name for name in names)
    assert any(case.labels_dropped for case in fixture_cases)
    assert len(generated_cases) >= 10
    assert sum(len(case.gone) for case in generated_cases) >= 100


def test_pi_reads_pruned_fixtures_as_before(
    pi_oracles: tuple[PiOracle, PiOracle], fixture_cases: list[Case]
) -> None:
    for oracle in pi_oracles:
        assert _check(oracle, fixture_cases) >= 10


def test_pi_reads_pruned_generated_sessions_as_before(
    pi_oracles: tuple[PiOracle, PiOracle],
    generated_cases: list[Case],
) -> None:
    for oracle in pi_oracles:
        assert _check(oracle, generated_cases) >= 5
