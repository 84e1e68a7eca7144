"""Trash and restore (freedesktop layout): exact path back, refusal when something lives there."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pitui.core import trash
from tests.core.sessiondata import jsonl, user


def test_trash_then_restore_gives_back_the_same_bytes(tmp_path: Path) -> None:
    path = tmp_path / "--home-ana--" / "s.jsonl"
    path.parent.mkdir()
    data = jsonl(user("u", None))
    path.write_bytes(data)
    item = trash.trash(str(path))
    assert item is not None and not path.exists()
    assert Path(item.stored).read_bytes() == data
    restored = trash.restore_path(str(path))
    assert restored.info == item.info
    assert path.read_bytes() == data
    assert not os.path.exists(item.info)


def test_restore_refuses_when_something_else_lives_there(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"old\n")
    item = trash.trash(str(path))
    assert item is not None
    path.write_bytes(b"new\n")
    with pytest.raises(trash.TrashError, match="exists again"):
        trash.restore(item)
    assert path.read_bytes() == b"new\n"
    assert Path(item.stored).read_bytes() == b"old\n"


def test_newest_copy_is_restored(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"first\n")
    first = trash.trash(str(path))
    path.write_bytes(b"second\n")
    second = trash.trash(str(path))
    assert first is not None and second is not None and first.stored != second.stored
    trash.restore_path(str(path))
    assert path.read_bytes() == b"second\n"


def test_unwritable_trash_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from send2trash import plat_other

    blocked = tmp_path / "blocked"
    blocked.write_bytes(b"")  # a file where the trash folder should be: nothing can go in
    monkeypatch.setattr(plat_other, "HOMETRASH_B", os.fsencode(blocked / "Trash"))
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"keep\n")
    with pytest.raises(trash.TrashError):
        trash.trash(str(path))
    assert path.read_bytes() == b"keep\n"
