"""The one-pass loader (``Session._load_fast``) builds exactly what the plain reference loader does.

The reference (``_FAST_LOAD = False``: each line parsed whole, ``records.make_meta``, then index
and link) is the readable statement of the rules; the fast loader inlines all of it for speed
(issue 2). Every field of every entry, the links, roots, labels, name, tool-call map, problems
(line, offset, reason, order) and the read position must agree, on real files and on hostile
and damaged ones.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import msgspec
import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pitui.core import session as session_module
from pitui.core.js import JS_WHITESPACE, js_trim
from pitui.core.records import visible_text
from pitui.core.session import NO_PARENT_KEY, EntryMeta, Session, SessionError
from tests.conftest import FIXTURES
from tests.core.sessiondata import HEADER, chain, jsonl, ts, user
from tests.core.test_damage_property import damaged_file
from tests.core.test_hostile_input import JSONISH, hostile_entry


@contextmanager
def reference_loader() -> Iterator[None]:
    saved = session_module._FAST_LOAD
    session_module._FAST_LOAD = False
    try:
        yield
    finally:
        session_module._FAST_LOAD = saved


def snapshot(session: Session) -> dict[str, Any]:
    def uid(meta: Any) -> str | None:
        return None if meta is None else str(meta.uid)

    for meta in session.entries:
        for name in EntryMeta.__slots__:
            getattr(meta, name)  # the fast loader sets every field itself: none left unset

    entries = [
        (
            m.uid, m.id, "<absent>" if m.parent_id is NO_PARENT_KEY else repr(m.parent_id),
            m.type, m.timestamp, m.line, m.offset, m.length, m.role, repr(m.usage),
            repr(m.info), uid(m.parent), [c.uid for c in m.children or ()],
        )
        for m in session.entries
    ]  # fmt: skip
    return {
        "entries": entries,
        "roots": [m.uid for m in session.roots],
        "by_id": {k: m.uid for k, m in session.by_id.items()},
        "by_uid": {k: m.uid for k, m in session.by_uid.items()},
        "labels": list(session.labels.items()),
        "label_times": list(session.label_times.items()),
        "name": session.name,
        "tool_calls": list(session.tool_calls.items()),
        "problems": [(p.kind, p.line, p.offset, p.reason) for p in session.problems],
        "end": (session.end_offset, session.next_line, session.pending),
        "header": session.header,
        "version": session.original_version,
        "header_line": session._header_line,
        "v1_chain": session._v1_chain,
    }


def outcome(data: bytes, *, final: bool) -> Any:
    try:
        return snapshot(Session.from_bytes(data, final=final))
    except SessionError as exc:
        return (type(exc).__name__, str(exc))


def assert_same(data: bytes, *, final: bool = True) -> None:
    fast = outcome(data, final=final)
    with reference_loader():
        reference = outcome(data, final=final)
    assert fast == reference


def _fixture_files() -> list[Path]:
    return sorted(p for p in FIXTURES.rglob("*.jsonl") if p.is_file())


@pytest.mark.parametrize("path", _fixture_files(), ids=lambda p: str(p.relative_to(FIXTURES)))
def test_fixture_files_load_the_same(path: Path) -> None:
    data = path.read_bytes()
    assert_same(data)
    assert_same(data, final=False)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), final=st.booleans())
def test_damaged_files_load_the_same(data: st.DataObject, final: bool) -> None:
    content, _ = damaged_file(data)
    assert_same(content, final=final)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    entries=st.lists(hostile_entry(), max_size=12),
    version=st.sampled_from([None, 1, 2, 3, "3"]),
    cut=st.integers(min_value=0),
    junk=st.binary(max_size=20),
    final=st.booleans(),
)
def test_hostile_files_load_the_same(
    entries: list[dict[str, Any]], version: Any, cut: int, junk: bytes, final: bool
) -> None:
    header = dict(HEADER)
    if version is None:
        del header["version"]
    else:
        header["version"] = version
    data = b"".join(json.dumps(e).encode() + b"\n" for e in [header, *entries])
    if junk:
        cut %= len(data) + 1
        data = data[:cut] + junk + data[cut:]
    assert_same(data, final=final)


@settings(max_examples=150, deadline=None)
@given(data=st.binary(max_size=300), final=st.booleans())
def test_random_bytes_load_the_same(data: bytes, final: bool) -> None:
    assert_same(b"\xef\xbb\xbf" + jsonl() + data, final=final)
    assert_same(data, final=final)


# The fields the index keeps of messages, with the odd values a file may hold.
WHITE = st.text(alphabet=st.sampled_from(JS_WHITESPACE + "\x1c\x1f\x85 a"), max_size=4)
BLOCK = st.one_of(
    st.builds(lambda t: {"type": "text", "text": t}, st.one_of(WHITE, JSONISH)),
    st.builds(lambda i: {"type": "toolCall", "id": i}, st.one_of(st.text(), JSONISH)),
    st.builds(lambda t: {"type": "thinking", "thinking": t}, WHITE),
    JSONISH,
)  # fmt: skip
MESSAGE = st.fixed_dictionaries(
    {"role": st.sampled_from(["assistant", "toolResult", "user", "custom", "hookMessage", "x"])},
    optional={
        "content": st.one_of(WHITE, st.lists(BLOCK, max_size=4), JSONISH),
        "provider": JSONISH,
        "model": JSONISH,
        "stopReason": JSONISH,
        "toolCallId": JSONISH,
        "customType": JSONISH,
        "usage": st.one_of(
            JSONISH,
            st.fixed_dictionaries(
                {},
                optional={
                    "input": JSONISH,
                    "output": st.integers(),
                    "totalTokens": st.floats(),
                    "cost": st.one_of(JSONISH, st.fixed_dictionaries({"total": JSONISH})),
                },
            ),
        ),
    },
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(messages=st.lists(st.one_of(MESSAGE, JSONISH), min_size=1, max_size=8))
def test_message_fields_load_the_same(messages: list[Any]) -> None:
    lines = [orjson.dumps(HEADER)]
    parent = None
    for n, message in enumerate(messages):
        eid = f"m{n}"
        lines.append(json.dumps({"type": "message", "id": eid, "parentId": parent,
                                 "timestamp": ts(n), "message": message}).encode())  # fmt: skip
        parent = eid
    assert_same(b"\n".join(lines) + b"\n")


def test_a_tree_with_branches_labels_and_a_name_loads_the_same() -> None:
    rows: list[dict[str, Any]] = [HEADER]
    for n in range(40):
        parent = None if n == 0 else f"e{(n * 7) % n}" if n % 3 == 0 else f"e{n - 1}"
        rows.append(
            {
                "type": "message",
                "id": f"e{n}",
                "parentId": parent,
                "timestamp": ts(40 - n),
                "message": {
                    "role": "assistant",
                    "content": [
                        {"type": "toolCall", "id": f"c{n % 5}"},
                        {"type": "text", "text": " x"},
                    ],
                },
            }
        )
        if n % 4 == 0:
            rows.append(
                {
                    "type": "label",
                    "id": f"l{n}",
                    "parentId": f"e{n}",
                    "timestamp": ts(n),
                    "targetId": f"e{n // 2}",
                    "label": n % 8 or None,
                }
            )
        if n % 10 == 0:
            rows.append(
                {
                    "type": "session_info",
                    "id": f"s{n}",
                    "parentId": f"e{n}",
                    "timestamp": ts(n),
                    "name": f" name {n} ",
                }
            )
    rows.append({"type": "label", "id": "lx", "parentId": "e39", "timestamp": ts(1),
                 "targetId": "nowhere", "label": "lost"})  # fmt: skip
    data = jsonl(*(orjson.dumps(r) for r in rows))
    assert_same(data)
    session = Session.from_bytes(data)
    assert session.name == "name 30"
    assert session.tool_calls["c0"] == "e35"


def test_maps_shared_after_a_clean_load_part_when_growth_brings_odd_ids(tmp_path: Path) -> None:
    # A clean load keeps one dict for by_id and by_uid; an appended duplicate id or an entry
    # without one must split them, leaving both as a fresh read of the whole file has them.
    path = tmp_path / "s.jsonl"
    path.write_bytes(jsonl(*chain(["a", "b", "c"])))
    session = Session.open(path, final=True)
    assert session.by_uid is session.by_id
    grown = jsonl(user("m2", "m3", "again", t=4), {"type": "message", "parentId": "m2",
                  "timestamp": ts(5), "message": {"role": "user", "content": "no id"}},
                  header=None)  # fmt: skip
    with open(path, "ab") as handle:
        handle.write(grown)
    os.utime(path, (1_700_000_000, 1_700_000_000))
    assert session.refresh().kind == "grew"
    fresh = Session.open(path, final=True)
    assert session.by_uid is not session.by_id
    assert {k: m.line for k, m in session.by_id.items()} == {
        k: m.line for k, m in fresh.by_id.items()
    }
    assert {k: m.line for k, m in session.by_uid.items()} == {
        k: m.line for k, m in fresh.by_uid.items()
    }
    assert "m2#3" in session.by_uid and session.by_id["m2"].line == 5


# What msgspec (pitui.core.records) reads differently from a whole parse, each case sent to the
# reference path: the index must not tell.
RECORD_EDGES = [
    # bytes that are not UTF-8 in a value the typed decode skips: reported, as a whole parse does
    b'{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"user",'
    b'"content":[{"type":"text","text":"caf\xe9"}]}}',
    b'{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"assistant",'
    b'"content":[{"type":"thinking","thinking":"\xff\xfe"}]}}',
    # an integer past 64 bits: a double for JSON.parse, a whole int for msgspec
    b'{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"assistant",'
    b'"usage":{"input":123456789012345678901234567890,"cost":{"total":18446744073709551616}}}}',
    b'{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"toolResult",'
    b'"toolCallId":"c","usage":{"output":9223372036854775808}}}',
    # a text block whose visibility is decided past its first byte
    b'{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"assistant",'
    b'"content":[{"type":"text","text":"\\u00a0\\n "},{"type":"text","text":"\\u2028x"}]}}',
    b'{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"assistant",'
    b'"content":[{"type":"text","text":"\xe2\x80\x83"},{"type":"text","text":5}]}}',
    # a lone surrogate in a skipped value; a value of another type where a string is declared
    b'{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"user",'
    b'"content":"\\ud83d"}}',
    b'{"type":"message","id":"a","parentId":7,"timestamp":"t","message":{"role":"user"}}',
    b'{"type":"message","id":"a","timestamp":"t","message":{"role":"user"}}',
    b'{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"assistant",'
    b'"model":["m"],"usage":{"input":true}}}',
    # what the tagged unions (by role, by block type) refuse: another role, another block type,
    # a block without a type, a key written twice (JSON.parse keeps the last one)
    b'{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"bashExecution",'
    b'"command":"ls","output":"x"}}',
    b'{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"assistant",'
    b'"content":[{"type":"image","data":"AA=="},{"type":"toolCall","id":"c1"}]}}',
    b'{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"assistant",'
    b'"content":[{"text":"no type"},{"type":"text","text":"x"}]}}',
    b'{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"user",'
    b'"role":"assistant","stopReason":"error","content":[{"type":"thinking","type":"toolCall",'
    b'"id":"c2"}]}}',
    b'{"type":"message","type":"label","id":"a","parentId":null,"timestamp":"t","targetId":"a",'
    b'"label":"x","message":{"role":"user"}}',
]


@pytest.mark.parametrize("line", RECORD_EDGES)
def test_what_the_typed_decode_leaves_to_the_reference_loads_the_same(line: bytes) -> None:
    data = orjson.dumps(HEADER) + b"\n" + line + b"\n" + line.replace(b'"a"', b'"b"', 1)
    assert_same(data)
    assert_same(data + b"\n" + line, final=False)


def test_bytes_that_are_not_utf8_in_a_skipped_value_are_reported() -> None:
    session = Session.from_bytes(orjson.dumps(HEADER) + b"\n" + RECORD_EDGES[1] + b"\n")
    assert [p.kind.value for p in session.problems] == ["invalid-utf8"]
    assert session.entries[0].role == "assistant"


def _read_in_chunks(data: bytes, chunk: int, *, final: bool) -> Any:
    """The outcome of reading ``data`` from a file, ``chunk`` bytes a read."""
    from pitui.core import jsonl

    saved = jsonl.CHUNK_SIZE
    jsonl.CHUNK_SIZE = chunk
    try:
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "s.jsonl")
            with open(path, "wb") as handle:
                handle.write(data)
            try:
                read = snapshot(Session.open(path, final=final))
            except SessionError as exc:
                return (type(exc).__name__, str(exc).replace(path, "<memory>"))
    finally:
        jsonl.CHUNK_SIZE = saved
    return read


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), chunk=st.sampled_from([1, 2, 7, 64, 4096]), final=st.booleans())
def test_a_file_read_in_chunks_is_read_as_its_bytes(
    data: st.DataObject, chunk: int, final: bool
) -> None:
    # lines across reads, lines longer than a read, a BOM, an unterminated last line
    content, _ = damaged_file(data)
    content = data.draw(st.sampled_from([b"", b"\xef\xbb\xbf"])) + content
    assert _read_in_chunks(content, chunk, final=final) == outcome(content, final=final)


@pytest.mark.parametrize("path", _fixture_files()[:40], ids=lambda p: str(p.relative_to(FIXTURES)))
def test_fixture_files_read_in_chunks_are_read_as_their_bytes(path: Path) -> None:
    data = path.read_bytes()
    assert _read_in_chunks(data, 100, final=True) == outcome(data, final=True)


@settings(max_examples=300, deadline=None)
@given(
    text=st.text(alphabet=st.sampled_from(JS_WHITESPACE + '\x08\x0b\x1c\x85"\\/ aé\u3000'),
                 max_size=90),
    ascii_only=st.booleans(),
)  # fmt: skip
def test_visible_text_is_js_trim_of_the_raw_string(text: str, ascii_only: bool) -> None:
    # read from the raw JSON's first bytes (spaces, escapes of white space), decoded past them
    raw = msgspec.json.decode(
        b'{"t":' + json.dumps(text, ensure_ascii=ascii_only).encode() + b"}",
        type=dict[str, msgspec.Raw],
    )["t"]
    assert visible_text(raw) is bool(js_trim(text))


def test_a_line_longer_than_a_read_is_read_once_and_not_copied(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # it was read again at twice the size until it fitted, then copied into its line: three
    # times its size in memory at once (a 150 MB message: 300 MB to open; now 160)
    from pitui.core import jsonl as reader

    monkeypatch.setattr(reader, "CHUNK_SIZE", 64)
    long = user("m1", None, "x" * 2_000)
    path = tmp_path / "s.jsonl"
    path.write_bytes(jsonl(long, user("m2", "m1", "after", t=2)))
    sizes: list[int] = []
    pread = os.pread

    def counted(fd: int, size: int, offset: int) -> bytes:
        sizes.append(size)
        return pread(fd, size, offset)

    monkeypatch.setattr(os, "pread", counted)
    session = Session.open(path, final=True)
    assert [m.uid for m in session.entries] == ["m1", "m2"]
    first = session.entries[0]
    assert max(sizes) == first.length + 1  # the long line in one read of its length
    with open(path, "rb") as handle:
        lines = reader.Lines(handle.fileno(), final=True)
        next(iter(lines))  # (the header, read by iterating)
        _, offset, batch = next(lines.batches())
        assert offset == first.offset and len(batch) == 1
        assert batch[0] == pread(handle.fileno(), first.length + 1, first.offset)


def test_a_file_cut_short_while_a_long_line_is_read_ends_the_read(tmp_path: Path) -> None:
    # the reader asked again and again for the rest of a line the file no longer had
    import threading

    from pitui.core import jsonl as reader

    path = tmp_path / "s.jsonl"
    path.write_bytes(jsonl(user("m1", None, "x" * 3 * reader.CHUNK_SIZE)))
    with open(path, "rb") as handle:
        lines = reader.Lines(handle.fileno(), final=True)  # (its size taken now)
        next(iter(lines))
        os.truncate(path, lines.end_offset + reader.CHUNK_SIZE + 10)  # mid-line, past a read
        thread = threading.Thread(target=lambda: list(lines.batches()), daemon=True)
        thread.start()
        thread.join(timeout=10)
        assert not thread.is_alive()
