"""Shapes of session files from the wild (issue 20), read by pi 0.73.1, pi 1.6.0 and pitui.

Each file of ``tests/fixtures/wild/`` is one shape, a few lines, named after it. ``expected.json``
there holds what both pi releases report (recorded by ``tests/interop/wild.py``); the first test
checks that the installed oracles still say exactly that. Then each shape: pitui reads what pi
reads, or the test states pitui's choice and why (the spec first, then the newer pi).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from pitui.core.doctor import diagnose_file
from pitui.core.facts import session_facts
from pitui.core.manager import SessionManager
from pitui.core.session import NotASessionError, Session
from tests.interop.pi_oracle import PI_0_73, PI_1_6, PiOracle
from tests.interop.test_written_by_pitui import pitui_report
from tests.interop.wild import (
    WILD,
    _ids_in_file,
    _made_up_ids,
    _rename,
    load_expected,
    report_all,
    wild_files,
)

JsonDict = dict[str, Any]
FACTS_ORACLE = Path(__file__).with_name("facts_oracle.mjs")
VERSIONS = (PI_0_73.version, PI_1_6.version)
EXPECTED = load_expected()

# What pitui and pi are compared on (the oracle's report, see pi_oracle.PiOracle.report).
KEYS = (
    "sessionId",
    "cwd",
    "name",
    "leafId",
    "branchIds",
    "rootIds",
    "entryCount",
    "labels",
    "labelTimestamps",
    "treePreorder",
    "header",
    "context",
    "llm",
)

# Every shape of the issue, by file. pitui reads these exactly as both pi releases do.
AGREE = {
    "anthropic-image-block.jsonl": "an image block in Anthropic's shape (source.data)",
    "assistant-without-model.jsonl": "an assistant message without model",
    "assistant-without-provider.jsonl": "an assistant message without provider",
    "compaction-without-tokensbefore-or-summary.jsonl": "a compaction with neither",
    "first-kept-entry-index-v3.jsonl": "a v1 compaction field in a v3 file (not migrated)",
    "hookmessage-role-v3.jsonl": "the v2 role hookMessage in a v3 file (not migrated)",
    "keys-out-of-order.jsonl": "keys not in pi's order, type last",
    "line-separators-in-strings.jsonl": "raw U+2028/U+2029 inside strings",
    "no-trailing-newline.jsonl": "a complete last line without its newline (once quiet)",
    "parentid-is-header-id.jsonl": "a parentId equal to the header's id (a missing parent)",
    "two-headers.jsonl": "a second header line in the middle",
    "unknown-entry-type-on-path.jsonl": "an unknown entry type on the active path",
    "usage-without-totaltokens.jsonl": "a usage without totalTokens",
}
# Shapes where pitui makes a choice of its own; each has its own test below.
CHOSEN = {
    "ids-without-parentid-no-version.jsonl",
    "ids-without-parentid-v1.jsonl",
    "last-entry-without-id.jsonl",
    "duplicate-ids.jsonl",
    "line-before-header.jsonl",
    "header-without-id.jsonl",
}


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def live(pi_oracles: tuple[PiOracle, PiOracle]) -> dict[str, dict[str, JsonDict]]:
    before = {f: _digest(f) for f in wild_files()}
    out = {o.release.version: {r["file"]: r for r in report_all(o)} for o in pi_oracles}
    assert {f: _digest(f) for f in wild_files()} == before, "the oracle changed a fixture"
    return out


def _pitui(path: Path) -> JsonDict:
    """pitui's report, pitui's own made-up ids renamed like pi's (wild.stable)."""
    report = pitui_report(path)
    return dict(_rename(report, _made_up_ids(report, _ids_in_file(path))))


def test_every_shape_has_one_fixture_and_both_records() -> None:
    names = {f.name for f in wild_files()}
    assert names == set(AGREE) | CHOSEN
    assert not set(AGREE) & CHOSEN
    for version in VERSIONS:
        assert set(EXPECTED[version]) == names, version


