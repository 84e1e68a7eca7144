"""The listing summary of one file (format §12.2): pi's oracle, F23/F24, incremental reading."""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path
from typing import Any

import orjson
import pytest

from pitui.core.content_text import joined_text
from pitui.core.file_summary import FileSummary, Resume, summarise_file
from pitui.core.js import utf16_len
from pitui.core.session import Session
from pitui.core.session_info import SessionInfo
from pitui.core.summary import NO_MESSAGES, SummaryState, dump_json, load_json
from tests.conftest import CORPORA, FIXTURES, PI_LISTED_KEYS, fixture_sessions
from tests.core.sessiondata import HEADER, assistant, chain, entry, jsonl, ts, user


def sha256_js(text: str) -> str:
    """sha256 of the text's UTF-8 as Node encodes it (a lone surrogate becomes U+FFFD)."""
    return hashlib.sha256(re.sub("[\ud800-\udfff]", "\ufffd", text).encode()).hexdigest()


def info_of(result: FileSummary) -> SessionInfo:
    assert result.row is not None, result
    info = SessionInfo.from_row(result.path, result.key[0], result.row)
    info.all_messages_text = result.search_text
    return info


def summarise_bytes(tmp_path: Path, data: bytes) -> FileSummary:
    path = tmp_path / "s.jsonl"
    path.write_bytes(data)
    return summarise_file(str(path))


def info_from_bytes(tmp_path: Path, data: bytes) -> SessionInfo:
    return info_of(summarise_bytes(tmp_path, data))


# ------------------------------------------------------------------------------ pi's own listing

ORACLE_CASES = [
    pytest.param(path, record["list"], id=f"{corpus}:{record['scenario']}")
    for corpus in CORPORA
    for path, record in fixture_sessions(corpus)
]


@pytest.mark.parametrize(("path", "expected"), ORACLE_CASES)
def test_fixture_list_record_matches_pi(path: Path, expected: dict[str, Any]) -> None:
    info = info_of(summarise_file(str(path)))
    got = info.to_json()
    assert {key: got[key] for key in PI_LISTED_KEYS} == {
        key: expected[key] for key in PI_LISTED_KEYS
    }
    assert info.text_length == expected["allMessagesTextLength"]
    assert info.all_messages_text is not None
    assert utf16_len(info.all_messages_text) == expected["allMessagesTextLength"]
    assert sha256_js(info.all_messages_text) == expected["allMessagesTextSha256"]


def _legacy_cases() -> list[Any]:
    expected = orjson.loads((FIXTURES / "pi-legacy" / "expected.json").read_bytes())
    return [
        pytest.param(FIXTURES / "pi-legacy" / name, record["list"], id=name)
        for name, record in sorted(expected["files"].items())
    ]


@pytest.mark.parametrize(("path", "expected"), _legacy_cases())
def test_legacy_v1_list_record_matches_pi(path: Path, expected: dict[str, Any]) -> None:
    info = info_of(summarise_file(str(path)))
    got = info.to_json()
    assert {key: got[key] for key in PI_LISTED_KEYS} == {
        key: expected[key] for key in PI_LISTED_KEYS
    }
    assert info.all_messages_text is not None
    assert sha256_js(info.all_messages_text) == expected["allMessagesTextSha256"]
    assert info.branch_count == 1  # a v1 file is one chain


SESSION_CASES = [
    pytest.param(path, id=f"{corpus}:{record['scenario']}")
    for corpus in CORPORA
    for path, record in fixture_sessions(corpus)
] + [pytest.param(FIXTURES / "pi-legacy" / "large-session.jsonl", id="legacy")]


