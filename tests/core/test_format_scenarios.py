"""Format scenarios F1–F25 and F29–F32 of ui-behaviour.md §5 (F26–F28 write: test_manager.py)."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import orjson
import pytest

from pitui.core.context import build_context_entries, build_session_context
from pitui.core.paths import agent_dir, encode_cwd, normalize_cwd, session_dir_for, sessions_root
from pitui.core.problems import ProblemKind
from pitui.core.session import EntryMeta, NotASessionError, Session
from tests.core.sessiondata import HEADER, assistant, chain, entry, jsonl, ts, user


def roles(session: Session, leaf: str | None = "default") -> list[Any]:
    return [m.get("role") for m in build_session_context(session, leaf).messages]


def meta(session: Session, uid: str) -> EntryMeta:
    """The entry ``uid``, which the test's file holds."""
    found = session.get(uid)
    assert found is not None, uid
    return found


def texts(session: Session, leaf: str | None = "default") -> list[object]:
    out: list[object] = []
    for message in build_session_context(session, leaf).messages:
        content = message.get("content")
        if isinstance(content, list):
            out.append("".join(b.get("text", "") for b in content if isinstance(b, dict)))
        else:
            out.append(content if content is not None else message.get("summary"))
    return out


def write(tmp_path: Path, data: bytes, name: str = "s.jsonl") -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