def test_both_pi_releases_report_what_was_recorded(live: dict[str, dict[str, JsonDict]]) -> None:
    for version in VERSIONS:
        for name, want in EXPECTED[version].items():
            assert live[version][name] == want, f"pi {version}: {name}"


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("name", sorted(AGREE))
def test_pitui_reads_it_as_pi_does(
    live: dict[str, dict[str, JsonDict]], version: str, name: str
) -> None:
    pi = live[version][name]
    assert "error" not in pi, pi.get("error")
    ours = _pitui(WILD / name)
    for key in KEYS:
        assert ours[key] == pi[key], f"{AGREE[name]}, pi {version}: {key}"


def test_a_missing_trailing_newline_is_added_only_by_pi_1_6(
    live: dict[str, dict[str, JsonDict]],
) -> None:
    # pi 1.6.0 repairs the file on open; 0.73.1 reads it as it is (and would append onto the line).
    # pitui reads it as both do once the file is quiet, and repairs only when it writes (actions).
    name = "no-trailing-newline.jsonl"
    assert live[PI_0_73.version][name]["openRewrote"] is False
    assert live[PI_1_6.version][name]["openRewrote"] is True


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize(
    "name", ["ids-without-parentid-no-version.jsonl", "ids-without-parentid-v1.jsonl"]
)
def test_old_entries_with_ids_but_no_parent_are_one_chain(
    live: dict[str, dict[str, JsonDict]], version: str, name: str
) -> None:
    # Format §4.1: a v1 file gets fresh ids and one chain in file order; pi replaces the ids the
    # entries carry (a new random set on every open). pitui chains them the same way, with ids
    # from the line numbers (stable between reads): the same tree and context, other names.
    pi = live[version][name]
    assert pi["openRewrote"] is True  # pi migrates it (in the oracle's copy)
    ours = _pitui(WILD / name)
    for key in KEYS:
        assert ours[key] == pi[key], f"pi {version}: {key}"
    assert [depth for _, depth in ours["treePreorder"]] == [0, 1, 2, 3]


@pytest.mark.parametrize("version", VERSIONS)
def test_an_entry_without_id_has_one_name_everywhere(
    live: dict[str, dict[str, JsonDict]], version: str
) -> None:
    # pi's getLeafId() is undefined and getBranch() empty, yet its context is that entry's path
    # and its tree shows it under its parent: pi disagrees with itself. pitui gives the entry the
    # spec's internal id '#<line>' (§14) and uses it everywhere: leaf, branch, tree, the library.
    pi = live[version]["last-entry-without-id.jsonl"]
    assert "leafId" not in pi  # undefined
    assert pi["branchIds"] == []
    assert pi["treePreorder"] == [["a1", 0], ["a2", 1], [None, 2]]
    path = WILD / "last-entry-without-id.jsonl"
    ours = pitui_report(path)
    assert ours["context"] == pi["context"]
    assert ours["llm"] == pi["llm"]
    assert ours["treePreorder"] == [["a1", 0], ["a2", 1], ["#4", 2]]
    assert (ours["leafId"], ours["branchIds"]) == ("#4", ["a1", "a2", "#4"])
    manager = SessionManager.open(str(path))
    branch = manager.get_branch()
    assert manager.get_leaf_id() == "#4"
    assert [e.id for e in branch] == ["a1", "a2", "#4"]
    leaf = manager.get_leaf_entry()
    assert leaf is not None and leaf.id == "#4"
    assert manager.get_entry("#4") == branch[-1]


@pytest.mark.parametrize("version", VERSIONS)
def test_duplicate_ids_are_each_shown_once(
    live: dict[str, dict[str, JsonDict]], version: str
) -> None:
    # pi's tree shows the later a2 twice and loses the earlier one (spec §14: a pi bug). pitui
    # follows pi for lookups, leaf, branch and context, and shows each occurrence once, the
    # earlier one as 'a2#<line>'.
    pi = live[version]["duplicate-ids.jsonl"]
    assert pi["treePreorder"] == [["a1", 0], ["a2", 1], ["a3", 2], ["a2", 1], ["a3", 2]]
    ours = pitui_report(WILD / "duplicate-ids.jsonl")
    assert ours["treePreorder"] == [["a1", 0], ["a2#3", 1], ["a2", 1], ["a3", 2]]
    for key in ("leafId", "branchIds", "rootIds", "entryCount", "context", "llm"):
        assert ours[key] == pi[key], key


