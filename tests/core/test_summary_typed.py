"""The listing summary's typed decode (message lines read through ``records.Line``) folds into
exactly what the reference does (every line parsed whole with orjson, ``SummaryState.TYPED =
False``): every counter, time, text, token and cost total, on real, hostile and damaged files.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pitui.core.file_summary import summarise_file
from pitui.core.summary import SummaryState
from tests.conftest import FIXTURES
from tests.core.sessiondata import HEADER, ts
from tests.core.test_damage_property import damaged_file
from tests.core.test_fast_load import MESSAGE
from tests.core.test_hostile_input import JSONISH, hostile_entry


@contextmanager
def reference_summary() -> Iterator[None]:
    SummaryState.TYPED = False
    try:
        yield
    finally:
        SummaryState.TYPED = True


def summary(data: bytes, *, texts: bool) -> tuple[Any, ...]:
    state = SummaryState(texts=texts)
    end = state.feed(data)
    return state.to_json(), state.text, end, state.status


def assert_same(data: bytes) -> None:
    for texts in (True, False):
        typed = summary(data, texts=texts)
        with reference_summary():
            reference = summary(data, texts=texts)
        assert typed == reference


@pytest.mark.parametrize(
    "path", sorted(FIXTURES.rglob("*.jsonl")), ids=lambda p: str(p.relative_to(FIXTURES))
)
def test_fixture_files_summarise_the_same(path: Path) -> None:
    assert_same(path.read_bytes())


# What a message's fields hold besides the index's: its time, and texts JSON escapes oddly.
ODD_TEXT = st.sampled_from(["\ud83d", "a\udc00b", "\ud83d\ude00", "\u2028", "", " ", "\x00"])
STAMP = st.one_of(
    st.integers(), st.floats(), st.sampled_from([8.64e15, 8.64e15 + 1, -8.64e15, 2**64]), JSONISH
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    messages=st.lists(st.one_of(MESSAGE, JSONISH), min_size=1, max_size=8),
    stamps=st.lists(st.one_of(st.none(), STAMP), min_size=8, max_size=8),
    odd=st.lists(ODD_TEXT, max_size=3),
)
def test_message_fields_summarise_the_same(
    messages: list[Any], stamps: list[Any], odd: list[str]
) -> None:
    lines = [orjson.dumps(HEADER)]
    parent = None
    for n, message in enumerate(messages):
        if isinstance(message, dict):
            message = dict(message)
            if stamps[n] is not None:
                message["timestamp"] = stamps[n]
            if odd and n % 2:
                message["content"] = [{"type": "text", "text": text} for text in odd]
        eid = f"m{n}"
        entry_stamp: Any = ts(n) if n % 3 else stamps[n]
        line = {"type": "message", "id": eid, "parentId": parent, "timestamp": entry_stamp,
                "message": message}  # fmt: skip
        lines.append(json.dumps(line).encode())
        parent = eid
    assert_same(b"\n".join(lines) + b"\n")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(entries=st.lists(hostile_entry(), max_size=12), junk=st.binary(max_size=20))
def test_hostile_files_summarise_the_same(entries: list[dict[str, Any]], junk: bytes) -> None:
    data = b"".join(json.dumps(e).encode() + b"\n" for e in [HEADER, *entries])
    assert_same(data)
    assert_same(data[: len(data) // 2] + junk + data[len(data) // 2 :])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_damaged_files_summarise_the_same(data: st.DataObject) -> None:
    content, _ = damaged_file(data)
    assert_same(content)


def test_invalid_utf8_in_a_skipped_and_a_read_field_summarises_the_same() -> None:
    line = {"type": "message", "id": "a", "parentId": None, "timestamp": ts(1),
            "message": {"role": "user", "content": [{"type": "text", "text": "PLACE"}],
                        "details": "SKIP"}}  # fmt: skip
    base = orjson.dumps(line)
    for where in (b"PLACE", b"SKIP"):
        broken = base.replace(where, b"x\xff\xfe" + where)
        assert_same(orjson.dumps(HEADER) + b"\n" + broken + b"\n")


def test_a_file_read_in_many_blocks_summarises_the_same(tmp_path: Path) -> None:
    # blocks of CHUNK_SIZE: lines across block ends, a line longer than a block, a broken line
    # and a lone surrogate in one block, an unterminated last line left pending
    rows: list[bytes] = [orjson.dumps(HEADER)]
    for n in range(3000):
        text = "x" * (700_000 if n == 1500 else n % 300)
        if n == 2000:
            rows.append(b'{"type":"message", broken')
        block = {"type": "text", "text": "\\ud83d" if n == 2100 else text}
        message = {"role": "user" if n % 2 else "assistant", "content": [block], "timestamp": n}
        row = {"type": "message", "id": f"e{n}", "parentId": f"e{n - 1}" if n else None,
               "timestamp": ts(n), "message": message}  # fmt: skip
        rows.append(orjson.dumps(row).replace(b"\\\\ud83d", b"\\ud83d"))
    path = tmp_path / "big.jsonl"
    path.write_bytes(b"\n".join(rows) + b'\n{"type":"message","id":"tail"')

    def summarised() -> tuple[Any, ...]:
        result = summarise_file(str(path))
        return result.row, result.state, result.offset, result.text, result.text_tail

    typed = summarised()
    with reference_summary():
        assert summarised() == typed
    assert typed[2] == path.stat().st_size - len(b'{"type":"message","id":"tail"')
