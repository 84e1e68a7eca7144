"""pitui's SessionManager: every method, pi's meaning, scenarios F26-F28, in memory and on disk.

After each write the file is read back with the core reader (`Session`) and checked for what pi
would find: leaf, branch, labels, name, context.
"""

from __future__ import annotations

import os
import re
import shutil
import time
from pathlib import Path
from typing import Any

import orjson
import pytest

from pitui.core import edit
from pitui.core.context import build_session_context
from pitui.core.lookup import (
    AmbiguousIdError,
    EntryNotFoundError,
    SessionNotFoundError,
    find_entry,
    find_most_recent_session,
    find_session,
)
from pitui.core.manager import SessionManager
from pitui.core.models import (
    AssistantMessage,
    BranchSummaryEntry,
    CompactionEntry,
    CompactionSummaryMessage,
    CustomEntry,
    CustomMessage,
    CustomMessageEntry,
    LabelEntry,
    MessageEntry,
    ModelChangeEntry,
    SessionInfoEntry,
    TextContent,
    ThinkingLevelChangeEntry,
    Usage,
    UserMessage,
)
from pitui.core.paths import session_dir_for
from pitui.core.session import NotASessionError, Session
from tests.conftest import FIXTURES, fixture_by_scenario, load_expected
from tests.core.sessiondata import assistant, jsonl, ts, user

HEX8 = re.compile(r"[0-9a-f]{8}")
CWD = "/home/ana/proj"


def u(text: str = "hi", t: int = 1) -> UserMessage:
    return UserMessage(role="user", content=text, timestamp=1735689600000 + t)


def a(text: str = "ok", t: int = 2, model: str = "claude-test") -> AssistantMessage:
    return AssistantMessage(
        role="assistant",
        content=[TextContent(type="text", text=text)],
        api="anthropic-messages",
        provider="anthropic",
        model=model,
        usage=Usage(input=1, output=2, totalTokens=3),
        stopReason="stop",
        timestamp=1735689600000 + t,
    )


def lines(path: str | Path) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in Path(path).read_bytes().split(b"\n") if line]


def reread(path: str | Path) -> Session:
    return Session.open(path, final=True)


def roles_of(session: Session, leaf: str | None = "default") -> list[Any]:
    return [m.get("role") for m in build_session_context(session, leaf).messages]


def old(path: str | Path) -> None:
    past = time.time() - 3600
    os.utime(path, (past, past))


def copy_fixture(tmp_path: Path, scenario: str, corpus: str = "pi-written") -> Path:
    source = fixture_by_scenario(corpus, scenario)
    target = tmp_path / source.name
    shutil.copy2(source, target)
    return target


# ----------------------------------------------------------------------------- deferred flush


def test_create_writes_nothing_until_an_assistant_message(tmp_path: Path) -> None:
    sm = SessionManager.create(CWD, tmp_path / "dir")
    file = sm.get_session_file()
    assert file is not None and file.startswith(str(tmp_path / "dir") + os.sep)
    assert re.fullmatch(
        r"\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z_[0-9a-f-]{36}\.jsonl", os.path.basename(file)
    )
    assert sm.is_persisted()
    sm.append_model_change("anthropic", "claude-test")
    sm.append_thinking_level_change("high")
    first = sm.append_message(u())
    assert not os.path.exists(file) and not (tmp_path / "dir").exists()
    reply = sm.append_message(a())
    written = lines(file)
    assert written[0]["type"] == "session" and written[0]["id"] == sm.get_session_id()
    assert [e["type"] for e in written[1:]] == [
        "model_change", "thinking_level_change", "message", "message"
    ]  # fmt: skip
    assert written[3]["id"] == first and written[4]["id"] == reply
    later = sm.append_message(u("again", 3))  # appended directly: one line
    assert [e["id"] for e in lines(file)][1:] == [e["id"] for e in written[1:]] + [later]
    session = reread(file)
    assert session.leaf_id == later and sm.get_leaf_id() == later
    assert build_session_context(session).thinking_level == "high"


def test_first_flush_never_overwrites_an_existing_file(tmp_path: Path) -> None:
    sm = SessionManager.create(CWD, tmp_path)
    file = sm.get_session_file()
    assert file is not None
    Path(file).write_bytes(b"someone else's\n")
    sm.append_message(u())
    with pytest.raises(edit.WriteError, match="already exists"):
        sm.append_message(a())
    assert Path(file).read_bytes() == b"someone else's\n"


