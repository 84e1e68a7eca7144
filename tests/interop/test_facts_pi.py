"""Tokens and cost of a session: pitui's facts against pi 0.73.1's own footer sums.

pi's footer and ``/session`` add ``input + output + cacheRead + cacheWrite`` of the assistant
messages (``totalTokens`` is never read); ``pitui.core.facts`` follows that rule. On every fixture
pi 0.73.1 wrote or reads (its corpus and the legacy files) the file's and the active branch's
numbers must agree exactly.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from pitui.core.facts import session_facts, tally
from pitui.core.session import Session
from tests.conftest import FIXTURES, fixture_sessions
from tests.interop.pi_oracle import PiOracle

ORACLE_SCRIPT = Path(__file__).with_name("facts_oracle.mjs")


def _files() -> list[Path]:
    legacy = sorted((FIXTURES / "pi-legacy").glob("*.jsonl"))
    written = [path for path, _ in fixture_sessions("pi-written")]
    return [*written, *legacy]


def test_tokens_and_cost_agree_with_pi(pi_oracle: PiOracle) -> None:
    files = _files()
    proc = subprocess.run(
        [pi_oracle.node, str(ORACLE_SCRIPT), *map(str, files)],
        env=dict(os.environ, PI_ORACLE_PACKAGE_DIR=str(pi_oracle.package_dir)),
        capture_output=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    answers = json.loads(proc.stdout)
    assert len(answers) == len(files)
    spent = 0.0
    for path, pi in zip(files, answers, strict=True):
        with Session.open(str(path), final=True) as session:
            facts = session_facts(session)
            # pi 0.73.1 counts only assistant messages; these files carry no other usage
            assistants = tally(m for m in session.entries if m.role == "assistant")
        assert facts.file.total_tokens == assistants.total_tokens, path
        for ours, theirs in ((facts.file, pi["file"]), (facts.branch, pi["branch"])):
            assert ours.input_tokens == theirs["input"], path
            assert ours.output_tokens == theirs["output"], path
            assert ours.cache_read_tokens == theirs["cacheRead"], path
            assert ours.cache_write_tokens == theirs["cacheWrite"], path
            assert ours.total_tokens == theirs["total"], path
            assert ours.cost == pytest.approx(theirs["cost"], rel=1e-12, abs=1e-12), path
        spent += facts.file.total_tokens
    assert spent > 0  # the corpus has real usage: the comparison is not 0 == 0