@pytest.mark.parametrize("path", SESSION_CASES)
def test_extras_agree_with_the_session_reader(path: Path) -> None:
    """Branch count, labels, entry count, tokens and cost are what Session computes."""
    info = info_of(summarise_file(str(path)))
    with Session.open(path, final=True) as session:
        stats = session.stats()
        assert info.entry_count == len(session.entries)
        assert info.branch_count == sum(1 for m in session.entries if not m.children)
        assert info.labels == session.labels
        assert list(info.labels) == list(session.labels)
        assert info.total_tokens == int(stats.total_tokens)
        assert info.cost == stats.cost
        assistants = [m for m in session.entries if m.role == "assistant" and m.model]
        last = assistants[-1] if assistants else None
        expected = None if last is None else f"{last.provider}/{last.model}"
        assert info.last_model == expected
    assert info.size == path.stat().st_size


# ------------------------------------------------------------------------------ F23, F24


def test_f23_session_info(tmp_path: Path) -> None:
    image = {"type": "image", "data": "AAAA", "mimeType": "image/png"}
    first = user("u1", None, t=1)
    first["message"]["content"] = [
        image,
        {"type": "text", "text": "  hello"},
        {"type": "text", "text": "world"},
    ]
    reply = assistant(
        "a1",
        "u1",
        t=2,
        content=[{"type": "thinking", "thinking": "hmm"}, {"type": "text", "text": "hi"}],
    )
    tool = entry(
        "message",
        "t1",
        "a1",
        t=9,
        message={
            "role": "toolResult",
            "toolCallId": "c",
            "toolName": "bash",
            "content": [{"type": "text", "text": "tool output"}],
            "isError": False,
            "timestamp": 1735689600000 + 9000,
        },
    )
    bash = entry(
        "message",
        "b1",
        "t1",
        t=12,
        message={
            "role": "bashExecution",
            "command": "ls",
            "output": "x",
            "exitCode": 0,
            "timestamp": 1735689600000 + 12000,
        },
    )
    named = entry("session_info", "n1", "b1", t=13, name="Named")
    info = info_from_bytes(tmp_path, jsonl(first, reply, tool, bash, named))
    assert info.first_message == "  hello world"
    assert info.all_messages_text == "  hello world hi"
    assert info.message_count == 4
    assert info.modified_iso == ts(2)
    assert info.name == "Named"


def test_f24_header_only_and_labels_do_not_move_modified(tmp_path: Path) -> None:
    header = {**HEADER, "timestamp": "2024-06-01T00:00:00.000Z"}
    info = info_from_bytes(tmp_path, jsonl(header=header))
    assert info.message_count == 0
    assert info.first_message == NO_MESSAGES == "(no messages)"
    assert info.modified_iso == "2024-06-01T00:00:00.000Z"
    assert info.all_messages_text == ""
    before = info_from_bytes(tmp_path, jsonl(*chain(["a", "b"])))
    labelled = info_from_bytes(
        tmp_path,
        jsonl(*chain(["a", "b"]), entry("label", "l1", "m2", t=500, targetId="m1", label="x")),
    )
    assert labelled.modified == before.modified
    assert labelled.labels == {"m1": "x"}


# ------------------------------------------------------------------------------ the rules


def test_message_text_rule() -> None:
    assert joined_text("  spaced ") == "  spaced "
    assert (
        joined_text(
            [{"type": "text", "text": "a"}, {"type": "image"}, {"type": "text", "text": "b"}]
        )
        == "a b"
    )
    # JavaScript's join: a text block without text adds an empty piece, numbers are written out
    assert joined_text([{"type": "text"}, {"type": "text", "text": "b"}]) == " b"
    assert joined_text([{"type": "text", "text": 5}, {"type": "text", "text": 1.5}]) == "5 1.5"
    assert joined_text([{"type": "text", "text": None}]) == ""
    assert joined_text([{"type": "text", "text": True}, {"type": "text", "text": [1, None]}]) == (
        "true 1,"
    )
    assert joined_text([{"type": "text", "text": {"a": 1}}]) == "[object Object]"
    assert joined_text([{"type": "text", "text": 1e21}, {"type": "text", "text": 1e-7}]) == (
        "1e+21 1e-7"
    )
    assert joined_text([{"type": "text", "text": 0.000001}]) == "0.000001"
    assert joined_text(["text", None, 5, {"type": "thinking", "thinking": "x"}]) == ""
    assert joined_text(None) == joined_text(5) == joined_text({"text": "x"}) == ""