# F1 ---------------------------------------------------------------------------------------------
def test_f1_session_directory_names(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    assert session_dir_for("/home/ana/my app", agent) == agent / "sessions" / "--home-ana-my app--"
    assert encode_cwd(normalize_cwd("C:\\Users\\ana")) == "--C--Users-ana--"
    assert encode_cwd(normalize_cwd("/")) == "----"
    assert encode_cwd("\\\\server\\share") == "---server-share--"
    assert encode_cwd(normalize_cwd("/home/ana/proj/./x/../")) == "--home-ana-proj--"
    assert not (agent / "sessions").exists(), "computing a directory must not create it"


# F2 ---------------------------------------------------------------------------------------------
def test_f2_agent_dir_rules(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    assert (
        sessions_root(agent_dir({"PI_CODING_AGENT_DIR": "~/pidata"}))
        == tmp_path / "pidata" / "sessions"
    )
    default = tmp_path / ".pi" / "agent" / "sessions"
    assert sessions_root(agent_dir({})) == default
    assert sessions_root(agent_dir({"PI_CODING_AGENT_DIR": ""})) == default
    assert agent_dir({"PI_CODING_AGENT_DIR": "~"}) == tmp_path


# F3 ---------------------------------------------------------------------------------------------
def test_f3_no_header_is_not_a_session(tmp_path: Path) -> None:
    data = b'{"type":"message","id":"1"}\n'
    path = write(tmp_path, data)
    with pytest.raises(NotASessionError, match="not a valid pi session"):
        Session.open(path)
    assert path.read_bytes() == data


# F4 ---------------------------------------------------------------------------------------------
def test_f4_malformed_line_is_skipped_and_reported() -> None:
    session = Session.from_bytes(jsonl(b"not valid json", user("u1", None)))
    assert [m.uid for m in session.entries] == ["u1"]
    malformed = [p for p in session.problems if p.kind is ProblemKind.MALFORMED]
    assert [(p.line, p.offset) for p in malformed] == [(2, len(jsonl()))]


# F5 ---------------------------------------------------------------------------------------------
def test_f5_empty_file_is_not_a_session_and_stays_empty(tmp_path: Path) -> None:
    path = write(tmp_path, b"")
    before = os.stat(path)
    with pytest.raises(NotASessionError):
        Session.open(path)
    after = os.stat(path)
    assert (after.st_size, after.st_mtime_ns) == (0, before.st_mtime_ns)


# F6, F7, F8 -------------------------------------------------------------------------------------
V1_HEADER = {"type": "session", "id": "v1-session", "timestamp": ts(0), "cwd": "/x"}


def test_f6_v1_file_is_migrated_in_memory() -> None:
    u = {"type": "message", "timestamp": ts(1), "message": {"role": "user", "content": "a"}}
    a = {"type": "message", "timestamp": ts(2), "message": {"role": "assistant", "content": []}}
    session = Session.from_bytes(jsonl(u, a, header=V1_HEADER))
    assert session.header["version"] == 3
    first, second = session.entries
    assert re.fullmatch(r"[0-9a-f]{8}", first.uid) and re.fullmatch(r"[0-9a-f]{8}", second.uid)
    assert first.parent is None and second.parent is first
    raw = session.raw(second)
    assert (raw["id"], raw["parentId"]) == (second.uid, first.uid)


def test_f7_v1_compaction_index_and_hook_message() -> None:
    a = {"type": "message", "timestamp": ts(1), "message": {"role": "user", "content": "A"}}
    b = {"type": "message", "timestamp": ts(2), "message": {"role": "assistant", "content": []}}
    comp = {"type": "compaction", "timestamp": ts(3), "summary": "S", "tokensBefore": 5,
            "firstKeptEntryIndex": 2}  # fmt: skip
    hook_message = {"role": "hookMessage", "customType": "x", "content": "h", "display": True}
    hook = {"type": "message", "timestamp": ts(4), "message": hook_message}
    session = Session.from_bytes(jsonl(a, b, comp, hook, header=V1_HEADER))
    _, b_meta, comp_meta, hook_meta = session.entries
    raw = session.raw(comp_meta)
    assert raw["firstKeptEntryId"] == b_meta.uid
    assert "firstKeptEntryIndex" not in raw
    assert session.raw(hook_meta)["message"]["role"] == "custom"
    assert hook_meta.role == "custom"


def test_f8_v2_ids_unchanged() -> None:
    header = {**HEADER, "version": 2}
    session = Session.from_bytes(
        jsonl(user("abc12345", None), assistant("def67890", "abc12345"), header=header)
    )
    assert [m.uid for m in session.entries] == ["abc12345", "def67890"]
    assert session.entries[1].parent is session.entries[0]
    assert session.header["version"] == 3


def test_version_trap_keeps_the_tree() -> None:
    header = {k: v for k, v in HEADER.items() if k != "version"}
    data = jsonl(user("a1", None), assistant("a2", "a1"), user("b1", "a1", t=3), header=header)
    session = Session.from_bytes(data)
    assert [c.uid for c in meta(session, "a1").children or []] == ["a2", "b1"]
    assert any(p.kind is ProblemKind.VERSION_TRAP for p in session.problems)


# F9 ---------------------------------------------------------------------------------------------
def test_f9_label_is_the_leaf_and_not_in_context() -> None:
    session = Session.from_bytes(
        jsonl(
            user("m1", None),
            assistant("m2", "m1"),
            entry("label", "l1", "m2", 3, targetId="m1", label="x"),
        )
    )
    assert session.leaf_id == "l1"
    assert roles(session) == ["user", "assistant"]


# F10 --------------------------------------------------------------------------------------------
def test_f10_branch_children_in_timestamp_order() -> None:
    session = Session.from_bytes(
        jsonl(
            user("1", None, t=1), assistant("2", "1", t=2), user("3", "2", t=3), user("4", "2", t=4)
        )
    )
    assert [c.uid for c in meta(session, "2").children or []] == ["3", "4"]
    assert [r.uid for r in session.roots] == ["1"]
    assert [m.uid for m in build_context_entries(session, "3")] == ["1", "2", "3"]
    assert [m.uid for m in build_context_entries(session, "4")] == ["1", "2", "4"]


def test_children_sorted_by_timestamp_not_file_order() -> None:
    session = Session.from_bytes(
        jsonl(user("1", None, t=1), user("late", "1", t=50), user("early", "1", t=10))
    )
    assert [c.uid for c in meta(session, "1").children or []] == ["early", "late"]


# F11 --------------------------------------------------------------------------------------------
def test_f11_orphan_is_an_extra_root() -> None:
    session = Session.from_bytes(jsonl(user("1", None), user("2", "missing", t=2)))
    assert [r.uid for r in session.roots] == ["1", "2"]
    assert [m.uid for m in build_context_entries(session, "2")] == ["2"]
    assert any(p.kind is ProblemKind.ORPHAN and p.line == 3 for p in session.problems)


# F12 --------------------------------------------------------------------------------------------
def test_f12_last_label_wins_and_absent_label_clears() -> None:
    labels = [entry("label", f"l{i}", "t", i + 2, targetId="t", label=v)
              for i, v in enumerate(["first", "second", "third"])]  # fmt: skip
    session = Session.from_bytes(jsonl(user("t", None), *labels))
    assert session.labels == {"t": "third"}
    assert session.label_times == {"t": ts(4)}
    cleared = Session.from_bytes(
        jsonl(user("t", None), *labels, entry("label", "l9", "l2", 9, targetId="t"))
    )
    assert cleared.labels == {} and cleared.label_times == {}


# F13 --------------------------------------------------------------------------------------------
def test_f13_labels_are_global_and_never_in_context() -> None:
    session = Session.from_bytes(
        jsonl(
            user("a", None),
            assistant("a2", "a"),
            user("b", None, t=3),
            entry("label", "l", "b", 4, targetId="a2", label="on A"),
        )
    )
    assert session.leaf_id == "l"
    assert session.labels == {"a2": "on A"}
    assert roles(session) == ["user"]


# F14 --------------------------------------------------------------------------------------------
def test_f14_latest_session_info_decides_and_trims() -> None:
    named = entry("session_info", "n1", "m1", 2, name="Named")
    cleared = entry("session_info", "n2", "n1", 3, name="")
    assert Session.from_bytes(jsonl(user("m1", None), named)).name == "Named"
    assert Session.from_bytes(jsonl(user("m1", None), named, cleared)).name is None
    spaced = entry("session_info", "n1", "m1", 2, name="  Spaced  ")
    assert Session.from_bytes(jsonl(user("m1", None), spaced)).name == "Spaced"
    feff = entry("session_info", "n1", "m1", 2, name="\ufeff\u3000x\u00a0")
    assert Session.from_bytes(jsonl(user("m1", None), feff)).name == "x"


# F15 --------------------------------------------------------------------------------------------
def test_f15_thinking_level_and_model_settings() -> None:
    session = Session.from_bytes(
        jsonl(
            user("1", None, "hello"),
            entry("thinking_level_change", "2", "1", 2, thinkingLevel="high"),
            assistant("3", "2", t=3),
        )
    )
    context = build_session_context(session)
    assert len(context.messages) == 2
    assert context.thinking_level == "high"
    assert context.model is not None and context.model.to_json() == {
        "provider": "anthropic", "modelId": "claude-test"}  # fmt: skip
    empty = Session.from_bytes(jsonl())
    context = build_session_context(empty)
    assert (context.messages, context.thinking_level, context.model) == ([], "off", None)


# F16 --------------------------------------------------------------------------------------------
def test_f16_last_model_on_path_wins() -> None:
    session = Session.from_bytes(
        jsonl(
            user("1", None),
            entry("model_change", "2", "1", 2, provider="openai", modelId="gpt-4"),
            assistant("3", "2", t=3, provider="anthropic", model="claude-test"),
        )
    )
    model = build_session_context(session).model
    assert model is not None and (model.provider, model.model_id) == ("anthropic", "claude-test")


# F17 --------------------------------------------------------------------------------------------
def test_f17_legacy_compaction_keeps_from_first_kept() -> None:
    base = chain(["first", "response1", "second", "response2"])
    comp = entry(
        "compaction", "m5", "m4", 5, summary="Summary…", firstKeptEntryId="m3", tokensBefore=9
    )
    rest = [user("m6", "m5", "third", t=6), assistant("m7", "m6", "response3", t=7)]
    session = Session.from_bytes(jsonl(*base, comp, *rest))
    assert roles(session) == ["compactionSummary", "user", "assistant", "user", "assistant"]
    assert texts(session) == ["Summary…", "second", "response2", "third", "response3"]


# F18 --------------------------------------------------------------------------------------------
def test_f18_only_latest_compaction_is_expanded() -> None:
    entries = [
        user("1", None, "a", t=1), assistant("2", "1", "b", t=2),
        entry("compaction", "3", "2", 3, summary="First", firstKeptEntryId="1", tokensBefore=1),
        user("4", "3", "c", t=4), assistant("5", "4", "d", t=5),
        entry("compaction", "6", "5", 6, summary="Second summary", firstKeptEntryId="4",
              tokensBefore=2),
        user("7", "6", "e", t=7),
    ]  # fmt: skip
    session = Session.from_bytes(jsonl(*entries))
    assert texts(session) == ["Second summary", "c", "d", "e"]


# F19, F20 ---------------------------------------------------------------------------------------
def _retained(tail: object, first_kept: str | None = None) -> Session:
    fields: dict[str, object] = {"summary": "S", "tokensBefore": 100, "retainedTail": tail}
    if first_kept is not None:
        fields["firstKeptEntryId"] = first_kept
    entries = [
        user("1", None, "A", t=1), assistant("2", "1", "B", t=2), user("3", "2", "C", t=3),
        entry("compaction", "K", "3", 4, **fields), user("5", "K", "D", t=5),
    ]  # fmt: skip
    return Session.from_bytes(jsonl(*entries))


def test_f19_retained_tail_is_a_checkpoint() -> None:
    tail = [
        {"role": "user", "content": "B"},
        {"role": "assistant", "content": [{"type": "text", "text": "C"}]},
    ]
    session = _retained(tail)
    assert texts(session) == ["S", "B", "C", "D"]
    assert [m.uid for m in build_context_entries(session)] == ["K", "5"]


def test_f20_empty_tail_counts_and_null_tail_does_not() -> None:
    assert texts(_retained([])) == ["S", "D"]
    session = _retained(None, first_kept="2")
    assert texts(session) == ["S", "B", "C", "D"]
    assert [m.uid for m in build_context_entries(session)] == ["K", "2", "3", "5"]


# F21 --------------------------------------------------------------------------------------------
def test_f21_branch_summary_in_context() -> None:
    entries = [
        user("1", None, t=1), assistant("2", "1", t=2), user("3", "2", "abandoned", t=3),
        entry("branch_summary", "4", "2", 4, fromId="2", summary="Summary of abandoned work"),
        user("5", "4", "new direction", t=5),
    ]  # fmt: skip
    session = Session.from_bytes(jsonl(*entries))
    assert roles(session) == ["user", "assistant", "branchSummary", "user"]
    empty = [*entries[:3], entry("branch_summary", "4", "2", 4, fromId="2", summary=""), entries[4]]
    assert roles(Session.from_bytes(jsonl(*empty))) == ["user", "assistant", "user"]


# F22 --------------------------------------------------------------------------------------------
def test_f22_unknown_leaf_falls_back_and_none_is_empty() -> None:
    session = Session.from_bytes(jsonl(*chain(["a", "b", "c"])))
    assert texts(session, "nonexistent") == ["a", "b", "c"]
    assert build_session_context(session, None).messages == []


# F23, F24 (SessionInfo of the listing) are tested with the store: tests/core/test_summary.py


# F29 --------------------------------------------------------------------------------------------
def test_f29_unterminated_last_line_waits(tmp_path: Path) -> None:
    complete = jsonl(user("m4", None))
    partial = b'{"type":"message","id":"m5","parentId":"m4","timestamp":"2025-0'
    path = write(tmp_path, complete + partial)
    session = Session.open(path, final=False)
    assert [m.uid for m in session.entries] == ["m4"]
    assert session.problems == [] and session.pending == len(partial)
    rest = orjson.dumps(user("m5", "m4", t=5))[len(partial) :] + b"\n"
    with open(path, "ab") as handle:
        handle.write(rest)
    result = session.refresh()
    assert result.kind == "grew" and [m.uid for m in result.new] == ["m5"]
    assert session.leaf_id == "m5" and meta(session, "m5").parent is session.get("m4")
    assert session.problems == []


def test_truncated_last_line_of_a_finished_file_is_reported() -> None:
    data = jsonl(user("m4", None)) + b'{"type":"message","id":"m5"'
    session = Session.from_bytes(data, final=True)
    assert [p.kind for p in session.problems] == [ProblemKind.TRUNCATED]
    terminated_ok = jsonl(user("m4", None)) + orjson.dumps(user("m5", "m4"))
    assert Session.from_bytes(terminated_ok, final=True).leaf_id == "m5"


# F30 --------------------------------------------------------------------------------------------
def test_f30_crlf_and_u2028() -> None:
    entries = chain(["line\u2028sep", "b", "c"])
    lf = Session.from_bytes(jsonl(*entries))
    crlf = Session.from_bytes(jsonl(*entries).replace(b"\n", b"\r\n"))
    assert [m.uid for m in crlf.entries] == [m.uid for m in lf.entries] == ["m1", "m2", "m3"]
    assert texts(crlf) == texts(lf) == ["line\u2028sep", "b", "c"]
    assert crlf.problems == []


# F31 --------------------------------------------------------------------------------------------
def test_f31_duplicate_ids() -> None:
    entries = [
        user("a", None, t=1), user("b", None, t=2),
        user("dup", "b", "first dup", t=3), user("dup", "a", "second dup", t=4),
        user("c", "dup", t=5),
    ]  # fmt: skip
    session = Session.from_bytes(jsonl(*entries))
    second = session.by_id["dup"]
    first = session.get("dup#4")
    assert first is not None and second.line == 5
    assert meta(session, "c").parent is second
    preorder = [m.uid for m, _ in session.iter_preorder()]
    assert preorder.count("dup") == 1 and preorder.count("dup#4") == 1
    assert first.parent is session.get("b") and second.parent is session.get("a")
    assert any(p.kind is ProblemKind.DUPLICATE_ID for p in session.problems)


# F32 --------------------------------------------------------------------------------------------
def test_f32_cycles_terminate() -> None:
    entries = [user("x", "x", t=1), user("p", "q", t=2), user("q", "p", t=3)]
    session = Session.from_bytes(jsonl(*entries))
    roots = [r.uid for r in session.roots]
    assert "x" in roots and ("p" in roots or "q" in roots)
    assert sorted(m.uid for m, _ in session.iter_preorder()) == ["p", "q", "x"]
    assert {p.kind for p in session.problems} >= {ProblemKind.SELF_PARENT, ProblemKind.CYCLE}
    for meta in session.entries:
        assert session.path_to(meta)[-1] is meta


# Other edge cases of format §14 -----------------------------------------------------------------
def test_bom_is_stripped_and_reported() -> None:
    session = Session.from_bytes(b"\xef\xbb\xbf" + jsonl(user("u", None)))
    assert session.id == HEADER["id"] and session.leaf_id == "u"
    assert [p.kind for p in session.problems] == [ProblemKind.BOM]


def test_v4_harness_file_is_refused() -> None:
    from pitui.core.session import UnsupportedFormatError

    with pytest.raises(UnsupportedFormatError, match="v4"):
        Session.from_bytes(b'{"kind":"header","version":4}\n')


def test_duplicate_header_is_reported_not_an_entry() -> None:
    session = Session.from_bytes(jsonl(orjson.loads(jsonl().strip()), user("u", None)))
    assert [m.uid for m in session.entries] == ["u"]
    assert [p.kind for p in session.problems] == [ProblemKind.DUPLICATE_HEADER]


def test_entry_without_id_is_an_orphan_root() -> None:
    no_id = {"type": "message", "parentId": None, "timestamp": ts(2),
             "message": {"role": "user", "content": "x"}}  # fmt: skip
    session = Session.from_bytes(jsonl(user("a", None), no_id))
    assert [r.uid for r in session.roots] == ["a", "#3"]
    assert any(p.kind is ProblemKind.MISSING_ID for p in session.problems)


def test_invalid_utf8_and_lone_surrogates_are_read() -> None:
    bad = orjson.dumps(user("u1", None, "caf\u00e9")).replace("\u00e9".encode(), b"\xff")
    lone = (
        b'{"type":"message","id":"u2","parentId":"u1","timestamp":"x",'
        b'"message":{"role":"user","content":"\\ud83d"}}'
    )
    session = Session.from_bytes(jsonl(bad, lone))
    assert [m.uid for m in session.entries] == ["u1", "u2"]
    assert texts(session) == ["caf\ufffd", "\ud83d"]


def test_non_object_json_lines_are_skipped() -> None:
    session = Session.from_bytes(jsonl(b"[1,2]", b"42", b'"s"', user("u", None)))
    assert [m.uid for m in session.entries] == ["u"]
    assert len([p for p in session.problems if p.kind is ProblemKind.MALFORMED]) == 3


def test_reading_never_writes(tmp_path: Path) -> None:
    header = {k: v for k, v in V1_HEADER.items()}
    data = jsonl({"type": "message", "timestamp": ts(1),
                  "message": {"role": "user", "content": "a"}},
                 header=header)  # fmt: skip
    path = write(tmp_path, data)
    mtime = path.stat().st_mtime_ns
    session = Session.open(path)
    build_session_context(session)
    session.close()
    assert path.read_bytes() == data and path.stat().st_mtime_ns == mtime
