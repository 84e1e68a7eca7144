"""Cache files replaced whole, and the leftovers of writers killed before their rename."""

from __future__ import annotations

import os
import time
from pathlib import Path

from pitui.core.cachefile import STALE_SECONDS, replace_file


def test_a_replaced_cache_file_drops_old_leftovers_of_killed_writers(tmp_path: Path) -> None:
    target = tmp_path / "page"
    old = tmp_path / "page.4242.tmp"  # a writer killed before its rename, long ago
    young = tmp_path / "page.4243.tmp"  # one that may still be writing
    unrelated = tmp_path / "other.4242.tmp"
    for leftover in (old, young, unrelated):
        leftover.write_bytes(b"partial")
    long_ago = time.time() - STALE_SECONDS - 60
    os.utime(old, (long_ago, long_ago))
    os.utime(unrelated, (long_ago, long_ago))
    assert replace_file(target, [b"a", b"b"])
    assert target.read_bytes() == b"ab"
    assert not old.exists() and young.exists() and unrelated.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.4242.tmp", "page", "page.4243.tmp"]


def test_a_cache_file_that_cannot_be_written_keeps_the_old_one(tmp_path: Path) -> None:
    target = tmp_path / "page"
    target.write_bytes(b"old")
    (tmp_path / f"page.{os.getpid()}.tmp").mkdir()  # the temporary name is taken
    assert not replace_file(target, [b"new"])
    assert target.read_bytes() == b"old"
