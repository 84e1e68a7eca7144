"""The tree selector model (ui-behaviour.md §3): scenarios U22–U36 and the rules behind them.

A second, deliberately naive implementation of pi's selector (:class:`PiSelector`, written from the
spec: full flatten, filter, fold skip set, visible tree, depth-first layout) is driven side by side
with :class:`TreeView` on random trees, so the lazy, chain-skipping algorithms of the real model
are checked against the plain rules.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pitui.core.edit import resume_point
from pitui.core.js import parse_iso_ms
from pitui.core.session import EntryMeta, Session
from pitui.core.tree_rows import HIDDEN, row_kind
from pitui.core.tree_shape import VisibleTree
from pitui.core.tree_text import format_tool_call, searchable_text
from pitui.core.treeview import FILTER_MODES, FilterMode, TreeView
from pitui.core.units import format_label_time
from tests.conftest import fixture_by_scenario
from tests.core.sessiondata import assistant, entry, jsonl, user

HOME = "/home/ana"


def view(data: bytes, **kwargs: Any) -> TreeView:
    kwargs.setdefault("home", HOME)
    return TreeView(Session.from_bytes(data), **kwargs)


def selected_id(tree: TreeView) -> str | None:
    meta = tree.selected
    return meta.id if meta is not None else None


def visible_ids(tree: TreeView) -> list[str | None]:
    return [tree.entry(i).id for i in range(tree.count)]


def tool_call_assistant(
    eid: str, parent: str | None, call_id: str, name: str, args: Any, t: int
) -> dict[str, Any]:
    block = {"type": "toolCall", "id": call_id, "name": name, "arguments": args}
    return assistant(eid, parent, t=t, stop="toolUse", content=[block])


def tool_result(
    eid: str, parent: str | None, call_id: str, t: int, name: str | None = "read"
) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "toolResult", "toolCallId": call_id,
                               "content": [{"type": "text", "text": "file contents"}]}  # fmt: skip
    if name is not None:
        message["toolName"] = name
    return entry("message", eid, parent, t=t, message=message)


# The tree of U25/U26/U29/U30: a shared start, branch A (holding the leaf) and branch B.
def u25(*, label_bee: bool = False) -> bytes:
    lines = [
        user("u1", None, "first message", t=1),
        assistant("a1", "u1", "response 1", t=2),
        user("u2", "a1", "second message", t=3),
        assistant("a2", "u2", "response 2", t=4),
        user("u3b", "a2", "branch B start", t=5),
        assistant("a3b", "u3b", "branch B response", t=6),
        user("u4b", "a3b", "branch B deep", t=7),
    ]
    if label_bee:  # labelled while on branch B: the label entry hangs below user-4b
        lines.append(entry("label", "lbl", "u4b", t=8, targetId="u3b", label="bee"))
    lines += [
        user("u3a", "a2", "branch A start", t=9),
        assistant("a3a", "u3a", "branch A response", t=10),
        user("u4a", "a3a", "branch A deep", t=11),
        assistant("a4a", "u4a", "branch A leaf", t=12),
    ]
    return jsonl(*lines)


# U22 --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "hidden_leaf",
    [
        entry("model_change", "m1", "u2", t=4, provider="openai", modelId="gpt-4o"),
        entry("thinking_level_change", "m1", "u2", t=4, thinkingLevel="high"),
    ],
)
def test_u22_hidden_leaf_selects_nearest_visible_ancestor(hidden_leaf: dict[str, Any]) -> None:
    data = jsonl(
        user("u1", None, "one", t=1),
        assistant("a1", "u1", "two", t=2),
        user("u2", "a1", "three", t=3),
        user("u3", "a1", "four", t=5),
        hidden_leaf,
    )
    tree = view(data)
    assert tree.leaf is not None and tree.leaf.id == "m1"
    assert selected_id(tree) == "u2"


# U23, U24 ---------------------------------------------------------------------------------------


def u23() -> bytes:
    return jsonl(
        user("u1", None, "one", t=1),
        assistant("a1", "u1", "two", t=2),
        user("u3", "a1", "other", t=5),
        user("u2", "a1", "three", t=3),
        assistant("a2", "u2", "four", t=4),
    )


def test_u23_selection_follows_filters() -> None:
    tree = view(u23())
    assert selected_id(tree) == "a2"
    tree.toggle_filter("user-only")
    assert selected_id(tree) == "u2"
    tree.set_filter("default")
    assert selected_id(tree) == "u2"


def test_u24_empty_filter_keeps_the_remembered_selection() -> None:
    tree = view(u23())
    assert selected_id(tree) == "a2"
    tree.toggle_filter("labeled-only")
    assert tree.count == 0 and tree.selected is None and tree.selected_index == -1
    assert tree.render_plain(12) == ["  No entries found", "  (0/0) [labeled]"]
    tree.set_filter("default")
    assert selected_id(tree) == "a2"
    tree.toggle_filter("labeled-only")
    tree.toggle_filter("labeled-only")
    assert tree.filter_mode == "default" and selected_id(tree) == "a2"
    tree.toggle_filter("labeled-only")
    tree.set_filter("default")
    assert selected_id(tree) == "a2"


# U25–U29: folding and segment jumps ---------------------------------------------------------------


def test_u25_fold_and_branch_navigation() -> None:
    tree = view(u25())
    assert selected_id(tree) == "a4a"
    tree.fold_or_up()
    assert selected_id(tree) == "u3a"
    tree.fold_or_up()
    assert tree.folded_uids == {"u3a"} and selected_id(tree) == "u3a"
    tree.move_down()
    assert selected_id(tree) == "u3b"
    tree.move_up()
    assert selected_id(tree) == "u3a"
    tree.unfold_or_down()
    assert tree.folded_uids == set() and selected_id(tree) == "u3a"
    tree.move_down()
    assert selected_id(tree) == "a3a"
    tree.fold_or_up()
    assert selected_id(tree) == "u3a"
    tree.unfold_or_down()
    assert selected_id(tree) == "a4a"


def test_u26_folding_the_root_and_jumping_down() -> None:
    tree = view(u25())
    tree.fold_or_up()
    tree.fold_or_up()
    assert selected_id(tree) == "u3a" and tree.is_folded(tree.selected_index)
    tree.fold_or_up()
    assert selected_id(tree) == "u1"
    tree.fold_or_up()
    assert visible_ids(tree) == ["u1"]
    tree.move_down()
    assert selected_id(tree) == "u1"
    tree.unfold_or_down()
    assert tree.count > 1 and selected_id(tree) == "u1"
    tree.unfold_or_down()
    assert selected_id(tree) == "u3a" and tree.is_folded(tree.selected_index)
    tree.move_down()
    assert selected_id(tree) == "u3b"

    fresh = view(u25())
    while selected_id(fresh) != "u3b":
        fresh.move_down()
    fresh.unfold_or_down()
    assert selected_id(fresh) == "u4b"
    fresh.fold_or_up()
    assert selected_id(fresh) == "u3b"
    fresh.fold_or_up()
    assert fresh.folded_uids == {"u3b"}
    fresh.fold_or_up()
    assert selected_id(fresh) == "u1"


def test_u27_two_roots() -> None:
    data = jsonl(
        user("u1", None, "root one", t=1),
        user("u2", None, "root two", t=3),
        assistant("a2", "u2", "reply two", t=4),
        assistant("a1", "u1", "reply one", t=2),
    )
    tree = view(data)
    assert visible_ids(tree) == ["u1", "a1", "u2", "a2"] and selected_id(tree) == "a1"
    tree.fold_or_up()
    assert selected_id(tree) == "u1"
    tree.fold_or_up()
    assert visible_ids(tree) == ["u1", "u2", "a2"]
    tree.move_down()
    assert selected_id(tree) == "u2"
    tree.unfold_or_down()
    assert selected_id(tree) == "a2"
    tree.fold_or_up()
    assert selected_id(tree) == "u2"
    tree.fold_or_up()
    assert tree.folded_uids == {"u1", "u2"}
    tree.fold_or_up()
    assert selected_id(tree) == "u2"


def test_u28_folding_hides_descendants_behind_hidden_entries() -> None:
    data = jsonl(
        user("u1", None, "go", t=1),
        tool_call_assistant("a1", "u1", "call-1", "ls", {}, t=2),
        user("u2", "a1", "again", t=3),
        assistant("a2", "u2", "done", t=4),
    )
    tree = view(data)
    assert visible_ids(tree) == ["u1", "u2", "a2"]
    tree.fold_or_up()
    assert selected_id(tree) == "u1"
    tree.fold_or_up()
    assert visible_ids(tree) == ["u1"]
    tree.move_down()
    assert selected_id(tree) == "u1"


def test_u29_search_and_filter_changes_clear_folds() -> None:
    tree = view(u25())
    tree.fold_or_up()
    tree.fold_or_up()
    assert tree.folded_uids == {"u3a"}
    assert tree.type_text("b")
    assert tree.folded_uids == set()
    assert tree.clear_query() is True
    assert tree.folded_uids == set() and not tree.is_folded(tree.index_of("u3a") or 0)
    changes: list[Callable[[], None]] = [
        lambda: tree.toggle_filter("user-only"),
        lambda: tree.set_filter("default"),
    ]
    for change in changes:
        while selected_id(tree) != "u3a":
            tree.move_up()
        tree.fold_or_up()
        assert tree.folded_uids == {"u3a"}
        change()
        assert tree.folded_uids == set()


# U30, U31: rows exactly as printed ----------------------------------------------------------------


def test_u30_rows_active_branch_first() -> None:
    tree = view(u25(label_bee=True))
    assert tree.render_plain(12) == [
        "  • user: first message",
        "  • assistant: response 1",
        "  • user: second message",
        "  • assistant: response 2",
        "  ├⊟ • user: branch A start",
        "  │     • assistant: branch A response",
        "  │     • user: branch A deep",
        "› │     • assistant: branch A leaf",
        "  └⊟ [bee] user: branch B start",
        "        assistant: branch B response",
        "        user: branch B deep",
        "  (8/11)",
    ]


def test_u30_leaf_on_branch_b() -> None:
    tree = view(u25(label_bee=True), leaf="u4b")
    assert tree.render_plain(12) == [
        "  • user: first message",
        "  • assistant: response 1",
        "  • user: second message",
        "  • assistant: response 2",
        "  ├⊟ • [bee] user: branch B start",
        "  │     • assistant: branch B response",
        "› │     • user: branch B deep",
        "  └⊟ user: branch A start",
        "        assistant: branch A response",
        "        user: branch A deep",
        "        assistant: branch A leaf",
        "  (7/11)",
    ]


def u31() -> bytes:
    return jsonl(
        user("u1", None, "first root", t=1),
        tool_call_assistant(
            "a1", "u1", "call-1", "read", {"path": f"{HOME}/proj/a.ts", "offset": 5, "limit": 10}, 2
        ),
        tool_result("t1", "a1", "call-1", t=3),
        assistant("a2", "t1", "line1\nline2\tend", t=4),
        entry(
            "compaction", "c1", "a2", t=5, summary="sum", firstKeptEntryId="a2", tokensBefore=12499
        ),
        entry("model_change", "m1", "c1", t=6, provider="openai", modelId="gpt-4o"),
        user("u2", None, "second root", t=7),
        assistant("a3", "u2", "reply two", t=8),
        user("u3", "m1", "after compaction", t=9),
    )


def test_u31_row_texts_two_roots() -> None:
    tree = view(u31())
    assert tree.render_plain(12) == [
        "  • user: first root",
        "     • [read: ~/proj/a.ts:5-14]",
        "     • assistant: line1 line2 end",
        "     • [compaction: 12k tokens]",
        "›    • user: after compaction",
        "  user: second root",
        "     assistant: reply two",
        "  (5/7)",
    ]
    tree.toggle_filter("all")
    lines = tree.render_plain(12)
    assert "     • [model: gpt-4o]" in lines
    assert lines[-1] == "  (6/8) [all]"
    assert not any("a1" in line for line in lines)  # still no tool-call-only assistant row
    tree.set_filter("default")
    tree.toggle_filter("no-tools")
    assert not any("[read:" in line for line in tree.render_plain(12))
    assert tree.count == 6


# U32 --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tokens", "shown"),
    [(12500, "13"), (499, "0"), (12499, "12"), (1500, "2"), (2500, "3"), (0, "0"), (None, "0")],
)
def test_u32_compaction_tokens_round_half_up(tokens: int | None, shown: str) -> None:
    data = jsonl(
        user("u1", None, "x", t=1),
        entry(
            "compaction", "c1", "u1", t=2, summary="s", firstKeptEntryId="u1", tokensBefore=tokens
        ),
    )
    tree = view(data)
    assert tree.row(1).plain() == f"› • [compaction: {shown}k tokens]"


# U33, U36 ---------------------------------------------------------------------------------------


def test_u33_substring_search_and_escape() -> None:
    tree = view(jsonl(user("u1", None, "hello", t=1), assistant("a1", "u1", "hi", t=2)))
    assert tree.type_text("h") and tree.type_text("i")
    assert tree.query == "hi" and visible_ids(tree) == ["a1"]
    assert tree.clear_query() is True
    assert tree.query == "" and visible_ids(tree) == ["u1", "a1"]
    assert tree.clear_query() is False  # a second escape closes the selector


def test_u36_up_wraps_to_the_last_row() -> None:
    tree = view(u25())
    tree.select_index(0)
    tree.move_up()
    assert tree.selected_index == tree.count - 1
    tree.move_down()
    assert tree.selected_index == 0


# U35 and §3.13 rule 3 -----------------------------------------------------------------------------


def test_u35_resume_leaf_rule() -> None:
    data = jsonl(
        user("u1", None, "start", t=1),
        assistant("a1", "u1", "answer", t=2),
        user("u2", "a1", "approach B", t=3),
        entry(
            "custom_message",
            "cm",
            "u2",
            t=4,
            customType="note",
            content=[
                {"type": "text", "text": "a"},
                {"type": "image"},
                {"type": "text", "text": "b"},
            ],
            display=True,
        ),
        entry("model_change", "m1", "cm", t=5, provider="p", modelId="m"),
    )
    session = Session.from_bytes(data)
    get = session.by_uid.__getitem__
    assert resume_leaf_for(session, get("a1")) == ("a1", None)
    assert resume_leaf_for(session, get("u2")) == ("a1", "approach B")
    assert resume_leaf_for(session, get("u1")) == (None, "start")
    assert resume_leaf_for(session, get("cm")) == ("u2", "ab")
    assert resume_leaf_for(session, get("m1")) == ("m1", None)


# §3.5, §3.6 row composition and texts -------------------------------------------------------------


def texts_of(*entries: dict[str, Any], mode: FilterMode = "all") -> dict[str, str]:
    tree = view(jsonl(user("root", None, "root", t=0), *entries), filter_mode=mode)
    out = {}
    for index in range(tree.count):
        meta = tree.entry(index)
        out[meta.id or meta.uid] = "".join(part.text for part in tree.entry_text(meta))
    return out


def test_text_per_entry_type() -> None:
    long_error = "E" * 100
    got = texts_of(
        entry("message", "bash", "root", t=1,
              message={"role": "bashExecution", "command": "ls\n-la\t", "output": ""}),
        entry("message", "hook", "root", t=2, message={"role": "custom", "content": "x"}),
        entry("custom_message", "cm", "root", t=3, customType="note", content="a\nb" + "c" * 300),
        entry("branch_summary", "bs", "root", t=4, fromId="root", summary=" tried\tX "),
        entry("thinking_level_change", "th", "root", t=5, thinkingLevel="high"),
        entry("custom", "cu", "root", t=6, customType="state", data={}),
        entry("label", "l1", "root", t=7, targetId="root", label=""),
        entry("label", "l2", "root", t=8, targetId="root"),
        entry("label", "l3", "root", t=9, targetId="root", label=None),
        entry("session_info", "si", "root", t=10, name="My name"),
        entry("session_info", "si2", "root", t=11),
        entry("mystery_type", "mt", "root", t=12),
        assistant("ab", "root", t=13, stop="aborted", content=[]),
        {**assistant("er", "root", t=14, stop="error", content=[]),
         "message": {"role": "assistant", "content": [], "stopReason": "error",
                     "errorMessage": "bad\n" + long_error}},
        assistant("len", "root", t=15, stop="length", content=[]),
        tool_result("tr1", "root", "nowhere", t=16, name="grep"),
        tool_result("tr2", "root", "nowhere", t=17, name=None),
    )  # fmt: skip
    assert got["bash"] == "[bash]: ls -la"
    assert got["hook"] == "[custom]"
    assert got["cm"] == "[note]: a b" + "c" * 300  # custom messages are not cut to 200
    assert got["bs"] == "[branch summary]: tried X"
    assert got["th"] == "[thinking: high]"
    assert got["cu"] == "[custom: state]"
    assert got["l1"] == "[label: ]"
    assert got["l2"] == "[label: (cleared)]" and got["l3"] == "[label: (cleared)]"
    assert got["si"] == "[title: My name]"
    assert got["si2"] == "[title: empty]"
    assert got["mt"] == "[mystery_type]"
    assert got["ab"] == "assistant: (aborted)"
    assert got["er"] == "assistant: " + ("bad " + long_error)[:80]
    assert got["len"] == "assistant: (no content)"
    assert got["tr1"] == "[grep]" and got["tr2"] == "[tool]"


def test_text_parts_carry_pi_colours() -> None:
    tree = view(jsonl(
        user("u1", None, "hi", t=1),
        entry("session_info", "si", "u1", t=2),
        entry("compaction", "c1", "u1", t=3, summary="s", firstKeptEntryId="u1", tokensBefore=1),
    ), filter_mode="all")  # fmt: skip
    parts = {tree.entry(i).id: tree.entry_text(tree.entry(i)) for i in range(tree.count)}
    assert [(p.text, p.role) for p in parts["u1"]] == [("user: ", "accent"), ("hi", "")]
    assert [(p.text, p.italic) for p in parts["si"]] == [
        ("[title: ", False),
        ("empty", True),
        ("]", False),
    ]
    assert parts["c1"][0].role == "borderAccent"


def test_user_text_cut_to_200_before_normalizing() -> None:
    text = "\n" * 10 + "x" * 300
    got = texts_of(user("u", "root", text, t=1))
    assert got["u"] == "user: " + "x" * 190
    blocks = [
        {"type": "text", "text": "a" * 150},
        {"type": "image"},
        {"type": "text", "text": "b" * 100},
    ]
    got = texts_of(entry("message", "m", "root", t=1, message={"role": "user", "content": blocks}))
    assert got["m"] == "user: " + "a" * 150 + "b" * 50
    emoji = "😀" * 150  # JavaScript counts UTF-16 units: 100 emoji fill 200 units
    assert texts_of(user("e", "root", emoji, t=1))["e"] == "user: " + "😀" * 100


def test_control_characters_become_spaces() -> None:
    tree = view(jsonl(user("u1", None, "a\x1b[31mb\x07c\x9bd\x7fe", t=1),
                      entry("label", "l", "u1", t=2, targetId="u1", label="x\x1by")))  # fmt: skip
    row = tree.row(0)
    assert row.label == "x y"
    assert row.plain() == "› • [x y] user: a [31mb c d e"


@pytest.mark.parametrize(
    ("name", "args", "shown"),
    [
        ("read", {"path": f"{HOME}/a.ts"}, "[read: ~/a.ts]"),
        ("read", {"file_path": "/etc/x", "offset": 5}, "[read: /etc/x:5]"),
        ("read", {"path": "x", "limit": 10}, "[read: x:1-10]"),
        ("read", {"path": "x", "offset": 3, "limit": 1}, "[read: x:3-3]"),
        ("read", {"path": f"{HOME}bel/x"}, f"[read: {HOME}bel/x]"),  # only whole components
        ("write", {"path": f"{HOME}/w"}, "[write: ~/w]"),
        ("edit", {"file_path": "e.py"}, "[edit: e.py]"),
        ("bash", {"command": " ls\n-la "}, "[bash: ls -la]"),
        ("bash", {"command": "x" * 51}, "[bash: " + "x" * 50 + "...]"),
        ("grep", {"pattern": "TODO"}, "[grep: /TODO/ in .]"),
        ("grep", {"pattern": "a", "path": f"{HOME}/src"}, "[grep: /a/ in ~/src]"),
        ("find", {"pattern": "*.py", "path": "src"}, "[find: *.py in src]"),
        ("ls", {}, "[ls: .]"),
        ("web", {"q": "x", "n": 1.0}, '[web: {"q":"x","n":1}]'),
        ("web", {"query": "y" * 40}, '[web: {"query":"' + "y" * 30 + "...]"),
    ],
)
def test_formatted_tool_calls(name: str, args: dict[str, Any], shown: str) -> None:
    assert format_tool_call(name, args, HOME) == shown


def test_tool_result_finds_its_call_anywhere_in_the_file() -> None:
    data = jsonl(
        user("u1", None, "go", t=1),
        tool_call_assistant("a1", "u1", "c-1", "bash", {"command": "make"}, t=2),
        user("u2", None, "other root", t=3),
        tool_result("t1", "u2", "c-1", t=4),  # its call lives in another root
    )
    tree = view(data, filter_mode="all")
    row = tree.row(tree.index_of("t1") or 0)
    assert row.parts[0].text == "[bash: make]" and row.parts[0].role == "muted"


def test_label_time_format() -> None:
    now = datetime(2025, 6, 15, 12, 0).astimezone()
    local = now.tzinfo
    assert local is not None

    def iso(year: int, month: int, day: int, hour: int, minute: int) -> str:
        return datetime(year, month, day, hour, minute, tzinfo=local).isoformat()

    def label_time(text: str) -> str | None:
        return format_label_time(parse_iso_ms(text), now)

    assert label_time(iso(2025, 6, 15, 9, 5)) == "09:05"
    assert label_time(iso(2025, 1, 2, 23, 59)) == "1/2 23:59"
    assert label_time(iso(2024, 12, 31, 0, 0)) == "24/12/31 00:00"
    assert label_time("not a date") is None


def test_label_times_in_rows_and_status() -> None:
    stamp = datetime(2025, 3, 4, 10, 30).astimezone()
    label = entry("label", "l", "u1", t=2, targetId="u1", label="mark")
    label["timestamp"] = stamp.isoformat()
    tree = view(jsonl(user("u1", None, "hi", t=1), label), now=lambda: stamp)
    assert tree.row(0).plain() == "› • [mark] user: hi"
    tree.toggle_label_times()
    assert tree.row(0).plain() == "› • [mark] 10:30 user: hi"
    assert tree.status_text() == "(1/1) [+label time]"


# §3.7, §3.8 filters -------------------------------------------------------------------------------


def filters_data() -> bytes:
    return jsonl(
        entry("message", "sys", None, t=0, message={"role": "system", "content": "sys prompt"}),
        user("u1", "sys", "hi", t=1),
        tool_call_assistant("tc", "u1", "c1", "ls", {}, t=2),
        tool_result("tr", "tc", "c1", t=3),
        entry("message", "bx", "tr", t=4, message={"role": "bashExecution", "command": "ls"}),
        entry("usage", "us", "bx", t=5, usage={"input": 1}),
        entry("context_edit", "ce", "us", t=6, targetId="u1"),
        entry("weird", "wd", "ce", t=7),
        entry("custom_message", "cm", "wd", t=8, customType="n", content="note"),
        entry("label", "lb", "cm", t=9, targetId="tc", label="calls"),
        assistant("a1", "lb", "done", t=10),
        entry("label", "lb2", "a1", t=11, targetId="lb", label="meta"),
    )


@pytest.mark.parametrize(
    ("mode", "shown"),
    [
        ("default", ["u1", "tr", "bx", "cm", "a1"]),
        ("no-tools", ["u1", "bx", "cm", "a1"]),
        ("user-only", ["u1"]),
        ("labeled-only", ["lb"]),  # tc has a label but is a tool-call-only assistant (§3.7)
        ("all", ["sys", "u1", "tr", "bx", "us", "ce", "wd", "cm", "lb", "a1", "lb2"]),
    ],
)
def test_filter_modes(mode: FilterMode, shown: list[str]) -> None:
    assert visible_ids(view(filters_data(), filter_mode=mode)) == shown


def test_cycle_filters() -> None:
    tree = view(filters_data())
    seen = []
    for _ in range(5):
        tree.cycle_filter(1)
        seen.append(tree.filter_mode)
    assert seen == [*FILTER_MODES[1:], "default"]
    tree.cycle_filter(-1)
    assert tree.filter_mode == "all"
    assert tree.status_text().endswith(" [all]")


def test_leaf_assistant_without_text_is_shown() -> None:
    data = jsonl(user("u1", None, "go", t=1), tool_call_assistant("a1", "u1", "c", "ls", {}, t=2))
    assert visible_ids(view(data)) == ["u1", "a1"]
    assert visible_ids(view(data, leaf="u1")) == ["u1"]


def test_fast_kind_agrees_with_entry_properties() -> None:
    quiet = {"stop", "toolUse", "", None}
    for corpus in ("pi-written", "pi-written-1.6.0"):
        for scenario in ("compaction", "stop-reasons", "real-tools", "branches"):
            session = Session.open(fixture_by_scenario(corpus, scenario))
            for meta in session.entries:
                if meta.role == "assistant":
                    hidden = not meta.has_text and meta.stop_reason in quiet
                    assert (row_kind(meta) == HIDDEN) == hidden, meta


# §3.10 search -------------------------------------------------------------------------------------


def test_search_rules() -> None:
    long = "z" * 250 + "needle"
    data = jsonl(
        user("u1", None, "Hello World", t=1),
        assistant("a1", "u1", long, t=2),
        entry("compaction", "c1", "a1", t=3, summary="secret summary", firstKeptEntryId="a1",
              tokensBefore=10),
        entry("branch_summary", "b1", "c1", t=4, fromId="a1", summary="tried Redis"),
        entry("label", "l1", "b1", t=5, targetId="u1", label="Milestone"),
    )  # fmt: skip
    tree = view(data)
    tree.set_query("WORLD hello")
    assert visible_ids(tree) == ["u1"]
    tree.set_query("world nope")
    assert visible_ids(tree) == []
    tree.set_query("milestone")  # the label is searched
    assert visible_ids(tree) == ["u1"]
    tree.set_query("needle")  # only the first 200 characters of a message
    assert visible_ids(tree) == []
    tree.set_query("secret")  # a compaction's summary is not searched
    assert visible_ids(tree) == []
    tree.set_query("compaction")
    assert visible_ids(tree) == ["c1"]
    tree.set_query("redis")
    assert visible_ids(tree) == ["b1"]
    tree.set_query("label")  # label entries are hidden by the default filter
    assert visible_ids(tree) == []
    tree.set_filter("all")
    assert visible_ids(tree) == ["l1"]
    assert tree.type_text("\x1b") is False and tree.query == "label"
    assert tree.backspace() and tree.query == "labe"


def test_searchable_text_shapes() -> None:
    assert (
        searchable_text({"type": "message", "message": {"role": "user", "content": ""}}) == "user"
    )
    assert searchable_text({"type": "session_info"}) == "title"
    assert searchable_text({"type": "model_change", "modelId": "m"}) == "model m"
    assert searchable_text({"type": "custom", "customType": "c"}) == "custom c"
    assert searchable_text({"type": "label"}) == "label "
    cm = {"type": "custom_message", "customType": "k", "content": "x" * 300}
    assert searchable_text(cm) == "k " + "x" * 300


def test_search_texts_from_a_worker_match_synchronous_search() -> None:
    session = Session.open(fixture_by_scenario("pi-written", "long-5000"))
    synchronous = TreeView(session)
    worker = TreeView(session)
    index = worker.compute_search_texts()
    assert index.covers == len(session.entries)
    worker.set_search_texts(index)
    assert worker.search_ready and not synchronous.search_ready
    reference = PiSelector(session)
    for query in ("t1", "assistant", "user t2", "zzzz", "e"):
        synchronous.set_query(query)
        worker.set_query(query)
        reference.set_query(query)
        assert visible_ids(worker) == visible_ids(synchronous)
        assert [worker.entry(i).uid for i in range(worker.count)] == reference.visible()


def test_typing_narrows_and_matches_a_fresh_search() -> None:
    session = Session.open(fixture_by_scenario("pi-written", "long-5000"))
    typed = TreeView(session)
    for char in "user 1":
        typed.type_text(char)
        fresh = TreeView(session)
        fresh.set_query(typed.query)
        assert visible_ids(typed) == visible_ids(fresh)


# selection, paging -----------------------------------------------------------------------------


def test_page_moves_clamp_and_window_centres_the_selection() -> None:
    session = Session.open(fixture_by_scenario("pi-written", "long-5000"))
    tree = TreeView(session)
    last = tree.count - 1
    tree.select_index(last)
    assert tree.window_start(12) == tree.count - 12
    tree.page_up(12)
    assert tree.selected_index == last - 12
    assert tree.window_start(12) == last - 12 - 6
    tree.page_down(100)
    assert tree.selected_index == last
    tree.select_index(3)
    tree.page_up(12)
    assert tree.selected_index == 0 and tree.window_start(12) == 0
    assert tree.select_uid(session.entries[0].uid) is False  # model_change: hidden, no ancestor
    assert tree.select_uid(session.entries[10].uid) is True


def test_initial_selection_argument() -> None:
    tree = view(u25(), selected="a3b")
    assert selected_id(tree) == "a3b"
    tree = view(u25(), selected="no-such-id")
    assert selected_id(tree) == "u4b"  # pi: the last row when nothing fits


def test_set_leaf_reorders_and_keeps_selection() -> None:
    tree = view(u25())
    tree.select_uid("u2")
    tree.set_leaf("u4b")
    assert visible_ids(tree)[4] == "u3b" and selected_id(tree) == "u2"
    assert [tree.is_active(i) for i in range(tree.count)].count(True) == 7
    tree.set_leaf(None)
    assert not any(tree.is_active(i) for i in range(tree.count))


def test_rebuild_after_the_file_grew(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(u25())
    session = Session.open(path, final=True)
    tree = TreeView(session)
    tree.set_search_texts(tree.compute_search_texts())
    tree.select_uid("u3b")
    with path.open("ab") as handle:
        handle.write(orjson.dumps(entry("label", "new", "a4a", t=13, targetId="u3b", label="x")))
        handle.write(b"\n")
        handle.write(orjson.dumps(user("u5", "new", "after label", t=14)) + b"\n")
    assert session.refresh().kind == "grew"
    tree.set_leaf(session.leaf)
    assert selected_id(tree) == "u3b" and tree.row(tree.selected_index).label == "x"
    tree.set_query("after")
    assert visible_ids(tree) == ["u5"]
    tree.set_query("x")  # the new label is searchable
    assert "u3b" in visible_ids(tree)


def test_hostile_fixture_rows_hold_no_control_characters() -> None:
    for corpus in ("pi-written", "pi-written-1.6.0"):
        session = Session.open(fixture_by_scenario(corpus, "terminal-hostile"))
        tree = TreeView(session, filter_mode="all")
        tree.toggle_label_times()
        for line in tree.render_plain():
            assert not any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in line), line


@pytest.mark.parametrize("corpus", ["pi-written", "pi-written-1.6.0"])
@pytest.mark.parametrize("scenario", ["branches", "labels", "compaction", "long-5000"])
def test_fixture_trees_show_every_entry_once_in_all(corpus: str, scenario: str) -> None:
    session = Session.open(fixture_by_scenario(corpus, scenario))
    tree = TreeView(session, filter_mode="all")
    expected = {m.uid for m in session.entries if row_kind(m) != HIDDEN or m is session.leaf}
    shown = [tree.entry(i).uid for i in range(tree.count)]
    assert len(shown) == len(set(shown)) and set(shown) == expected
    assert PiSelector(session, mode="all").visible() == shown
    for mode in FILTER_MODES:
        tree.set_filter(mode)
        reference = PiSelector(session, mode=mode)
        assert [tree.entry(i).uid for i in range(tree.count)] == reference.visible()
        assert [tree.prefix(i) for i in range(tree.count)] == reference.prefixes()


def test_compaction_fixture_token_rows() -> None:
    session = Session.open(fixture_by_scenario("pi-written", "compaction"))
    tree = TreeView(session)
    for index in range(tree.count):
        meta = tree.entry(index)
        if meta.type == "compaction":
            before = session.raw(meta)["tokensBefore"]
            expected = int(before / 1000 + 0.5)
            assert tree.entry_text(meta)[0].text == f"[compaction: {expected}k tokens]"


# deep chains: no recursion, and still fast ---------------------------------------------------


def chain_data(length: int, *, branch_every: int = 0) -> bytes:
    lines: list[dict[str, Any]] = []
    parent: str | None = None
    for i in range(length):
        eid = f"e{i}"
        lines.append(
            user(eid, parent, f"m{i}", t=i) if i % 2 == 0 else assistant(eid, parent, f"r{i}", t=i)
        )
        if branch_every and i % branch_every == 0 and parent is not None:
            lines.append(user(f"s{i}", parent, "side", t=i))
        parent = eid
    lines.append(lines.pop())  # keep the chain's end as the file's last line (the leaf)
    return jsonl(*lines)


def test_deep_chain_has_no_recursion_and_flat_prefixes() -> None:
    tree = view(chain_data(5000))
    assert tree.count == 5000 and tree.selected_index == 4999
    assert all(tree.prefix(i) == "" for i in (0, 2500, 4999))
    tree.fold_or_up()
    assert tree.selected_index == 0
    tree.fold_or_up()
    assert tree.count == 1
    tree.unfold_or_down()
    tree.unfold_or_down()
    assert tree.selected_index == 4999
    tree.set_filter("user-only")
    assert tree.count == 2500 and tree.selected.id == "e4998"  # type: ignore[union-attr]


def test_deeply_nested_branches() -> None:
    tree = view(chain_data(1200, branch_every=1))  # every entry branches: 600 levels of indent
    reference = PiSelector(tree.session)
    assert [tree.entry(i).uid for i in range(tree.count)] == reference.visible()
    assert [tree.prefix(i) for i in range(tree.count)] == reference.prefixes()
    tree.fold_or_up()
    reference.fold_or_up()
    assert tree.selected_uid == reference.selected_uid()


def test_large_session_speed_smoke() -> None:
    tree = view(chain_data(20_000, branch_every=500))
    for mode in FILTER_MODES:
        start = time.perf_counter()
        tree.set_filter(mode)
        for index in range(tree.window_start(40), min(tree.count, tree.window_start(40) + 40)):
            tree.row(index)
        assert time.perf_counter() - start < 1.0  # generous: CI machines vary


# a naive pi tree selector, straight from the spec, to compare with --------------------------------

QUIET = {"stop", "toolUse", "", None}
SETTINGS = {"label", "custom", "model_change", "thinking_level_change", "session_info"}
KNOWN = SETTINGS | {"message", "compaction", "branch_summary", "custom_message"}


class PiSelector:
    """pi's TreeList in the plainest form: every change recomputes everything."""

    def __init__(self, session: Session, *, mode: FilterMode = "default",
                 leaf: EntryMeta | str | None = "default") -> None:  # fmt: skip
        self.session = session
        chosen = session.leaf if leaf == "default" else leaf
        assert not isinstance(chosen, str)
        self.leaf: EntryMeta | None = chosen
        path = session.path_to(self.leaf) if self.leaf is not None else []
        self.active = {m.uid for m in path}
        self.mode: FilterMode = mode
        self.folded: set[str] = set()
        self.tokens: list[str] = []
        self.flat = self._flatten()
        self.selected = 0
        self.last: str | None = None
        self.rows: list[EntryMeta] = []
        self._apply()
        target = self.leaf.uid if self.leaf is not None else None
        self.selected = self._nearest(target)
        self.last = self.rows[self.selected].uid if self.rows else None

    def _flatten(self) -> list[EntryMeta]:
        def ordered(items: list[EntryMeta]) -> list[EntryMeta]:
            return sorted(items, key=lambda m: m.uid not in self.active)

        out: list[EntryMeta] = []
        stack = list(reversed(ordered(list(self.session.roots))))
        while stack:
            meta = stack.pop()
            out.append(meta)
            stack.extend(reversed(ordered(list(meta.children or []))))
        return out

    def _passes(self, meta: EntryMeta) -> bool:
        quiet = meta.stop_reason in QUIET and not meta.has_text
        if meta.role == "assistant" and meta is not self.leaf and quiet:
            return False
        bookkeeping = meta.type in SETTINGS or meta.type not in KNOWN or meta.role == "system"
        if self.mode == "user-only":
            ok = meta.type == "message" and meta.role == "user"
        elif self.mode == "no-tools":
            ok = not bookkeeping and meta.role != "toolResult"
        elif self.mode == "labeled-only":
            ok = meta.id in self.session.labels
        elif self.mode == "all":
            ok = True
        else:
            ok = not bookkeeping
        if ok and self.tokens:
            label = self.session.labels.get(meta.id or "")
            text = searchable_text(self.session.raw(meta))
            text = (f"{label} {text}" if label is not None else text).lower()
            ok = all(token in text for token in self.tokens)
        return ok

    def _apply(self) -> None:
        if self.rows:
            self.last = self.rows[self.selected].uid
        skip: set[str] = set()
        for meta in self.flat:
            if meta.parent is not None and (
                meta.parent.uid in self.folded or meta.parent.uid in skip
            ):
                skip.add(meta.uid)
        self.rows = [m for m in self.flat if self._passes(m) and m.uid not in skip]
        visible = {m.uid for m in self.rows}
        self.vparent: dict[str, str | None] = {}
        self.vchildren: dict[str | None, list[str]] = {None: []}
        for meta in self.rows:
            node = meta.parent
            while node is not None and node.uid not in visible:
                node = node.parent
            parent = node.uid if node is not None else None
            self.vparent[meta.uid] = parent
            self.vchildren.setdefault(parent, []).append(meta.uid)
        if self.last is not None:
            self.selected = self._nearest(self.last)
        elif self.selected >= len(self.rows):
            self.selected = max(0, len(self.rows) - 1)
        if self.rows:
            self.last = self.rows[self.selected].uid

    def _nearest(self, uid: str | None) -> int:
        if not self.rows:
            return 0
        index = {m.uid: i for i, m in enumerate(self.rows)}
        node = self.session.get(uid) if uid is not None else None
        while node is not None:
            if node.uid in index:
                return index[node.uid]
            node = node.parent
        return len(self.rows) - 1

    def visible(self) -> list[str]:
        return [m.uid for m in self.rows]

    def selected_uid(self) -> str | None:
        return self.rows[self.selected].uid if self.rows else None

    def prefixes(self) -> list[str]:
        roots = self.vchildren[None]
        multi = len(roots) > 1
        layout: dict[str, tuple[int, bool, bool, list[tuple[int, bool]], bool]] = {}
        Item = tuple[str, int, bool, bool, bool, list[tuple[int, bool]], bool]
        stack: list[Item] = [
            (uid, 1 if multi else 0, multi, multi, i == len(roots) - 1, [], multi)
            for i, uid in reversed(list(enumerate(roots)))
        ]
        while stack:
            uid, indent, branched, connector, last, gutters, virtual = stack.pop()
            layout[uid] = (indent, connector, last, gutters, virtual)
            kids = self.vchildren.get(uid, [])
            child_indent = indent + 1 if len(kids) > 1 or (branched and indent > 0) else indent
            shown = max(0, indent - 1) if multi else indent
            child_gutters = (
                [*gutters, (max(0, shown - 1), not last)] if connector and not virtual else gutters
            )
            for i in range(len(kids) - 1, -1, -1):
                stack.append((kids[i], child_indent, len(kids) > 1, len(kids) > 1,
                              i == len(kids) - 1, child_gutters, False))  # fmt: skip
        out = []
        for meta in self.rows:
            indent, connector, last, gutters, virtual = layout[meta.uid]
            shown = max(0, indent - 1) if multi else indent
            first: dict[int, bool] = {}
            for position, draw in gutters:
                first.setdefault(position, draw)  # pi takes the first gutter at a position
            cells = []
            for level in range(shown):
                gutter = first.get(level)
                if gutter is not None:
                    cells.append("│  " if gutter else "   ")
                elif connector and not virtual and level == shown - 1:
                    folded = meta.uid in self.folded
                    mark = "⊞" if folded else "⊟" if self._foldable(meta.uid) else "─"
                    cells.append(("└" if last else "├") + mark + " ")
                else:
                    cells.append("   ")
            out.append("".join(cells))
        return out

    def _foldable(self, uid: str) -> bool:
        if not self.vchildren.get(uid):
            return False
        parent = self.vparent.get(uid)
        return parent is None or len(self.vchildren.get(parent, [])) > 1

    # keys
    def move(self, step: int) -> None:
        if self.rows:
            self.selected = (self.selected + step) % len(self.rows)

    def page(self, step: int) -> None:
        if self.rows:
            self.selected = max(0, min(len(self.rows) - 1, self.selected + step))

    def set_filter(self, mode: FilterMode) -> None:
        self.mode = mode
        self.folded.clear()
        self._apply()

    def set_query(self, query: str) -> None:
        self.tokens = query.lower().split()
        self.folded.clear()
        self._apply()

    def fold_or_up(self) -> None:
        if not self.rows:
            return
        uid = self.rows[self.selected].uid
        if self._foldable(uid) and uid not in self.folded:
            self.folded.add(uid)
            self._apply()
            return
        index = {m.uid: i for i, m in enumerate(self.rows)}
        current = uid
        while True:
            parent = self.vparent.get(current)
            if parent is None:
                self.selected = index[current]
                return
            if len(self.vchildren.get(parent, [])) > 1 and index[current] < self.selected:
                self.selected = index[current]
                return
            current = parent

    def unfold_or_down(self) -> None:
        if not self.rows:
            return
        uid = self.rows[self.selected].uid
        if uid in self.folded:
            self.folded.discard(uid)
            self._apply()
            return
        index = {m.uid: i for i, m in enumerate(self.rows)}
        current = uid
        while True:
            kids = self.vchildren.get(current, [])
            if not kids:
                self.selected = index[current]
                return
            if len(kids) > 1:
                self.selected = index[kids[0]]
                return
            current = kids[0]