def test_in_memory_session_never_writes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    sm = SessionManager.in_memory("/work")
    assert not sm.is_persisted() and sm.get_session_file() is None
    assert sm.get_session_dir() == "" and sm.get_cwd() == "/work"
    m1 = sm.append_message(u())
    m2 = sm.append_message(a())
    sm.append_label_change(m1, "start")
    sm.append_session_info("mem")
    assert [e.id for e in sm.get_branch()][:2] == [m1, m2]
    assert sm.get_label(m1) == "start" and sm.get_session_name() == "mem"
    assert [type(m).__name__ for m in sm.build_session_context().messages] == [
        "UserMessage", "AssistantMessage"
    ]  # fmt: skip
    assert sm.create_branched_session(m2) is None
    assert [e.id for e in sm.get_entries()][:2] == [m1, m2]
    assert list(tmp_path.iterdir()) == []
    assert SessionManager.in_memory().get_cwd() == str(tmp_path)


# ----------------------------------------------------------------------------- F28: appends


def test_f28_appends_follow_the_leaf_and_branch_makes_a_new_child(tmp_path: Path) -> None:
    sm = SessionManager.create(CWD, tmp_path)
    e1 = sm.append_message(u("one"))
    e2 = sm.append_message(a("two"))
    e3 = sm.append_message(u("three"))
    assert [e["parentId"] for e in lines(sm.get_session_file() or "")[1:]] == [None, e1, e2]
    sm.branch(e2)
    assert sm.get_leaf_id() == e2
    e4 = sm.append_message(u("four"))
    written = lines(sm.get_session_file() or "")
    assert written[-1]["id"] == e4 and written[-1]["parentId"] == e2
    ids = [e["id"] for e in written[1:]]
    assert all(HEX8.fullmatch(i) for i in ids) and len(set(ids)) == len(ids)
    session = reread(sm.get_session_file() or "")
    assert [c.uid for c in session.by_id[e2].children or []] == [e3, e4]
    assert [m.uid for m in session.branch()] == [e1, e2, e4]


def test_ids_are_unique_against_entries_pi_appended_meanwhile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sm = SessionManager.create(CWD, tmp_path)
    e1 = sm.append_message(u())
    e2 = sm.append_message(a())
    file = sm.get_session_file() or ""
    with open(file, "ab") as handle:  # another pi process on the same file, a while ago
        handle.write(orjson.dumps(user("abcdef01", e2, "from pi", t=9)) + b"\n")
    old(file)
    draws = iter(["abcdef01", "12345678"])  # the first draw collides with pi's new id
    monkeypatch.setattr("secrets.token_hex", lambda n: next(draws))
    e3 = sm.append_custom_entry("ext", {"n": 1})
    assert e3 == "12345678"
    assert sm.get_entry("abcdef01") is not None  # honoured: indexed
    assert lines(file)[-1]["parentId"] == e2  # a child of our leaf, not of pi's entry
    assert [m.uid for m in reread(file).entries] == [e1, e2, "abcdef01", e3]


