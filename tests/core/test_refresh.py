"""Session.refresh(): growth is read incrementally; a file replaced or rewritten in place (same
inode, not shorter) is re-read whole, never glued onto the old index."""

from __future__ import annotations

import os
from pathlib import Path

from pitui.core.session import Session
from tests.core.sessiondata import chain, jsonl, user


def write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    os.utime(path, (1_700_000_000, 1_700_000_000))  # long settled: the last line is final
    return path


def rewrite_in_place(path: Path, data: bytes) -> None:
    with open(path, "r+b") as handle:  # the same inode, as an editor saving in place would
        handle.write(data)
        handle.truncate()


def test_unchanged_and_grown(tmp_path: Path) -> None:
    path = write(tmp_path / "s.jsonl", jsonl(*chain(["a", "b"])))
    session = Session.open(path)
    assert session.refresh().kind == "unchanged"
    with open(path, "ab") as handle:
        handle.write(jsonl(user("m3", "m2", "c", t=3), header=None))
    result = session.refresh()
    assert result.kind == "grew" and [m.uid for m in result.new] == ["m3"]
    assert session.refresh().kind == "unchanged"


def test_blank_lines_before_the_header_are_not_a_replacement(tmp_path: Path) -> None:
    # the first line was compared at offset 0 with the header line: every refresh of such a
    # file re-read it whole, and the write path reported "replaced while writing" (issue 24.3)
    path = write(tmp_path / "s.jsonl", b"\n \n" + jsonl(*chain(["a", "b"])))
    session = Session.open(path)
    assert session.refresh().kind == "unchanged"
    with open(path, "ab") as handle:
        handle.write(jsonl(user("m3", "m2", "c", t=3), header=None))
    result = session.refresh()
    assert result.kind == "grew" and [m.uid for m in result.new] == ["m3"]


def test_same_size_rewrite_in_place_is_a_replacement(tmp_path: Path) -> None:
    # (what is compared: the first line and the last bytes read; a same-size edit of the middle
    # alone would need a full read to notice)
    path = write(tmp_path / "s.jsonl", jsonl(*chain(["a", "b", "c"])))
    session = Session.open(path)
    changed = jsonl(*chain(["a", "b", "z"]))
    assert len(changed) == path.stat().st_size
    rewrite_in_place(path, changed)
    result = session.refresh()
    assert result.kind == "replaced"
    assert session.raw(session.entries[-1])["message"]["content"] == "z"


def test_longer_rewrite_in_place_is_not_read_as_growth(tmp_path: Path) -> None:
    path = write(tmp_path / "s.jsonl", jsonl(*chain(["a", "b"])))
    session = Session.open(path)
    rewrite_in_place(path, jsonl(*chain(["other", "entries", "now"])))
    assert session.refresh().kind == "replaced"
    assert [m.uid for m in session.entries] == ["m1", "m2", "m3"]
    assert session.problems == []
    assert (
        session.get("m1") is not None
        and session.raw(session.get("m1"))["message"][  # type: ignore[arg-type]
            "content"
        ]
        == "other"
    )