# random trees -------------------------------------------------------------------------------------

KINDS = (
    *("user", "assistant", "tools", "error", "result", "model", "label", "compaction"),
    *("summary", "custom", "custom_message", "system", "usage", "weird", "bash", "info"),
)


def random_entry(kind: str, eid: str, parent: str | None, t: int, ids: list[str]) -> dict[str, Any]:
    words = ("alpha beta", "beta gamma", "gamma", "delta alpha", "Alpha\nBeta")
    text = words[t % len(words)]
    if kind == "user":
        return user(eid, parent, text, t=t)
    if kind == "assistant":
        return assistant(eid, parent, text, t=t)
    if kind == "tools":
        return tool_call_assistant(eid, parent, f"call-{eid}", "read", {"path": text}, t)
    if kind == "error":
        return assistant(eid, parent, t=t, stop="error", content=[])
    if kind == "result":
        return tool_result(eid, parent, f"call-{ids[t % len(ids)]}" if ids else "x", t)
    if kind == "model":
        return entry("model_change", eid, parent, t=t, provider="p", modelId=text)
    if kind == "label":
        target = ids[(t * 7) % len(ids)] if ids else eid
        return entry("label", eid, parent, t=t, targetId=target, label=text if t % 3 else "")
    if kind == "compaction":
        return entry("compaction", eid, parent, t=t, summary=text, firstKeptEntryId=eid,
                     tokensBefore=t * 500)  # fmt: skip
    if kind == "summary":
        return entry("branch_summary", eid, parent, t=t, fromId=eid, summary=text)
    if kind == "custom":
        return entry("custom", eid, parent, t=t, customType="gamma")
    if kind == "custom_message":
        return entry("custom_message", eid, parent, t=t, customType="note", content=text)
    if kind == "system":
        return entry("message", eid, parent, t=t, message={"role": "system", "content": text})
    if kind == "usage":
        return entry("usage", eid, parent, t=t)
    if kind == "bash":
        return entry(
            "message", eid, parent, t=t, message={"role": "bashExecution", "command": text}
        )
    if kind == "info":
        return entry("session_info", eid, parent, t=t, name=text)
    return entry("weird", eid, parent, t=t)


