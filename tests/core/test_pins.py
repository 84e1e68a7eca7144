"""Pins: pitui's own file in its data dir, written atomically, gone sessions dropped silently."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest

from pitui.core.paths import data_dir
from pitui.core.pins import PINS_FILE, PinError, Pins


def session(tmp_path: Path, name: str) -> str:
    path = tmp_path / "sessions" / f"{name}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b'{"type":"session","id":"x"}\n')
    return str(path)


def test_pins_live_in_pituis_data_dir(tmp_path: Path) -> None:
    first, second = session(tmp_path, "a"), session(tmp_path, "b")
    before = sorted(os.listdir(tmp_path / "sessions"))
    pins = Pins()
    assert pins.path == data_dir() / PINS_FILE
    assert str(data_dir()).startswith(os.environ["XDG_DATA_HOME"])
    assert pins.toggle(first) is True
    assert pins.toggle(second) is True
    assert pins.load() == [second, first]  # most recently pinned first
    assert Pins().load() == [second, first]  # (read again from the file)
    assert pins.toggle(first) is False
    assert pins.load() == [second]
    data = orjson.loads(pins.path.read_bytes())
    assert data == {"version": 1, "pins": [second]}
    # nothing written beside the sessions; no temp file left beside the pins
    assert sorted(os.listdir(tmp_path / "sessions")) == before
    assert [name for name in os.listdir(pins.path.parent) if name.endswith(".tmp")] == []


def test_a_gone_session_is_dropped_silently(tmp_path: Path) -> None:
    kept, gone = session(tmp_path, "kept"), session(tmp_path, "gone")
    pins = Pins(tmp_path / "data")
    pins.toggle(kept)
    pins.toggle(gone)
    os.unlink(gone)
    assert pins.load() == [kept]
    pins.toggle(session(tmp_path, "new"))  # the next write forgets it
    assert gone not in orjson.loads(pins.path.read_bytes())["pins"]


@pytest.mark.parametrize(
    "content",
    [b"", b"{", b"[]", b'{"pins": 3}', b'{"pins": ["relative.jsonl", 5, null]}', b"\xff"],
)
def test_a_damaged_file_reads_as_no_pins(tmp_path: Path, content: bytes) -> None:
    pins = Pins(tmp_path)
    pins.path.write_bytes(content)
    assert pins.load() == []
    target = session(tmp_path, "a")
    assert pins.toggle(target) is True  # and is replaced by a good one
    assert pins.load() == [target]


def test_an_unwritable_data_dir_is_a_pin_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_bytes(b"")
    with pytest.raises(PinError):
        Pins(blocker / "pitui").toggle(session(tmp_path, "a"))


def test_pinned_rows_come_first_out_of_their_threads() -> None:
    from dataclasses import dataclass

    from pitui.core.pins import pinned_first
    from pitui.core.search import Row

    @dataclass
    class Item:
        path: str
        id: str = ""
        name: str | None = None
        parent_session_path: str | None = None
        modified: float = 0.0
        search_text: str = ""

    a, b, c, d = Item("/a"), Item("/b"), Item("/c"), Item("/d")
    rows = [Row(a), Row(b, 1, "├─ "), Row(c, 1, "└─ "), Row(d)]
    assert pinned_first(rows, set()) == rows
    assert pinned_first(rows, {"/gone"}) == rows
    assert pinned_first(rows, {"/c", "/d"}) == [Row(c), Row(d), Row(a), Row(b, 1, "├─ ")]
