"""LiveFacts.grown keeps a session's facts equal to a count from scratch while pi appends: on
the branch, on another branch, with an orphan adopted and with a repeated id."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from pitui.core.facts import SessionFacts, session_facts
from pitui.core.live_facts import LiveFacts
from pitui.core.session import Session
from tests.conftest import fixture_by_scenario
from tests.core.sessiondata import assistant, entry, jsonl, user


def assert_equal(facts: SessionFacts, fresh: SessionFacts) -> None:
    assert facts == fresh  # every field, the branch's entries included
    assert list(facts.branch_entries) == list(fresh.branch_entries)


def grow_and_compare(path: Path, lines: list[bytes]) -> Session:
    """Append ``lines`` one at a time; after each, the grown facts equal fresh ones."""
    session = Session.open(path, final=True)
    live = LiveFacts.count(session)
    for line in lines:
        with open(path, "ab") as handle:
            handle.write(line)
        result = session.refresh()
        assert result.kind == "grew"
        live = live.grown(session, result.new)
        assert_equal(live.facts, session_facts(session))
    return session


def start(tmp_path: Path, *entries: dict[str, Any]) -> Path:
    path = tmp_path / "s.jsonl"
    path.write_bytes(jsonl(*entries))
    os.utime(path, (1_700_000_000, 1_700_000_000))
    return path


def test_growth_on_the_branch_and_on_another_branch(tmp_path: Path) -> None:
    path = start(tmp_path, user("u1", None, t=1), assistant("a1", "u1", t=2))
    session = grow_and_compare(
        path,
        [
            jsonl(user("u2", "a1", t=3), header=None),
            jsonl(assistant("a2", "u2", t=4), header=None),
            jsonl(user("u3", "a1", "elsewhere", t=5), header=None),  # a new branch: the leaf
            jsonl(assistant("a3", "u3", t=6), assistant("a4", "u2", t=7), header=None),
            jsonl(entry("session_info", "n1", "a4", t=8, name="named now"), header=None),
        ],
    )
    facts = session_facts(session)
    assert facts.branch_ends == 3 and facts.file.total_tokens == 4 * 15  # ends a2, a3, n1
    assert facts.name == "named now"


def test_an_adopted_orphan_and_a_repeated_id_are_counted_from_scratch(tmp_path: Path) -> None:
    path = start(tmp_path, user("u1", None, t=1), assistant("a2", "late", t=3))
    grow_and_compare(
        path,
        [
            jsonl(user("late", "u1", t=2), header=None),  # the orphan's parent arrives
            jsonl(assistant("a2", "late", "again", t=4), header=None),  # the same id again
        ],
    )


@pytest.mark.parametrize("scenario", ["branches", "labels", "compaction"])
def test_growth_of_fixtures_line_by_line(tmp_path: Path, scenario: str) -> None:
    data = fixture_by_scenario("pi-written", scenario).read_bytes()
    lines = data.splitlines(keepends=True)
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"".join(lines[:2]))
    grow_and_compare(path, lines[2:])
