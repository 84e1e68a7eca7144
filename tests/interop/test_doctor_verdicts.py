"""The doctor's word on what pi does with a file, checked against pi's own library."""

from __future__ import annotations

from pathlib import Path

from pitui.core.doctor import diagnose_file
from pitui.core.problems import ProblemKind
from tests.core.sessiondata import assistant, entry, jsonl, user
from tests.interop.pi_oracle import PiOracle


def test_a_message_entry_without_a_message_crashes_pi_when_resumed(
    tmp_path: Path, pi_oracle: PiOracle
) -> None:
    # Issue 24.16: the doctor said pi loads a file with "message": null; pi throws building the
    # context (entry.message.role) when that entry is on the branch it resumes.
    on_branch = tmp_path / "on-branch.jsonl"
    on_branch.write_bytes(jsonl(user("u1", None), entry("message", "a1", "u1", message=None)))
    missing = tmp_path / "missing.jsonl"
    missing.write_bytes(jsonl(user("u1", None), entry("message", "a1", "u1")))
    # off the active branch: pi resumes the other branch
    elsewhere = tmp_path / "elsewhere.jsonl"
    elsewhere.write_bytes(
        jsonl(
            user("u1", None),
            entry("message", "x1", "u1", message=None),
            assistant("a1", "u1", t=3),
        )
    )
    reports = {Path(r["path"]).name: r for r in pi_oracle.report([on_branch, missing, elsewhere])}
    for path in (on_branch, missing):
        assert "error" in reports[path.name], reports[path.name]
        report = diagnose_file(str(path))
        assert report.pi is not None
        assert [verdict.outcome for verdict in report.pi] == ["crashes", "crashes"]
        assert [p.kind for p in report.problems] == [ProblemKind.NO_MESSAGE]
        assert not report.healthy
    assert "error" not in reports[elsewhere.name]
    report = diagnose_file(str(elsewhere))
    assert report.pi is not None
    assert [verdict.outcome for verdict in report.pi] == ["loads", "loads"]
    assert [p.kind for p in report.problems] == [ProblemKind.NO_MESSAGE]  # still worth fixing
