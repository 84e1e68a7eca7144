"""The session header's lines at the width they get: the counts stay whole on a narrow terminal."""

from __future__ import annotations

from pitui.core.facts import SessionFacts, Stats
from pitui.ui.widgets.session_header import HeaderView, facts_line, spend_line


def spend(tokens: float, cost: float) -> Stats:
    return Stats(total_tokens=tokens, cost=cost)


def facts(branch: Stats, whole: Stats) -> SessionFacts:
    return SessionFacts(
        path="/s.jsonl",
        id="s",
        name=None,
        cwd="/code",
        parent_session=None,
        created=None,
        created_ms=None,
        entries=20,
        roots=1,
        branch_ends=5,
        leaf=None,
        branch_entries=(),
        branch=branch,
        file=whole,
    )


def view(session_facts: SessionFacts | None) -> HeaderView:
    return HeaderView(
        name=None,
        cwd="/code",
        created="2025-03-07T11:42:00.000Z",
        file_size=7066,
        modified=1768474800.0,
        entries=20,
        facts=session_facts,
        read_only=False,
        writing=False,
        follow=True,
    )


SHARED = facts(spend(11_972, 0.013), spend(30_497, 0.0289))


def test_a_wide_header_has_every_fact() -> None:
    line = facts_line(view(SHARED), 160).plain
    assert "created " in line and "modified " in line
    assert line.endswith("20 entries · 5 branch ends")
    assert spend_line(SHARED, 160).plain == (
        "this branch 11,972 tok $0.0130 · whole file 30,497 tok $0.0289"
        " · other branches 18,525 tok $0.0159"
    )


def test_a_narrow_header_drops_the_times_before_the_counts() -> None:
    line = facts_line(view(SHARED), 78).plain
    assert "modified" not in line and "created " in line
    assert line.endswith("20 entries · 5 branch ends") and len(line) <= 78
    line = facts_line(view(SHARED), 40).plain
    assert line == "6.9 KiB · 20 entries · 5 branch ends"


def test_a_narrow_spend_line_keeps_every_number() -> None:
    line = spend_line(SHARED, 78).plain
    assert line == "branch 12.0k tok $0.0130 · file 30.5k tok $0.0289 · others 18.5k tok $0.0159"


def test_no_other_branches_no_others() -> None:
    alone = facts(spend(100, 0.5), spend(100, 0.5))
    expected = "this branch 100 tok $0.5000 · whole file 100 tok $0.5000"
    assert spend_line(alone, 160).plain == expected
    assert spend_line(None, 160).plain == "counting tokens and cost…"