@pytest.mark.parametrize("name", ["line-before-header.jsonl", "header-without-id.jsonl"])
def test_a_file_without_a_valid_header_is_refused_and_left_alone(
    live: dict[str, dict[str, JsonDict]], name: str
) -> None:
    # pi 0.73.1 writes a fresh header over the file (its entries are lost); pi 1.6.0 refuses it.
    # pitui refuses it like 1.6.0 (spec §14) and never writes; `pitui list` shows it, marked.
    old, new = live[PI_0_73.version][name], live[PI_1_6.version][name]
    assert old["openRewrote"] is True and old["entryCount"] == 0
    assert old["sessionId"] == "<session>"
    assert new["error"] == "Error: Session file is not a valid pi session: <copy>/" + name
    path = WILD / name
    before = _digest(path)
    with pytest.raises(NotASessionError):
        Session.open(str(path), final=True)
    assert _digest(path) == before


def test_the_recorded_file_is_what_the_recorder_writes() -> None:
    # expected.json is the recorder's output (sorted keys, one-space indent): no hand edits.
    text = (WILD / "expected.json").read_text(encoding="utf-8")
    assert text == json.dumps(EXPECTED, indent=1, ensure_ascii=False, sort_keys=True) + "\n"


def _pi_spend(oracle: PiOracle, files: list[Path]) -> list[JsonDict]:
    """pi's footer sums (tests/interop/facts_oracle.mjs) over the file and the active branch."""
    proc = subprocess.run(
        [oracle.node, str(FACTS_ORACLE), *map(str, files)],
        env=dict(os.environ, PI_ORACLE_PACKAGE_DIR=str(oracle.package_dir)),
        capture_output=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    answers: list[JsonDict] = json.loads(proc.stdout)
    return answers


def test_tokens_follow_pis_rule_in_both_releases(pi_oracles: tuple[PiOracle, PiOracle]) -> None:
    # Issue 20.4: one rule, pi's (input+output+cacheRead+cacheWrite; totalTokens never read).
    files = [WILD / name for name in sorted(AGREE) if name != "no-trailing-newline.jsonl"]
    for oracle in pi_oracles:
        for path, pi in zip(files, _pi_spend(oracle, files), strict=True):
            with Session.open(str(path), final=True) as session:
                facts = session_facts(session)
            for ours, theirs in ((facts.file, pi["file"]), (facts.branch, pi["branch"])):
                assert ours.total_tokens == theirs["total"], (oracle.release.version, path.name)
                assert ours.cost == pytest.approx(theirs["cost"], abs=1e-12), path.name
    with Session.open(str(WILD / "usage-without-totaltokens.jsonl"), final=True) as session:
        assert session_facts(session).file.total_tokens == 1540  # not 0: the usage counts


def test_pi_lists_a_header_without_id_and_the_doctor_says_so(
    pi_oracles: tuple[PiOracle, PiOracle], tmp_path: Path
) -> None:
    # pi's listing checks only the first object's type: both releases list the header without id
    # (with no id), where picking it overwrites it (0.73.1) or is refused (1.6.0); a line before
    # the header keeps a file out of the list. The doctor says which, per release.
    folder = tmp_path / "agent" / "sessions" / "--home-alice-wild--"
    folder.mkdir(parents=True)
    for path in wild_files():
        shutil.copyfile(path, folder / path.name)
    for oracle in pi_oracles:
        listed = {Path(r["path"]).name: r for r in oracle.list_sessions(tmp_path / "agent")}
        assert set(listed) == {f.name for f in wild_files()} - {"line-before-header.jsonl"}
        assert "id" not in listed["header-without-id.jsonl"]  # undefined
    for name, shown in (("header-without-id.jsonl", True), ("line-before-header.jsonl", False)):
        report = diagnose_file(str(WILD / name))
        assert report.pi is not None
        texts = [verdict.reason for verdict in report.pi]
        assert [("listed by /resume" in text) for text in texts] == [shown, shown], texts
        assert [("not listed" in text) for text in texts] == [not shown, not shown], texts