def test_write_to_a_file_pi_is_writing_needs_force(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(jsonl(user("u", None), assistant("a", "u")))  # just written
    sm = SessionManager.open(path)
    with pytest.raises(edit.FileBusyError):
        sm.append_label_change("u", "x")
    assert sm.get_leaf_id() == "a" and len(lines(path)) == 3
    sm.force = True
    sm.append_label_change("u", "x")
    assert reread(path).labels == {"u": "x"}
    forced = SessionManager.open(path, force=True)
    assert forced.force


def test_append_message_types_and_validation(tmp_path: Path) -> None:
    sm = SessionManager.in_memory(CWD)
    sm.append_message({"role": "user", "content": [{"type": "text", "text": "dict in"}]})
    sm.append_message({"role": "myExtensionRole", "payload": 1})  # extensions' roles pass
    with pytest.raises(ValueError, match="not a valid user message"):
        sm.append_message({"role": "user", "content": 5})
    with pytest.raises(ValueError, match="append_compaction"):
        sm.append_message({"role": "compactionSummary", "summary": "s", "tokensBefore": 1})
    with pytest.raises(ValueError, match="role"):
        sm.append_message({"content": "no role"})
    with pytest.raises(TypeError):
        sm.append_custom_entry("x", {1, 2})  # not JSON: refused before anything is written
    assert len(sm.get_entries()) == 2


def test_every_append_writes_pi_shaped_entries(tmp_path: Path) -> None:
    sm = SessionManager.create(CWD, tmp_path)
    m1 = sm.append_message(u("first"))
    m2 = sm.append_message(a("reply"))
    tl = sm.append_thinking_level_change("xhigh")
    mc = sm.append_model_change("openai", "gpt-5")
    ce = sm.append_custom_entry("ext-state", {"k": [1, 2]})
    ce0 = sm.append_custom_entry("ext-empty")
    cm = sm.append_custom_message_entry(
        "ext-msg", [TextContent(type="text", text="injected")], True, {"why": "test"}
    )
    cm2 = sm.append_custom_message_entry("ext-hidden", "hidden text", False)
    si = sm.append_session_info("  Name with\r\nbreak  ")
    lb = sm.append_label_change(m1, "bookmark")
    lc = sm.append_label_change(m1)
    file = sm.get_session_file() or ""
    raw = {e.get("id"): e for e in lines(file)}
    assert list(raw[tl]) == ["type", "id", "parentId", "timestamp", "thinkingLevel"]
    assert list(raw[mc]) == ["type", "id", "parentId", "timestamp", "provider", "modelId"]
    assert list(raw[ce]) == ["type", "customType", "data", "id", "parentId", "timestamp"]
    assert "data" not in raw[ce0]
    assert list(raw[cm]) == [
        "type", "customType", "content", "display", "details", "id", "parentId", "timestamp"
    ]  # fmt: skip
    assert raw[cm]["content"] == [{"type": "text", "text": "injected"}]
    assert raw[cm2]["content"] == "hidden text" and raw[cm2]["display"] is False
    assert raw[si]["name"] == "Name with break"
    assert raw[lb]["label"] == "bookmark" and "label" not in raw[lc]
    for entry in raw.values():
        if entry["type"] != "session":
            assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", entry["timestamp"])
    # the typed view of the same entries
    assert isinstance(sm.get_entry(tl), ThinkingLevelChangeEntry)
    assert isinstance(sm.get_entry(mc), ModelChangeEntry)
    assert isinstance(sm.get_entry(ce), CustomEntry)
    assert isinstance(sm.get_entry(cm), CustomMessageEntry)
    assert isinstance(sm.get_entry(si), SessionInfoEntry)
    assert isinstance(sm.get_entry(lb), LabelEntry)
    message = sm.get_entry(m2)
    assert isinstance(message, MessageEntry) and isinstance(message.message, AssistantMessage)
    assert sm.get_entry("nope") is None
    session = reread(file)
    assert session.name == "Name with break" and session.labels == {}
    ctx = sm.build_session_context()
    assert [m.role for m in ctx.messages] == ["user", "assistant", "custom", "custom"]
    assert ctx.thinking_level == "xhigh"
    assert ctx.model is not None and ctx.model.to_json() == {
        "provider": "openai", "modelId": "gpt-5"
    }  # fmt: skip
    assert isinstance(ctx.messages[2], CustomMessage)
    assert ctx.sources == [m1, m2, cm, cm2]
    assert roles_of(session) == [m["role"] for m in ctx.raw_messages]


def test_labels_set_clear_and_refuse_unknown_targets() -> None:
    sm = SessionManager.in_memory(CWD)
    m1 = sm.append_message(u())
    m2 = sm.append_message(a())
    label_id = sm.append_label_change(m1, "a")
    entry = sm.get_entry(label_id)
    assert isinstance(entry, LabelEntry) and entry.parentId == m2  # child of the leaf
    assert sm.get_leaf_id() == label_id and sm.get_label(m1) == "a"
    sm.append_label_change(m1, "")
    assert sm.get_label(m1) is None
    with pytest.raises(EntryNotFoundError, match="Entry zzz not found"):
        sm.append_label_change("zzz", "x")
    label_of_label = sm.append_label_change(label_id, "on a label")
    assert sm.get_label(label_id) == "on a label" and label_of_label == sm.get_leaf_id()


def test_compaction_with_and_without_retained_tail() -> None:
    # F17: legacy checkpoint by firstKeptEntryId
    sm = SessionManager.in_memory(CWD)
    sm.append_message(u("first"))
    sm.append_message(a("response1"))
    second = sm.append_message(u("second"))
    sm.append_message(a("response2"))
    comp = sm.append_compaction("Summary", second, 5000, {"readFiles": []})
    sm.append_message(u("third"))
    sm.append_message(a("response3"))
    ctx = sm.build_session_context()
    assert [m.role for m in ctx.messages] == [
        "compactionSummary", "user", "assistant", "user", "assistant"
    ]  # fmt: skip
    assert isinstance(ctx.messages[0], CompactionSummaryMessage)
    entry = sm.get_entry(comp)
    assert isinstance(entry, CompactionEntry) and entry.firstKeptEntryId == second
    assert entry.details == {"readFiles": []} and entry.retainedTail is None
    # F19: a self-contained checkpoint with retainedTail and no firstKeptEntryId
    sm2 = SessionManager.in_memory(CWD)
    sm2.append_message(u("A"))
    sm2.append_message(u("B"))
    sm2.append_message(a("C"))
    k = sm2.append_compaction(
        "S", None, 100, retained_tail=[u("B"), a("C")], usage={"input": 1}, from_hook=True
    )
    d = sm2.append_message(u("D"))
    assert [e.id for e in sm2.build_context_entries()] == [k, d]
    assert [m.role for m in sm2.build_session_context().messages] == [
        "compactionSummary", "user", "assistant", "user"
    ]  # fmt: skip
    raw = sm2.session.raw(sm2.session.by_id[k])
    assert list(raw) == [
        "type", "id", "parentId", "timestamp", "summary", "tokensBefore", "retainedTail",
        "usage", "fromHook"
    ]  # fmt: skip
    assert "firstKeptEntryId" not in raw
    # F20: an empty retainedTail keeps nothing from before
    sm3 = SessionManager.in_memory(CWD)
    sm3.append_message(u("A"))
    sm3.append_compaction("S", None, 1, retained_tail=[])
    sm3.append_message(u("D"))
    assert [m.role for m in sm3.build_session_context().messages] == ["compactionSummary", "user"]


def test_reset_leaf_and_branch_with_summary() -> None:
    sm = SessionManager.in_memory(CWD)
    m1 = sm.append_message(u("one"))
    sm.append_message(a("two"))
    with pytest.raises(EntryNotFoundError):
        sm.branch("missing")
    with pytest.raises(EntryNotFoundError):
        sm.branch_with_summary("missing", "s")
    summary = sm.branch_with_summary(m1, "tried X", {"readFiles": []}, False)
    entry = sm.get_entry(summary)
    assert isinstance(entry, BranchSummaryEntry)
    assert (entry.parentId, entry.fromId, entry.fromHook) == (m1, m1, False)
    assert sm.get_leaf_id() == summary
    assert [m.role for m in sm.build_session_context().messages] == ["user", "branchSummary"]
    sm.reset_leaf()
    assert sm.get_leaf_id() is None and sm.get_leaf_entry() is None
    assert sm.build_session_context().messages == [] and sm.get_branch() == []
    root2 = sm.append_message(u("second root"))
    assert sm.get_entry(root2).parentId is None  # type: ignore[union-attr]
    assert [n.id for n in sm.get_tree()] == [m1, root2]
    at_root = sm.branch_with_summary(None, "from the top")
    root_summary = sm.get_entry(at_root)
    assert isinstance(root_summary, BranchSummaryEntry)
    assert root_summary.parentId is None and root_summary.fromId == "root"


def test_tree_children_branch_and_leaf_queries() -> None:
    sm = SessionManager.in_memory(CWD)
    r = sm.append_message(u("root"))
    x = sm.append_message(a("x"))
    sm.branch(r)
    y = sm.append_message(a("y"))
    sm.append_label_change(x, "kept")
    tree = sm.get_tree()
    assert len(tree) == 1 and tree[0].id == r
    assert [c.id for c in tree[0].children] == [x, y]
    assert tree[0].children[0].label == "kept" and tree[0].children[0].label_timestamp
    assert isinstance(tree[0].entry, MessageEntry)
    assert [e.id for e in sm.get_children(r)] == [x, y] and sm.get_children("nope") == []
    assert [e.id for e in sm.get_branch(x)] == [r, x]
    assert sm.get_branch("nope") == []
    leaf = sm.get_leaf_entry()
    assert isinstance(leaf, LabelEntry) and leaf.parentId == y
    assert [e.id for e in sm.build_context_entries()] == [r, y, sm.get_leaf_id()]
    assert [e.id for e in sm] == [r, x, y, sm.get_leaf_id()]


def test_header_and_metadata(tmp_path: Path) -> None:
    sm = SessionManager.create(CWD, tmp_path)
    header = sm.get_header()
    assert header is not None and header.version == 3 and header.cwd == CWD
    assert header.id == sm.get_session_id() and header.parentSession is None
    assert sm.get_session_dir() == str(tmp_path) and sm.get_cwd() == CWD
    path = sm.new_session(parent_session="/x/parent.jsonl")
    assert path == sm.get_session_file() and path is not None
    assert sm.get_header().parentSession == "/x/parent.jsonl"  # type: ignore[union-attr]
    assert sm.get_session_id() in path and sm.get_entries() == []


# ----------------------------------------------------------------------------- opening files


def test_open_a_pi_written_file(tmp_path: Path) -> None:
    path = copy_fixture(tmp_path, "branches")
    expected = load_expected("pi-written")["sessions"]
    record = next(r for r in expected.values() if r["scenario"] == "branches")
    before = path.read_bytes()
    sm = SessionManager.open(path)
    assert sm.get_leaf_id() == record["leafId"]
    assert [e.id for e in sm.get_branch()] == record["branchIds"]
    assert sm.get_cwd() == record["cwd"] and sm.get_session_id() == record["sessionId"]
    assert sm.get_session_dir() == str(tmp_path) and sm.get_session_file() == str(path)
    assert {k: sm.get_label(k) for k in record["labels"]} == record["labels"]
    assert [m.role for m in sm.build_session_context().messages] == record["context"]["roles"]
    assert len(sm.get_entries()) == record["entryCount"]
    assert path.read_bytes() == before  # opening never writes


def test_open_refuses_an_invalid_file_and_leaves_it_alone(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(b'{"type":"message","id":"1"}\n')
    with pytest.raises(NotASessionError):
        SessionManager.open(path)
    assert path.read_bytes() == b'{"type":"message","id":"1"}\n'
    sm = SessionManager.in_memory(CWD)
    with pytest.raises(NotASessionError):
        sm.set_session_file(path)
    assert path.read_bytes() == b'{"type":"message","id":"1"}\n'


def test_open_a_blank_file_initialises_it_only_on_the_first_flush(tmp_path: Path) -> None:
    path = tmp_path / "blank.jsonl"
    path.write_bytes(b"")
    sm = SessionManager.open(path, tmp_path)
    assert sm.get_session_file() == str(path) and sm.get_entries() == []
    sm.append_message(u())
    assert path.read_bytes() == b""
    sm.append_message(a())
    written = lines(path)
    assert [e["type"] for e in written] == ["session", "message", "message"]
    assert sum(1 for e in written if e["type"] == "session") == 1


def test_open_a_missing_path_starts_a_session_there(tmp_path: Path) -> None:
    path = tmp_path / "new.jsonl"
    sm = SessionManager.open(path)
    assert sm.get_session_file() == str(path) and not path.exists()
    sm.append_message(u())
    sm.append_message(a())
    assert lines(path)[0]["id"] == sm.get_session_id()


def test_open_a_v1_file_migrates_it_only_before_the_first_write(tmp_path: Path) -> None:
    header = {"type": "session", "id": "legacy", "timestamp": ts(0), "cwd": "/old"}
    msgs = [
        {"type": "message", "timestamp": ts(1), "message": {"role": "user", "content": "a"}},
        {"type": "message", "timestamp": ts(2), "message": {"role": "assistant", "content": []}},
    ]
    path = tmp_path / "v1.jsonl"
    path.write_bytes(jsonl(*msgs, header=header))
    old(path)
    before = path.read_bytes()
    sm = SessionManager.open(path)
    ids = [m.uid for m in sm.session.entries]
    assert sm.get_header().version == 3  # type: ignore[union-attr]
    assert path.read_bytes() == before
    sm.append_label_change(ids[0], "migrated")
    written = lines(path)
    assert written[0]["version"] == 3 and [e["id"] for e in written[1:3]] == ids
    assert written[3]["parentId"] == ids[1]
    session = reread(path)
    assert session.original_version == 3 and session.labels == {ids[0]: "migrated"}
    assert sum(1 for e in written if e["type"] == "session") == 1


def test_appending_to_a_file_without_assistant_messages_adds_no_second_header(
    tmp_path: Path,
) -> None:
    # pi 0.73.1 re-wrote header and entries here (format §9.1 [old] bug)
    path = copy_fixture(tmp_path, "header-only")
    old(path)
    sm = SessionManager.open(path)
    sm.append_message(u())
    sm.append_message(a())
    written = lines(path)
    assert sum(1 for e in written if e["type"] == "session") == 1
    ids = [e["id"] for e in written[1:]]
    assert len(ids) == len(set(ids)) == 2


def test_set_session_file_switches_sessions(tmp_path: Path) -> None:
    first = copy_fixture(tmp_path, "minimal")
    sm = SessionManager.create(CWD, tmp_path)
    sm.set_session_file(first)
    assert sm.get_session_file() == str(first)
    assert sm.get_cwd() == CWD  # pi keeps the manager's cwd
    assert sm.get_leaf_id() == reread(first).leaf_id
    sm.set_session_file(tmp_path / "later.jsonl")
    assert sm.get_entries() == [] and sm.get_session_file() == str(tmp_path / "later.jsonl")


def test_refresh_follows_appends_and_replacements(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(jsonl(user("u", None), assistant("a", "u")))
    sm = SessionManager.open(path)
    assert sm.refresh() == "unchanged"
    with open(path, "ab") as handle:
        handle.write(orjson.dumps(user("n", "a", t=5)) + b"\n")
    assert sm.refresh() == "grew"
    assert sm.get_leaf_id() == "a" and sm.get_entry("n") is not None  # leaf stays in memory
    path.write_bytes(jsonl(user("z", None)))
    old(path)
    assert sm.refresh() == "replaced"
    assert sm.get_leaf_id() == "z"


def test_append_refuses_when_the_file_was_replaced_under_the_leaf(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(jsonl(user("u", None), assistant("a", "u")))
    old(path)
    sm = SessionManager.open(path)
    sm.branch("u")
    other = {"type": "session", "version": 3, "id": "other", "timestamp": ts(0), "cwd": CWD}
    replacement = jsonl(user("x", None, "rewritten"), assistant("y", "x"), header=other)
    path.write_bytes(replacement)  # another tool replaced the session
    old(path)
    with pytest.raises(edit.WriteError, match="no longer holds the leaf u"):
        sm.append_custom_entry("marker")
    assert path.read_bytes() == replacement
    assert sm.get_leaf_id() == "y"  # now at the file's last entry, as pi would open it
    sm.append_custom_entry("marker")
    assert lines(path)[-1]["parentId"] == "y"


def test_appending_under_an_id_pi_cannot_address_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "dup.jsonl"
    path.write_bytes(jsonl(user("d", None, t=1), assistant("d", None, t=2), user("x", "d", t=3)))
    old(path)
    sm = SessionManager.open(path)
    sm.branch("d#2")  # the earlier duplicate
    with pytest.raises(edit.WriteError, match="not unique"):
        sm.append_custom_entry("x")
    sm.branch("d")
    sm.append_custom_entry("x")


# ----------------------------------------------------------------------------- F26, F27: branches


def _f26(sm: SessionManager) -> dict[str, str]:
    ids: dict[str, str] = {}
    ids["1"] = sm.append_message(u("one"))
    ids["2"] = sm.append_message(a("two"))
    ids["3"] = sm.append_message(u("three"))
    sm.branch(ids["2"])
    ids["4"] = sm.append_message(u("four"))
    ids["5"] = sm.append_message(a("five"))
    sm.append_label_change(ids["1"], "L1")
    sm.append_label_change(ids["5"], "L5")
    sm.append_label_change(ids["3"], "L3")
    return ids


def test_f26_create_branched_session(tmp_path: Path) -> None:
    sm = SessionManager.create(CWD, tmp_path)
    ids = _f26(sm)
    old_file = sm.get_session_file() or ""
    old_bytes = Path(old_file).read_bytes()
    label_times = reread(old_file).label_times
    new_file = sm.create_branched_session(ids["5"])
    assert new_file is not None and new_file != old_file
    assert os.path.dirname(new_file) == str(tmp_path)
    assert Path(old_file).read_bytes() == old_bytes
    written = lines(new_file)
    assert written[0]["parentSession"] == old_file and written[0]["cwd"] == CWD
    assert written[0]["id"] == sm.get_session_id() != reread(old_file).id
    assert [e["id"] for e in written[1:5]] == [ids["1"], ids["2"], ids["4"], ids["5"]]
    assert [(e["type"], e["targetId"]) for e in written[5:]] == [
        ("label", ids["1"]), ("label", ids["5"])
    ]  # fmt: skip
    assert written[5]["parentId"] == ids["5"] and written[6]["parentId"] == written[5]["id"]
    assert [e["timestamp"] for e in written[5:]] == [label_times[ids["1"]], label_times[ids["5"]]]
    session = reread(new_file)
    assert session.labels == {ids["1"]: "L1", ids["5"]: "L5"}
    assert session.leaf_id == written[-1]["id"] == sm.get_leaf_id()
    assert roles_of(session) == ["user", "assistant", "user", "assistant"]
    assert not session.problems


def test_f27_branch_without_assistant_is_written_on_the_first_assistant(tmp_path: Path) -> None:
    sm = SessionManager.create(CWD, tmp_path)
    first = sm.append_message(u("first"))
    sm.append_message(a("reply"))
    sm.append_label_change(first, "mark")
    new_file = sm.create_branched_session(first)
    assert new_file is not None and not os.path.exists(new_file)
    assert [e.type for e in sm.get_entries()] == ["message", "label"]
    sm.append_message(a("new reply"))
    written = lines(new_file)
    assert sum(1 for e in written if e["type"] == "session") == 1
    ids = [e["id"] for e in written[1:]]
    assert len(ids) == len(set(ids)) == 3
    assert reread(new_file).labels == {first: "mark"}


def test_branching_an_unknown_entry_raises() -> None:
    sm = SessionManager.in_memory(CWD)
    sm.append_message(u())
    with pytest.raises(EntryNotFoundError):
        sm.create_branched_session("nope")


# ----------------------------------------------------------------------------- forks, continue


def test_fork_from_copies_every_entry_into_the_target_folder(tmp_path: Path) -> None:
    source = copy_fixture(tmp_path, "branches")
    sm = SessionManager.fork_from(source, "/home/ana/other")
    file = sm.get_session_file() or ""
    assert os.path.dirname(file) == str(session_dir_for("/home/ana/other"))
    header = lines(file)[0]
    assert header["cwd"] == "/home/ana/other" and header["parentSession"] == str(source)
    assert header["id"] != reread(source).id
    # entries copied line for line (all branches)
    assert Path(file).read_bytes().split(b"\n")[1:] == source.read_bytes().split(b"\n")[1:]
    assert sm.get_cwd() == "/home/ana/other" and sm.get_leaf_id() == reread(source).leaf_id
    custom = SessionManager.fork_from(source, "/x", tmp_path / "custom")
    assert os.path.dirname(custom.get_session_file() or "") == str(tmp_path / "custom")


def test_fork_from_an_old_format_source_copies_migrated_entries(tmp_path: Path) -> None:
    header = {"type": "session", "id": "legacy", "timestamp": ts(0), "cwd": "/old"}
    source = tmp_path / "v1.jsonl"
    msg = {"type": "message", "timestamp": ts(1), "message": {"role": "user", "content": "a"}}
    source.write_bytes(jsonl(msg, header=header))
    sm = SessionManager.fork_from(source, "/new", tmp_path / "out")
    written = lines(sm.get_session_file() or "")
    assert written[0]["version"] == 3 and HEX8.fullmatch(written[1]["id"])
    assert written[1]["parentId"] is None


def test_fork_from_refuses_an_invalid_source(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b"nonsense\n")
    with pytest.raises(NotASessionError):
        SessionManager.fork_from(bad, "/x", tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_continue_recent(tmp_path: Path) -> None:
    folder = session_dir_for(CWD)
    folder.mkdir(parents=True)
    older = folder / "a.jsonl"
    newer = folder / "b.jsonl"
    invalid = folder / "c.jsonl"
    older.write_bytes(jsonl(user("u", None)))
    newer.write_bytes(jsonl(user("v", None)))
    invalid.write_bytes(b"\xef\xbb\xbf" + jsonl(user("w", None)))  # a BOM: pi's JSON.parse fails
    os.utime(older, (1000, 1000))
    os.utime(newer, (2000, 2000))
    sm = SessionManager.continue_recent(CWD)
    assert sm.get_session_file() == str(newer) and sm.get_leaf_id() == "v"
    empty = SessionManager.continue_recent("/somewhere/else")
    assert empty.get_entries() == [] and not os.path.exists(empty.get_session_file() or "")
    # a custom directory only offers sessions of this cwd
    custom = tmp_path / "custom"
    custom.mkdir()
    mine = custom / "mine.jsonl"
    theirs = custom / "theirs.jsonl"
    mine.write_bytes(jsonl(user("m", None)))
    other_header = {"type": "session", "version": 3, "id": "o", "timestamp": ts(0), "cwd": "/o"}
    theirs.write_bytes(jsonl(user("t", None), header=other_header))
    os.utime(mine, (1000, 1000))
    assert SessionManager.continue_recent(CWD, custom).get_session_file() == str(mine)
    assert find_most_recent_session(str(custom)) == str(theirs)


# ----------------------------------------------------------------------------- listing, lookups


@pytest.fixture
def store_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    agent = tmp_path / "agent"
    shutil.copytree(FIXTURES / "pi-written" / "agent", agent)
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(agent))
    return agent


def test_list_and_list_all_follow_pi(store_copy: Path) -> None:
    expected = load_expected("pi-written")
    progress: list[tuple[int, int]] = []
    everything = SessionManager.list_all(lambda done, total: progress.append((done, total)))
    rel = [Path(i.path).relative_to(store_copy).as_posix() for i in everything]
    assert rel == expected["listAll"]
    assert progress[-1] == (len(rel), len(rel))
    assert [done for done, _ in progress] == sorted(done for done, _ in progress)
    for cwd, paths in expected["listByCwd"].items():
        listed = SessionManager.list(cwd)
        assert [Path(i.path).relative_to(store_copy).as_posix() for i in listed] == paths


def test_find_session_by_path_and_id_prefix(store_copy: Path, tmp_path: Path) -> None:
    record = next(
        (k, r) for k, r in load_expected("pi-written")["sessions"].items()
        if r["scenario"] == "branches"
    )  # fmt: skip
    path = str(store_copy / record[0])
    sid = record[1]["sessionId"]
    assert find_session(path) == path
    assert find_session(sid[:13], cwd="/nowhere") == path  # found in all sessions
    assert find_session(sid) == path
    with pytest.raises(AmbiguousIdError) as info:
        find_session("0195")
    assert len(info.value.candidates) > 2 and "0195" in str(info.value)
    with pytest.raises(SessionNotFoundError):
        find_session("ffffffff")
    with pytest.raises(SessionNotFoundError):
        find_session(str(tmp_path / "missing.jsonl"))


def test_find_session_prefers_the_current_folder(tmp_path: Path) -> None:
    def make(cwd: str, sid: str) -> Path:
        folder = session_dir_for(cwd)
        folder.mkdir(parents=True, exist_ok=True)
        header = {"type": "session", "version": 3, "id": sid, "timestamp": ts(0), "cwd": cwd}
        path = folder / f"{sid}.jsonl"
        path.write_bytes(jsonl(user("u", None), header=header))
        return path

    here = make(CWD, "aaa-111")
    make("/elsewhere", "aaa-222")
    assert find_session("aaa", cwd=CWD) == str(here)
    with pytest.raises(AmbiguousIdError) as info:
        find_session("aaa", cwd="/third")
    assert sorted(c.split(" ")[0] for c in info.value.candidates) == ["aaa-111", "aaa-222"]
    assert find_session("aaa-111", cwd="/third") == str(here)


def test_find_entry(tmp_path: Path) -> None:
    session = Session.from_bytes(
        jsonl(user("abc11111", None), assistant("abc22222", "abc11111"), user("d", None, t=3),
              assistant("d", None, t=4))
    )  # fmt: skip
    assert find_entry(session, "abc11111").uid == "abc11111"
    assert find_entry(session, "abc2").uid == "abc22222"
    assert find_entry(session, "d#4").line == 4
    with pytest.raises(AmbiguousIdError):
        find_entry(session, "abc")
    with pytest.raises(EntryNotFoundError):
        find_entry(session, "zz")