def test_modified_prefers_message_time_then_entry_time(tmp_path: Path) -> None:
    a = user("u1", None, t=1)
    b = assistant("a1", "u1", t=2)
    del b["message"]["timestamp"]  # falls back to the entry's ISO timestamp
    b["timestamp"] = ts(30)
    c = user("u2", "a1", t=3)
    c["message"]["timestamp"] = "not a number"
    c["timestamp"] = ts(20)  # a string message timestamp: the entry time counts
    info = info_from_bytes(tmp_path, jsonl(a, b, c))
    assert info.modified_iso == ts(30)
    late_tool = entry("message", "t1", "u2", t=99, message={"role": "toolResult", "content": []})
    no_content = user("u3", "t1", t=200)
    del no_content["message"]["content"]  # not a message "with content": no activity
    info = info_from_bytes(tmp_path, jsonl(a, b, c, late_tool, no_content))
    assert info.modified_iso == ts(30)


def test_modified_falls_back_to_header_then_mtime(tmp_path: Path) -> None:
    zero = user("u1", None, t=1)
    zero["message"]["timestamp"] = -5  # pi's max starts at 0: no positive activity time
    info = info_from_bytes(tmp_path, jsonl(zero))
    assert info.modified_iso == HEADER["timestamp"]
    header = {**HEADER, "timestamp": "garbage"}
    path = tmp_path / "s.jsonl"
    path.write_bytes(jsonl(header=header))
    os.utime(path, ns=(1_700_000_000_123_456_789, 1_700_000_000_123_456_789))
    info = info_of(summarise_file(str(path)))
    assert info.modified == 1_700_000_000_123
    assert info.created is None
    numeric = {**HEADER, "timestamp": 1735689600000}  # new Date(number) is a date for `created`
    path.write_bytes(jsonl(header=numeric))
    os.utime(path, ns=(1_700_000_000_000_000_000, 1_700_000_000_000_000_000))
    info = info_of(summarise_file(str(path)))
    assert info.created == "2025-01-01T00:00:00.000Z"
    assert info.modified == 1_700_000_000_000  # but only a string header time is a fallback


def test_out_of_range_times_are_ignored(tmp_path: Path) -> None:
    a = user("u1", None, t=1)
    b = assistant("a1", "u1", t=2)
    b["message"]["timestamp"] = 1e300  # an Invalid Date in JavaScript
    info = info_from_bytes(tmp_path, jsonl(a, b))
    assert info.modified_iso == ts(1)


def test_name_latest_wins_and_blank_clears(tmp_path: Path) -> None:
    m = chain(["a"])
    named = entry("session_info", "n1", "m1", name="  First  ")
    assert info_from_bytes(tmp_path, jsonl(*m, named)).name == "First"
    cleared = entry("session_info", "n2", "n1", name="   ")
    assert info_from_bytes(tmp_path, jsonl(*m, named, cleared)).name is None
    odd = entry("session_info", "n2", "n1", name=5)
    assert info_from_bytes(tmp_path, jsonl(*m, named, odd)).name is None
    again = entry("session_info", "n3", "n2", name="Second\nline")
    assert info_from_bytes(tmp_path, jsonl(*m, named, cleared, again)).name == "Second\nline"


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"\n  \n",
        b'{"type":"message","id":"1"}\n',
        b"not json\n" + jsonl(header={"type": "model_change", "id": "x"}),
        jsonl(*chain(["a"]), header={"type": "title", "title": "t"}),
    ],
    ids=["empty", "blank", "no-header", "first-object-not-header", "no-header-after-a-line"],
)
def test_not_a_session(tmp_path: Path, data: bytes) -> None:
    result = summarise_bytes(tmp_path, data)
    assert result.row is None and result.error is None


