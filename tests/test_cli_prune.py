"""``pitui prune`` on copies of the pi-written fixtures: one branch, the bulk ``--stale`` form, the
dry run, ``--json``, the refusals (one line on stderr, exit 1, no traceback) and the undo through
``pitui restore``."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from pitui.core.session import Session
from tests.conftest import Run, fixture_by_scenario


def _copy(tmp_path: Path, scenario: str) -> Path:
    source = fixture_by_scenario("pi-written", scenario)
    target = tmp_path / source.name
    shutil.copy2(source, target)  # (file times kept: nothing looks busy)
    return target


def test_prune_one_branch_then_restore_it(tmp_path: Path, run: Run) -> None:
    path = _copy(tmp_path, "branches")
    original = path.read_bytes()
    code, out, err = run("prune", str(path), "bb71", "--dry-run")
    assert code == 0, err
    assert "would prune 2 entries (2 messages), 746 B" in out and "nothing changed" in out
    assert path.read_bytes() == original
    code, out, err = run("prune", str(path), "bb71b88a")
    assert code == 0, err
    assert out.startswith("pruned 2 entries (2 messages), 746 B from ")
    assert "pitui restore" in out
    assert len(path.read_bytes()) == len(original) - 746
    with Session.open(path) as session:
        assert session.get("bb71b88a") is None and session.get("d416a5f0") is None
    code, out, err = run("restore", str(path))
    assert code == 0, err
    assert out == f"restored {path}\n"
    assert path.read_bytes() == original


def test_prune_json(tmp_path: Path, run: Run) -> None:
    path = _copy(tmp_path, "branch-summaries")
    code, out, err = run("prune", str(path), "c09b8a92", "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["path"] == str(path) and report["dryRun"] is False
    assert report["tops"] == ["c09b8a92"]
    assert report["entryCount"] == 19 == len(report["entries"])
    assert report["messageCount"] == 14
    assert report["labels"] == {"c917bcf3": "toml-attempt-1"}
    assert report["sizeBefore"] - report["sizeAfter"] == report["bytesSaved"] == 6662
    assert Path(report["originalKept"]).is_file()
    assert os.path.getsize(path) == report["sizeAfter"]


@pytest.mark.parametrize(
    ("scenario", "argv", "message"),
    [
        ("branches", ["1f8efdbe"], "is on the active path"),
        ("branches", ["928532e7"], "--drop-labels"),
        ("branches", ["nope"], "Entry nope not found"),
        ("minimal", ["--stale", "0"], "no branch of"),
    ],
)
def test_refusals_are_one_line_and_change_nothing(
    tmp_path: Path, run: Run, scenario: str, argv: list[str], message: str
) -> None:
    path = _copy(tmp_path, scenario)
    original = path.read_bytes()
    code, out, err = run("prune", str(path), *argv)
    if scenario == "minimal":  # nothing to prune is not an error
        assert code == 0 and message in out
    else:
        assert code == 1 and message in err and err.count("\n") == 1
        assert "Traceback" not in err and out == ""
    assert path.read_bytes() == original
    assert sorted(os.listdir(tmp_path)) == [path.name]


def test_a_file_pi_is_writing_is_refused_unless_forced(tmp_path: Path, run: Run) -> None:
    path = _copy(tmp_path, "branches")
    os.utime(path)  # written just now
    code, _, err = run("prune", str(path), "bb71b88a")
    assert code == 1 and "pi may be working in it" in err and "--force" in err
    code, out, err = run("prune", str(path), "bb71b88a", "--force")
    assert code == 0 and out.startswith("pruned 2 entries"), err


def test_drop_labels_names_the_kept_labels_that_go(tmp_path: Path, run: Run) -> None:
    path = _copy(tmp_path, "labels")
    code, out, err = run("prune", str(path), "1278eefa", "--drop-labels")
    assert code == 0, err
    assert "4690ff1b (kept; set or cleared inside the branch): “skeleton-v2” → " in out
    with Session.open(path) as session:
        assert session.labels.get("4690ff1b") == "skeleton"  # the earlier label decides again


def test_stale_dry_run_lists_the_branches_then_prunes_them(tmp_path: Path, run: Run) -> None:
    path = _copy(tmp_path, "branches")
    original = path.read_bytes()
    code, out, err = run("prune", str(path), "--stale", "30", "--dry-run", "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["staleDays"] == 30 and report["dryRun"] is True
    assert [b["top"] for b in report["branches"]] == ["2792f1de", "bb71b88a"]
    assert all(b["refused"] is None for b in report["branches"])
    assert report["entryCount"] == 4 and path.read_bytes() == original
    # every branch ended within the last 100,000 days: none goes
    code, out, err = run("prune", str(path), "--stale", "100000", "--json")
    assert code == 0 and json.loads(out)["entryCount"] == 0
    code, out, err = run("prune", str(path), "--stale", "30")
    assert code == 0, err
    assert "2792f1de (message/user, line 14): 2 entries" in out
    assert "pruned 4 entries (4 messages)" in out
    with Session.open(path) as session:
        assert session.get("2792f1de") is None and session.get("bb71b88a") is None


def test_usage_errors(tmp_path: Path, run: Run) -> None:
    path = _copy(tmp_path, "branches")
    assert run("prune", str(path))[0] == 2
    assert run("prune", str(path), "bb71b88a", "--stale", "3")[0] == 2
    code, _, err = run("prune", str(path), "--stale", "soon")
    assert code == 2 and "not a number of days" in err
