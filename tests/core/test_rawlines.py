"""The raw lines of a file that is not a session, each with what pi makes of it."""

from __future__ import annotations

from pathlib import Path

import pytest

from pitui.core import rawlines
from pitui.core.rawlines import read_raw_lines
from tests.interop.wild import WILD


def test_a_line_before_the_header_is_named_as_the_reason() -> None:
    raw = read_raw_lines(str(WILD / "line-before-header.jsonl"))
    assert raw.reason == (
        "Not a pi session: its first JSON object is not a session header (type 'title', no id)."
    )
    assert [line.number for line in raw.lines] == [1, 2, 3, 4]
    assert [line.problem for line in raw.lines] == [True, True, False, False]
    assert "pi 1.x refuses the file; pi 0.73.1 overwrites it" in raw.lines[0].verdict
    assert raw.lines[1].verdict.startswith("a session header, too late (type 'session'")
    assert raw.lines[2].verdict == "an entry (type 'message', id 'a1')"
    offsets = [line.offset for line in raw.lines]
    data = (WILD / "line-before-header.jsonl").read_bytes()
    assert [data[o : o + 1] for o in offsets] == [b"{"] * 4
    assert not raw.truncated and raw.size == len(data)


def test_a_header_without_id() -> None:
    raw = read_raw_lines(str(WILD / "header-without-id.jsonl"))
    assert raw.reason == "Not a pi session: its session header has no string id."
    assert [line.problem for line in raw.lines] == [True, False, False]


def test_bad_lines_separators_and_a_missing_newline(tmp_path: Path) -> None:
    path = tmp_path / "odd.jsonl"
    path.write_bytes(
        b'{"type":"message","id":"a\xe2\x80\xa8b"}\n\n[1,2]\nnot json\n{"type":"session","id":"s"}'
    )
    raw = read_raw_lines(str(path))
    assert [line.number for line in raw.lines] == [1, 2, 3, 4, 5]  # U+2028 does not split
    assert raw.lines[0].text == '{"type":"message","id":"a\u2028b"}'
    assert raw.lines[1].verdict == "blank: skipped" and not raw.lines[1].problem
    assert raw.lines[2].verdict == "JSON an array, not an object: skipped"
    assert raw.lines[3].verdict.startswith("not valid JSON") and raw.lines[3].problem
    assert raw.lines[4].verdict.endswith("(no newline at the end)")


def test_a_huge_file_is_read_in_part(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "big.jsonl"
    line = b'{"type":"title","text":"' + b"x" * 5000 + b'"}\n'
    path.write_bytes(line * 10)
    monkeypatch.setattr(rawlines, "MAX_LINES", 4)
    raw = read_raw_lines(str(path))
    assert len(raw.lines) == 4 and raw.truncated
    assert all(len(row.text) == rawlines.PREVIEW_CHARS for row in raw.lines)
    assert raw.lines[0].size == len(line) - 1
    assert all(row.cut for row in raw.lines)
    small = read_raw_lines(str(WILD / "header-without-id.jsonl")).lines
    assert [row.cut for row in small] == [False, False, True]  # 94, 153 and 438 bytes
