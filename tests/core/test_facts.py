"""pitui.core.facts: one token rule (pi's) everywhere, and the facts pi's own fixtures pin."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pitui.cli.inspect import inspect_json
from pitui.core.facts import last_activity_ms, model_text, session_facts
from pitui.core.file_summary import summarise_file
from pitui.core.js import js_date_ms, parse_iso_ms
from pitui.core.session import Session
from pitui.core.session_info import SessionInfo
from pitui.core.stats import collect_stats
from tests.conftest import CORPORA, fixture_sessions
from tests.core.sessiondata import assistant, entry, jsonl, user


def _usage(inp: object, out: object, read: object, write: object, **extra: Any) -> dict[str, Any]:
    return {"input": inp, "output": out, "cacheRead": read, "cacheWrite": write,
            "cost": {"total": 0.25}, **extra}  # fmt: skip


@pytest.fixture
def odd_usages(tmp_path: Path) -> str:
    """Usages pi 0.73.1's /session sums as 62 + 15 + 7 = 84 tokens, $0.75."""
    path = tmp_path / "s.jsonl"
    path.write_bytes(
        jsonl(
            user("u1", None, t=1),
            assistant("a1", "u1", t=2, usage=_usage(40, 20, 2, 0)),  # no totalTokens
            user("u2", "a1", t=3),
            # totalTokens that disagrees with its parts: pi adds the parts
            assistant("a2", "u2", t=4, usage=_usage(10, 5, 0, 0, totalTokens=999)),
            assistant("a3", "u2", t=5, usage=_usage(3, 4, "x", None)),  # non-numbers count 0
        )
    )
    return str(path)


def test_one_token_rule_everywhere(odd_usages: str) -> None:
    with Session.open(odd_usages, final=True) as session:
        facts = session_facts(session)
        assert facts.file.total_tokens == 84 and facts.file.cost == pytest.approx(0.75)
        assert facts.branch.total_tokens == 7 + 62  # the leaf is a3, beside a2
        assert facts.other_branches.total_tokens == 15
        assert session.stats().total_tokens == 84
        report = inspect_json(session)
        assert report["stats"]["file"]["tokens"]["total"] == 84
        assert report["stats"]["branch"]["tokens"]["total"] == 69
    assert collect_stats([odd_usages], workers=1).totals.total_tokens == 84
    listed = summarise_file(odd_usages)
    assert listed.row is not None
    assert SessionInfo.from_row(odd_usages, listed.key[0], listed.row).total_tokens == 84


def test_counts_and_branch_ends(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(
        jsonl(
            user("u1", None, t=1),
            assistant("a1", "u1", t=2),
            entry("label", "l1", "a1", t=3, targetId="u1", label="start"),
            user("u2", "a1", t=4),
            user("u3", "a1", t=5),
        )
    )
    with Session.open(str(path), final=True) as session:
        facts = session_facts(session)
        assert (facts.entries, facts.roots, facts.branch_ends) == (5, 1, 3)
        assert facts.leaf is not None and facts.leaf.uid == "u3"
        assert (facts.branch.entries, facts.branch.messages) == (3, 3)
        assert facts.file.messages == 4 and facts.file.by_role == {"user": 3, "assistant": 1}
        assert facts.created_ms == parse_iso_ms("2025-01-01T00:00:00.000Z")
        assert last_activity_ms(session) == 1735689600000 + 5000  # the message's own time
        other = session_facts(session, "u2")
        assert other.leaf is not None and other.leaf.uid == "u2"
        assert session_facts(session, None).branch.entries == 0


@pytest.mark.parametrize(
    ("provider", "model", "text"),
    [
        ("anthropic", "claude-opus-4-5", "anthropic/claude-opus-4-5"),
        (None, "claude-opus-4-5", "claude-opus-4-5"),
        ("", "claude-opus-4-5", "claude-opus-4-5"),
        ("anthropic", None, "anthropic"),
        (None, None, None),
        (7, ["x"], None),
    ],
)
def test_model_text_shows_what_is_there(provider: Any, model: Any, text: str | None) -> None:
    assert model_text(provider, model) == text


@pytest.mark.parametrize("corpus", CORPORA)
def test_facts_agree_with_pi_on_its_fixtures(corpus: str) -> None:
    """Counts, ids, names, times and the branch as pi 0.73.1 / 1.6.0 reported them."""
    checked = 0
    for path, expected in fixture_sessions(corpus):
        with Session.open(str(path), final=True) as session:
            facts = session_facts(session)
            activity = last_activity_ms(session)
        assert facts.id == expected["sessionId"]
        assert facts.cwd == expected["cwd"]
        assert facts.name == expected["name"]
        assert facts.entries == expected["entryCount"]
        if "rootIds" in expected:
            assert facts.roots == len(expected["rootIds"])
            assert facts.branch.entries == len(expected["branchIds"])
            assert (facts.leaf.uid if facts.leaf else None) == expected["leafId"]
        listed = expected.get("list")
        if listed is not None:
            assert facts.file.messages == listed["messageCount"]
            assert facts.created_ms == js_date_ms(listed["created"])
            if activity is not None:  # (else pi fell back to the file's mtime)
                assert activity == js_date_ms(listed["modified"]), path
        checked += 1
    assert checked > 10
