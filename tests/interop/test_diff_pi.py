"""The branch diff's two paths are pi's: ``getBranch(A)`` and ``getBranch(B)`` of pi 0.73.1 and
1.6.0, split where they part.

On every branchy file pi wrote (both corpora), for pairs of branch ends and for a branch end and
an entry in the middle of another branch: the entries the two paths share are the common prefix
of pi's two branches, and each side is the rest of pi's branch, in order.
"""

from __future__ import annotations

import json
import os
import subprocess
from itertools import combinations
from pathlib import Path
from typing import Any

from pitui.core.diff import branch_diff
from pitui.core.session import EntryMeta, Session
from tests.conftest import CORPORA, fixture_sessions
from tests.interop.pi_oracle import PiOracle

ORACLE_SCRIPT = Path(__file__).with_name("branch_oracle.mjs")
PAIRS_PER_FILE = 40


def _pairs(session: Session) -> list[tuple[EntryMeta, EntryMeta]]:
    ends = [meta for meta in session.entries if not meta.children]
    pairs = list(combinations(ends, 2))[:PAIRS_PER_FILE]
    # a branch end against the middle of every other branch, and the ancestor case
    for end in ends[:5]:
        for other in ends[:5]:
            middle = session.path_to(other)
            pairs.append((end, middle[len(middle) // 2]))
    return pairs


def _ask_pi(oracle: PiOracle, requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    proc = subprocess.run(
        [oracle.node, str(ORACLE_SCRIPT)],
        input=json.dumps(requests).encode(),
        env=dict(os.environ, PI_ORACLE_PACKAGE_DIR=str(oracle.package_dir)),
        capture_output=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    answers: list[dict[str, Any]] = json.loads(proc.stdout)
    return answers


def test_the_two_sides_are_pi_branches_split_where_they_part(
    pi_oracles: tuple[PiOracle, PiOracle],
) -> None:
    for oracle, corpus in zip(pi_oracles, CORPORA, strict=True):
        files: list[tuple[Path, Session, list[tuple[EntryMeta, EntryMeta]]]] = []
        for path, _ in fixture_sessions(corpus):
            session = Session.open(str(path), final=True)
            pairs = _pairs(session)
            if len({meta.uid for meta in session.entries if not meta.children}) > 1:
                files.append((path, session, pairs))
        assert len(files) >= 5, corpus  # the corpus has branchy files to compare
        requests = [
            {"path": str(path), "ids": sorted({m.id for pair in pairs for m in pair if m.id})}
            for path, _, pairs in files
        ]
        compared = diverged = 0
        for (path, session, pairs), answer in zip(files, _ask_pi(oracle, requests), strict=True):
            branches = answer["branches"]
            for a, b in pairs:
                diff = branch_diff(session, a, b)
                pi_a, pi_b = branches[a.id], branches[b.id]
                shared = 0
                while shared < min(len(pi_a), len(pi_b)) and pi_a[shared] == pi_b[shared]:
                    shared += 1
                where = (corpus, path.name, a.id, b.id)
                assert diff.shared == shared, where
                assert diff.ancestor is None or diff.ancestor.id == pi_a[shared - 1], where
                assert [e.meta.id for e in diff.a.entries] == pi_a[shared:], where
                assert [e.meta.id for e in diff.b.entries] == pi_b[shared:], where
                compared += 1
                diverged += diff.relation == "diverged"
            session.close()
        assert compared > 100 and diverged > 20, (corpus, compared, diverged)