@pytest.mark.parametrize(
    ("data", "problem", "session_id"),
    [
        (jsonl(*chain(["a", "b"]), header={**HEADER, "id": 5}), "no-id", ""),
        (jsonl(*chain(["a", "b"]), header={k: v for k, v in HEADER.items() if k != "id"}),
         "no-id", ""),
        (b'{"type":"title","title":"A fork\'s title"}\n' + jsonl(*chain(["a", "b"])),
         "line-before-header", HEADER["id"]),
    ],
    ids=["non-string-id", "no-id", "line-before-header"],
)  # fmt: skip
def test_a_header_pi_cannot_resume_is_listed_and_marked(
    tmp_path: Path, data: bytes, problem: str, session_id: str
) -> None:
    # pi's /resume lists a header without id (it checks only the first object's type), where
    # picking it costs the file (0.73.1) or is refused (1.6.0); a fork writes a title line first.
    # Both are listed, marked, and the mark survives the index's row and the resumable state.
    info = info_from_bytes(tmp_path, data)
    assert (info.header_problem, info.id, info.message_count) == (problem, session_id, 2)
    assert info.to_json()["headerProblem"] == problem
    assert info.to_json()["id"] == (None if problem == "no-id" else session_id)
    row = SessionInfo.from_row(info.path, info.size, load_json(dump_json(info.to_row())))
    assert row.header_problem == problem
    half = data.rindex(b"\n", 0, len(data) - 1) + 1  # the last line appended later
    state = SummaryState()
    state.feed(data[:half])
    resumed = SummaryState.from_json(load_json(dump_json(state.to_json())), state.text)
    resumed.feed(data, half)
    resumed_info = resumed.info(info.path, len(data), 0)
    assert resumed_info is not None
    assert (resumed_info.header_problem, resumed_info.message_count) == (problem, 2)


def test_header_after_garbage_and_bom_and_crlf(tmp_path: Path) -> None:
    data = b"\xef\xbb\xbf" + jsonl(*chain(["a", "b"])).replace(b"\n", b"\r\n")
    info = info_from_bytes(tmp_path, b"garbage line\n" + data[3:])
    assert info.message_count == 2
    info = info_from_bytes(tmp_path, data)
    assert info.message_count == 2 and info.first_message == "a"


def test_malformed_lines_and_non_objects_are_skipped(tmp_path: Path) -> None:
    lines = [*chain(["a", "b"])]
    data = jsonl(lines[0], b"{broken", b"[1, 2]", b"null", lines[1])
    info = info_from_bytes(tmp_path, data)
    assert info.message_count == 2
    assert info.all_messages_text == "a b"


def test_hostile_values_do_not_drop_the_file(tmp_path: Path) -> None:
    odd_content = user("u1", None, t=1)
    odd_content["message"]["content"] = 5
    not_a_dict = entry("message", "x1", "u1", message="just a string")
    odd_blocks = user("u2", "x1", t=3)
    odd_blocks["message"]["content"] = [None, "s", {"type": "text", "text": "ok"}]
    info = info_from_bytes(tmp_path, jsonl(odd_content, not_a_dict, odd_blocks))
    assert info.message_count == 3
    assert info.first_message == "ok"


def test_duplicate_header_line_is_ignored(tmp_path: Path) -> None:
    second = {**HEADER, "id": "other"}
    info = info_from_bytes(tmp_path, jsonl(*chain(["a"]), second, *chain(["b"])[0:0]))
    assert info.id == HEADER["id"] and info.entry_count == 1


def test_lone_surrogates_survive(tmp_path: Path) -> None:
    line = (
        b'{"type":"message","id":"u1","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z",'
        b'"message":{"role":"user","content":"x \\ud83d y","timestamp":1735689601000}}'
    )
    result = summarise_bytes(tmp_path, jsonl(line))
    info = info_of(result)
    assert info.first_message == "x \ud83d y"
    assert info.text_length == 5
    row = load_json(dump_json(info.to_row()))
    assert row[8] == "x \ud83d y"