@st.composite
def random_sessions(draw: st.DrawFn) -> bytes:
    count = draw(st.integers(1, 40))
    lines = []
    ids: list[str] = []
    for i in range(count):
        eid = f"n{i}"
        if i == 0 or draw(st.integers(0, 9)) == 0:
            parent = None
        elif draw(st.booleans()):
            parent = ids[-1]
        else:
            parent = ids[draw(st.integers(0, len(ids) - 1))]
        kind = draw(st.sampled_from(KINDS))
        t = draw(st.integers(0, 50))
        lines.append(random_entry(kind, eid, parent, t, ids))
        ids.append(eid)
    return jsonl(*lines)


ACTIONS = st.lists(
    st.sampled_from(
        (
            "up",
            "down",
            "pgup",
            "pgdn",
            "fold",
            "unfold",
            "ctrl+d",
            "ctrl+t",
            "ctrl+u",
            "ctrl+l",
            "ctrl+a",
            "ctrl+o",
            "shift+ctrl+o",
            "q:alpha",
            "q:beta gam",
            "q:",
            "q:zzz",
        )
    ),
    max_size=25,
)


def act(tree: TreeView, ref: PiSelector, action: str) -> None:
    toggles: dict[str, FilterMode] = {"ctrl+t": "no-tools", "ctrl+u": "user-only",
                                      "ctrl+l": "labeled-only", "ctrl+a": "all"}  # fmt: skip
    if action == "up":
        tree.move_up()
        ref.move(-1)
    elif action == "down":
        tree.move_down()
        ref.move(1)
    elif action in ("pgup", "pgdn"):
        step = -3 if action == "pgup" else 3
        (tree.page_up if step < 0 else tree.page_down)(3)
        ref.page(step)
    elif action == "fold":
        tree.fold_or_up()
        ref.fold_or_up()
    elif action == "unfold":
        tree.unfold_or_down()
        ref.unfold_or_down()
    elif action == "ctrl+d":
        tree.set_filter("default")
        ref.set_filter("default")
    elif action in toggles:
        tree.toggle_filter(toggles[action])
        ref.set_filter(tree.filter_mode)
    elif action in ("ctrl+o", "shift+ctrl+o"):
        tree.cycle_filter(1 if action == "ctrl+o" else -1)
        ref.set_filter(tree.filter_mode)
    elif action.startswith("q:"):
        tree.set_query(action[2:])
        ref.set_query(action[2:])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=random_sessions(), actions=ACTIONS, leaf_choice=st.integers(-2, 45))
