"""The branch diff (issue 23 §2): common ancestor, the two sides, files, tools and spend."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pitui.core.diff import branch_diff, common_ancestor
from pitui.core.facts import tally
from pitui.core.safejson import dumps
from pitui.core.session import EntryMeta, Session
from tests.core.sessiondata import assistant, entry, jsonl, user


def tool_call(call_id: str, name: Any, arguments: Any) -> dict[str, Any]:
    return {"type": "toolCall", "id": call_id, "name": name, "arguments": arguments}


def tool_result(
    eid: str, parent: str, call_id: str, name: str, *, error: bool = False
) -> dict[str, Any]:
    return {
        "type": "message", "id": eid, "parentId": parent, "timestamp": "2025-01-01T00:01:00.000Z",
        "message": {"role": "toolResult", "toolCallId": call_id, "toolName": name,
                    "content": [{"type": "text", "text": "done"}], "isError": error,
                    "timestamp": 1735689660000},
    }  # fmt: skip


def usage(tokens: int, cost: float) -> dict[str, Any]:
    return {
        "input": tokens, "output": 1, "cacheRead": 2, "cacheWrite": 3, "totalTokens": 999_999,
        "cost": {"total": cost},
    }  # fmt: skip


# root u1 - a1 - u2 ─┬─ a2 (edit src/x.py, bash) - r2 - r2b - u3 (tip "left")
#                    └─ a3 (write y.txt, edit src/x.py failing) - r3 - r3b - a4 (tip "right")
def branchy_bytes() -> bytes:
    """The file above (also the command line's and the screen's test file)."""
    lines = [
        user("u1", None, "start", t=1),
        assistant("a1", "u1", "hello", t=2),
        user("u2", "a1", "fix it", t=3),
        assistant(
            "a2",
            "u2",
            "",
            t=4,
            stop="toolUse",
            usage=usage(100, 0.5),
            content=[
                tool_call("c1", "edit", {"path": "src/x.py", "edits": []}),
                tool_call("c2", "bash", {"command": "pytest"}),
            ],
        ),
        tool_result("r2", "a2", "c1", "edit"),
        tool_result("r2b", "r2", "c2", "bash"),
        user("u3", "r2b", "thanks", t=7),
        assistant(
            "a3",
            "u2",
            "",
            t=8,
            stop="toolUse",
            usage=usage(200, 1.25),
            content=[
                tool_call("c3", "write", {"file_path": "y.txt", "content": "y"}),
                tool_call("c4", "edit", {"path": "src/x.py", "oldText": "a", "newText": "b"}),
            ],
        ),
        tool_result("r3", "a3", "c3", "write"),
        tool_result("r3b", "r3", "c4", "edit", error=True),
        assistant("a4", "r3b", "wrote y", t=11, usage=usage(10, 0.25)),
    ]
    return jsonl(*lines)


def branchy() -> Session:
    return Session.from_bytes(branchy_bytes())


def meta(session: Session, uid: str) -> EntryMeta:
    found = session.get(uid)
    assert found is not None
    return found


def test_two_branches_meet_at_their_common_ancestor() -> None:
    session = branchy()
    diff = branch_diff(session, meta(session, "u3"), meta(session, "a4"), home="/nonexistent")
    assert diff.relation == "diverged"
    assert diff.ancestor is not None and diff.ancestor.uid == "u2"
    assert diff.shared == 3
    assert [e.meta.uid for e in diff.a.entries] == ["a2", "r2", "r2b", "u3"]
    assert [e.meta.uid for e in diff.b.entries] == ["a3", "r3", "r3b", "a4"]
    # the entries read as the tree's rows do (a tool result shows its call)
    assert [e.text for e in diff.a.entries] == [
        "assistant: (no content)", "[edit: src/x.py]", "[bash: pytest]", "user: thanks",
    ]  # fmt: skip
    assert diff.b.entries[1].text == "[write: y.txt]"


def test_files_and_tools_of_each_side() -> None:
    session = branchy()
    diff = branch_diff(session, meta(session, "u3"), meta(session, "a4"))
    assert [t.to_json() for t in diff.a.files] == [
        {"path": "src/x.py", "edits": 1, "writes": 0, "failed": 0}
    ]
    assert [t.to_json() for t in diff.b.files] == [
        {"path": "y.txt", "edits": 0, "writes": 1, "failed": 0},
        {"path": "src/x.py", "edits": 1, "writes": 0, "failed": 1},
    ]
    assert diff.a.tools == {"edit": 1, "bash": 1}
    assert diff.b.tools == {"write": 1, "edit": 1}


def test_tokens_and_cost_per_side_follow_pi_rule_and_the_one_tally() -> None:
    session = branchy()
    diff = branch_diff(session, meta(session, "u3"), meta(session, "a4"))
    # pi's rule: input + output + cacheRead + cacheWrite, never totalTokens
    assert diff.a.stats.total_tokens == 100 + 1 + 2 + 3
    assert diff.b.stats.total_tokens == (200 + 6) + (10 + 6)
    assert diff.b.stats.cost == pytest.approx(1.5)
    assert diff.b.stats == tally(e.meta for e in diff.b.entries)
    assert diff.a.stats.messages == 4 and diff.b.stats.by_role == {"assistant": 2, "toolResult": 2}


def test_same_entry_has_two_empty_sides() -> None:
    session = branchy()
    diff = branch_diff(session, meta(session, "a2"), meta(session, "a2"))
    assert diff.relation == "same"
    assert diff.ancestor is not None and diff.ancestor.uid == "a2"
    assert diff.a.entries == diff.b.entries == ()
    assert diff.a.stats.total_tokens == 0 and diff.a.files == () and diff.a.tools == {}


def test_one_an_ancestor_of_the_other() -> None:
    session = branchy()
    down = branch_diff(session, meta(session, "a1"), meta(session, "u3"))
    assert down.relation == "ancestor"
    assert down.ancestor is not None and down.ancestor.uid == "a1"
    assert down.a.entries == ()
    assert [e.meta.uid for e in down.b.entries] == ["u2", "a2", "r2", "r2b", "u3"]
    up = branch_diff(session, meta(session, "a4"), meta(session, "u2"))
    assert up.relation == "descendant"
    assert [e.meta.uid for e in up.a.entries] == ["a3", "r3", "r3b", "a4"]
    assert up.b.entries == ()


def test_same_branch_two_points() -> None:
    session = branchy()
    diff = branch_diff(session, meta(session, "r2"), meta(session, "u3"))
    assert diff.relation == "ancestor"
    assert [e.meta.uid for e in diff.b.entries] == ["r2b", "u3"]
    assert diff.b.tools == {}  # the bash call was made before the side starts
    assert diff.b.entries[0].text == "[bash: pytest]"  # found in the shared part, one read


def test_two_roots_have_no_common_ancestor() -> None:
    session = Session.from_bytes(
        jsonl(user("p", None, "one"), assistant("q", "p"), user("x", None, "two", t=5))
    )
    diff = branch_diff(session, meta(session, "q"), meta(session, "x"))
    assert diff.relation == "unrelated"
    assert diff.ancestor is None and diff.shared == 0
    assert [e.meta.uid for e in diff.a.entries] == ["p", "q"]
    assert diff.to_json()["ancestor"] is None


def test_common_ancestor_of_plain_paths() -> None:
    session = branchy()
    u3, a4 = session.path_to(meta(session, "u3")), session.path_to(meta(session, "a4"))
    assert common_ancestor(u3, a4) == (3, "diverged")
    assert common_ancestor(u3, u3) == (len(u3), "same")
    assert common_ancestor([], []) == (0, "unrelated")


HOSTILE = [
    None, 5, -0.0, 1e308, [], ["a"], {}, {"path": 1}, "", "\x1b[31mred\x07", "\ud800", True,
]  # fmt: skip


@pytest.mark.parametrize("value", HOSTILE)
def test_hostile_tool_calls_never_break_it(value: Any) -> None:
    lines = [
        user("u1", None),
        assistant(
            "a1",
            "u1",
            "",
            stop="toolUse",
            content=[
                tool_call("c1", value, {"path": value}),
                tool_call("c2", "edit", value),
                tool_call("c3", "write", {"path": value, "file_path": value}),
                {"type": "toolCall", "id": value, "name": "edit", "arguments": {"path": "p"}},
                value,
            ],
        ),
        {
            "type": "message",
            "id": "r1",
            "parentId": "a1",
            "timestamp": "2025-01-01T00:00:09Z",
            "message": {
                "role": "toolResult",
                "toolCallId": value,
                "isError": value,
                "content": value,
            },
        },
        entry("custom", "k", "r1", customType=value, data=value),
    ]
    # (json, not orjson: a lone surrogate is written as JSON writes it, escaped)
    session = Session.from_bytes(jsonl(*(json.dumps(line).encode() for line in lines)))
    diff = branch_diff(session, meta(session, "k"), meta(session, "u1"))
    assert diff.relation == "descendant"
    assert len(diff.a.entries) == 3
    for touch in diff.a.files:
        assert isinstance(touch.path, str) and touch.path
    assert all(isinstance(name, str) for name in diff.a.tools)
    assert sum(diff.a.tools.values()) >= 3
    assert dumps(diff.to_json())  # the one JSON writer takes what it holds