def test_branch_count_counts_leaves(tmp_path: Path) -> None:
    m = chain(["a", "b", "c"])
    fork = user("f1", "m1", t=9)
    orphan = user("o1", "missing", t=10)
    no_id = {"type": "message", "timestamp": ts(11), "message": {"role": "user", "content": "z"}}
    info = info_from_bytes(tmp_path, jsonl(*m, fork, orphan, no_id))
    assert info.branch_count == 4  # m3, f1, o1 and the entry without id
    # a child written before its parent (hand-edited files): the parent is still no leaf
    info = info_from_bytes(tmp_path, jsonl(user("k", "p", t=1), user("p", None, t=2)))
    assert info.branch_count == 1


# ------------------------------------------------------------------------------ incremental


def _sample_files() -> list[Path]:
    picked = []
    for corpus in CORPORA:
        for path, record in fixture_sessions(corpus):
            if record["scenario"] in (
                "branches",
                "labels",
                "unicode",
                "name-cleared",
                "lone-surrogates",
                "compaction",
                "real-tools",
            ):
                picked.append(path)
    return picked


@pytest.mark.parametrize(
    "path", _sample_files(), ids=lambda p: p.parent.parent.parent.parent.name + ":" + p.name[:30]
)
def test_feeding_from_any_line_boundary_gives_the_same_summary(path: Path) -> None:
    data = path.read_bytes()
    whole = SummaryState()
    whole.feed(data)
    expected = whole.info(str(path), len(data), 0)
    assert expected is not None
    boundaries = [i + 1 for i, byte in enumerate(data) if byte == 0x0A]
    step = max(1, len(boundaries) // 25)
    for cut in boundaries[::step]:
        first = SummaryState()
        assert first.feed(data[:cut]) == cut
        # through the serialised form, as the index stores it
        resumed = SummaryState.from_json(load_json(dump_json(first.to_json())), first.text)
        assert resumed.feed(data, cut) == len(data)
        got = resumed.info(str(path), len(data), 0)
        assert got is not None
        assert got.to_json() == expected.to_json()
        assert got.all_messages_text == expected.all_messages_text


def test_resume_reads_only_the_appended_lines(tmp_path: Path) -> None:
    lines = chain(["one", "two", "three", "four"])
    path = tmp_path / "s.jsonl"
    path.write_bytes(jsonl(*lines[:2]))
    first = summarise_file(str(path))
    assert not first.resumed and first.offset == path.stat().st_size
    with open(path, "ab") as handle:
        handle.write(jsonl(*lines[2:], header=None))
    resume = Resume(first.offset, first.head, first.seam, first.state, first.text)
    second = summarise_file(str(path), resume)
    assert second.resumed
    fresh = summarise_file(str(path))
    assert info_of(second).to_json() == info_of(fresh).to_json()
    assert second.text == fresh.text == "one two three four"


@pytest.mark.parametrize(("path", "expected"), ORACLE_CASES[::3])
def test_a_summary_without_texts_lists_the_same(path: Path, expected: dict[str, Any]) -> None:
    with_texts = summarise_file(str(path))
    without = summarise_file(str(path), texts=False)
    assert without.row == with_texts.row  # allMessagesTextLength included
    assert without.listing == with_texts.listing
    assert without.search_text is None and with_texts.search_text is not None


def test_a_resume_without_texts_is_not_used_when_texts_are_asked_for(tmp_path: Path) -> None:
    lines = chain(["one", "two", "three", "four"])
    path = tmp_path / "s.jsonl"
    path.write_bytes(jsonl(*lines[:2]))
    first = summarise_file(str(path), texts=False)
    with open(path, "ab") as handle:
        handle.write(jsonl(*lines[2:], header=None))
    resume = Resume(first.offset, first.head, first.seam, first.state, first.text)
    still_without = summarise_file(str(path), resume, texts=False)
    assert still_without.resumed and still_without.search_text is None
    with_texts = summarise_file(str(path), resume, texts=True)
    assert not with_texts.resumed and with_texts.search_text == "one two three four"
    assert with_texts.row == still_without.row


@pytest.mark.parametrize("change", ["truncate", "rewrite-header", "rewrite-middle"])
def test_resume_notices_a_file_that_did_not_only_grow(tmp_path: Path, change: str) -> None:
    lines = chain(["one", "two", "three"])
    path = tmp_path / "s.jsonl"
    path.write_bytes(jsonl(*lines))
    first = summarise_file(str(path))
    resume = Resume(first.offset, first.head, first.seam, first.state, first.text)
    if change == "truncate":
        path.write_bytes(jsonl(*lines[:1]))
    elif change == "rewrite-header":
        path.write_bytes(
            jsonl(*lines, *chain(["x"])[0:0], header={**HEADER, "id": "other"})
            + jsonl(user("z", "m3", "more", t=9), header=None)
        )
    else:
        changed = [*lines[:2], assistant("m3", "m2", "THREE", t=3)]
        path.write_bytes(jsonl(*changed) + jsonl(user("z", "m3", "more", t=9), header=None))
    second = summarise_file(str(path), resume)
    assert not second.resumed
    assert info_of(second).to_json() == info_of(summarise_file(str(path))).to_json()


def test_unterminated_last_line_counts_only_when_it_parses(tmp_path: Path) -> None:
    lines = chain(["a", "b"])
    complete = jsonl(*lines)
    extra = orjson.dumps(user("m3", "m2", "c", t=3))
    result = summarise_bytes(tmp_path, complete + extra)
    assert info_of(result).message_count == 3
    assert result.offset == len(complete)  # the state stops before the unterminated line
    assert info_of(result).all_messages_text == "a b c"
    partial = summarise_bytes(tmp_path, complete + extra[:30])
    assert info_of(partial).message_count == 2
    # once the line is finished, resuming from the stored offset reads it
    path = tmp_path / "s.jsonl"
    resume = Resume(partial.offset, partial.head, partial.seam, partial.state, partial.text)
    path.write_bytes(complete + extra + b"\n")
    assert info_of(summarise_file(str(path), resume)).message_count == 3


def test_header_being_written(tmp_path: Path) -> None:
    header = orjson.dumps(HEADER)
    result = summarise_bytes(tmp_path, header[:20])
    assert result.row is None and result.offset == 0
    assert summarise_bytes(tmp_path, header).row is not None  # a complete header, no newline


def test_long_lines_across_chunks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import pitui.core.jsonl as reader

    monkeypatch.setattr(reader, "CHUNK_SIZE", 64)
    big = user("m1", None, "x" * 1000, t=1)
    data = jsonl(big, *chain(["", "b", "c"])[1:])
    info = info_from_bytes(tmp_path, data)
    assert info.message_count == 3
    assert info.all_messages_text == "x" * 1000 + " b c"


def test_search_text_cap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import pitui.core.summary as summary

    monkeypatch.setattr(summary, "SEARCH_TEXT_CAP", 10)
    info = info_from_bytes(tmp_path, jsonl(*chain(["abcdef", "ghijkl", "mno"])))
    assert info.all_messages_text == "abcdef ghi"
    assert info.text_length == len("abcdef ghijkl mno")  # the length still covers everything


# ------------------------------------------------------------------------------ pi itself


def _hostile_agent(root: Path) -> Path:
    """Files pi 0.73.1 lists without throwing, each stressing one reading rule."""
    folder = root / "agent" / "sessions" / "--home-ana-proj--"
    folder.mkdir(parents=True)
    base = chain(["first", "second", "third"])

    def put(name: str, data: bytes) -> None:
        (folder / f"{name}.jsonl").write_bytes(data)

    def hdr(sid: str, **extra: Any) -> dict[str, Any]:
        return {**HEADER, "id": sid, **extra}

    put("malformed", jsonl(base[0], b"{not json", b"", b"   ", base[1], header=hdr("a")))
    put("crlf", jsonl(*base, header=hdr("b")).replace(b"\n", b"\r\n"))
    put("bom", b"\xef\xbb\xbf" + jsonl(*base, header=hdr("c")))
    put("dup-header", jsonl(base[0], hdr("other"), base[1], header=hdr("d")))
    odd = user("u9", "m3", t=9)
    odd["message"]["content"] = [{"type": "text"}, {"type": "text", "text": 7}, {"type": "image"}]
    put("odd-blocks", jsonl(*base, odd, header=hdr("e")))
    late = user("u8", "m3", "late text", t=8)
    del late["message"]["timestamp"]
    late["timestamp"] = ts(4000)
    put("entry-time", jsonl(*base, late, header=hdr("f")))
    tool = entry("message", "t1", "m3", t=9000, message={"role": "toolResult", "content": []})
    put("tool-later", jsonl(*base, tool, header=hdr("g")))
    put(
        "names",
        jsonl(
            *base,
            entry("session_info", "n1", "m3", name="  A name "),
            entry("session_info", "n2", "n1", name="  "),
            header=hdr("h"),
        ),
    )
    put(
        "named", jsonl(*base, entry("session_info", "n1", "m3", name="Kept\nname"), header=hdr("i"))
    )
    put("no-cwd", jsonl(*base, header={k: v for k, v in hdr("j").items() if k != "cwd"}))
    put("tail", jsonl(*base, header=hdr("k")) + orjson.dumps(user("u7", "m3", "tail", t=7)))
    put("garbage-first", b"garbage\n" + jsonl(*base, header=hdr("l")))
    put("not-a-session", jsonl(*base, header=None))
    put("empty", b"")
    put("header-only", jsonl(header=hdr("m", timestamp="2024-06-01T00:00:00.000Z")))
    put("bad-header-time", jsonl(*base, header=hdr("n", timestamp="yesterday")))
    surrogate = (
        b'{"type":"message","id":"s1","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z",'
        b'"message":{"role":"user","content":"half \\ud83d emoji","timestamp":1735689601000}}'
    )
    put("surrogate", jsonl(surrogate, header=hdr("o")))
    put("unicode", jsonl(*chain(["日本語 🙂 text", "ok"]), header=hdr("p", cwd="/home/ana/我的")))
    put("parent", jsonl(*base, header=hdr("q", parentSession="/some/where.jsonl")))
    return root / "agent"


def test_hostile_listing_agrees_with_pi(tmp_path: Path) -> None:
    from tests.interop.pi_oracle import PiOracleError, ensure_pi

    oracle, reason = ensure_pi()
    if oracle is None:
        if os.environ.get("PITUI_REQUIRE_PI_ORACLE") == "1":
            pytest.fail(f"pi oracle required but unavailable: {reason}")
        pytest.skip(f"pi oracle unavailable: {reason}")
    agent = _hostile_agent(tmp_path)
    try:
        expected = {record["path"]: record for record in oracle.list_sessions(agent)}
    except PiOracleError as exc:  # pragma: no cover - depends on the machine
        pytest.fail(str(exc))
    folder = agent / "sessions" / "--home-ana-proj--"
    listed: dict[str, SessionInfo] = {}
    for file in sorted(folder.iterdir()):
        result = summarise_file(str(file))
        if result.row is not None:
            listed[str(file)] = info_of(result)
    assert sorted(listed) == sorted(expected)
    for path, info in listed.items():
        got = {**info.to_json(), "allMessagesTextSha256": sha256_js(info.all_messages_text or "")}
        want = expected[path]
        for key in (*PI_LISTED_KEYS, "allMessagesTextLength", "allMessagesTextSha256"):
            assert got[key] == want[key], (os.path.basename(path), key)