def test_random_trees_match_the_plain_implementation(
    data: bytes, actions: list[str], leaf_choice: int
) -> None:
    session = Session.from_bytes(data)
    leaf: EntryMeta | str | None
    if leaf_choice == -2:
        leaf = None
    elif leaf_choice == -1 or leaf_choice >= len(session.entries):
        leaf = "default"
    else:
        leaf = session.entries[leaf_choice]
    tree = TreeView(session, leaf=leaf)
    ref = PiSelector(session, leaf=leaf)
    # invariant: in `all`, every entry but the always-hidden assistants appears exactly once
    everything = PiSelector(session, mode="all", leaf=leaf).visible()
    assert len(everything) == len(set(everything))
    hidden = {m.uid for m in session.entries if m.uid not in everything}
    assert all(session.by_uid[uid].role == "assistant" for uid in hidden)
    assert ref.leaf is None or ref.leaf.uid not in hidden

    def check() -> None:
        assert [tree.entry(i).uid for i in range(tree.count)] == ref.visible()
        assert tree.selected_uid == ref.selected_uid()
        assert [tree.prefix(i) for i in range(tree.count)] == ref.prefixes()
        for i in range(tree.count):
            row = tree.row(i)
            assert row.fold_marker == (row.uid in ref.folded and not row.prefix.endswith(("⊞ ",)))
            assert row.active == (row.uid in ref.active)

    check()
    for action in actions:
        act(tree, ref, action)
        check()


def test_random_check_catches_a_broken_layout(monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparison above can fail: break the indentation rule and it does."""
    tree = view(u25())
    reference = PiSelector(tree.session)
    assert [tree.prefix(i) for i in range(tree.count)] == reference.prefixes()
    monkeypatch.setattr(VisibleTree, "display_indent", lambda self, layout: layout.indent + 1)
    tree.set_filter("default")
    assert [tree.prefix(i) for i in range(tree.count)] != reference.prefixes()


def resume_leaf_for(session: Session, meta: EntryMeta) -> tuple[str | None, str | None]:
    """§3.13 rule 3 as the app applies it (``edit.resume_point``), as (leaf uid, editor text)."""
    leaf, text = resume_point(session, meta)
    return (leaf.uid if leaf is not None else None), text
