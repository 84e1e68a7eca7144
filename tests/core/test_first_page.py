"""The first page: the newest sessions of the last listing, shown only while their file is as
it was listed; anything doubtful about the page means no page."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pitui.core import first_page
from pitui.core.first_page import first_page_path, read_first_page, write_first_page
from pitui.core.store import Store
from pitui.core.summary import SessionInfo
from pitui.ui.catalog import StoreCatalog, sort_items
from tests.core.sessiondata import HEADER, chain, jsonl

KEY = "all\0/agent\0\0/home/ana/proj"


def write_session(folder: Path, name: str, minute: int) -> Path:
    header = {**HEADER, "id": f"id-{name}"}
    entries = chain([f"hello {name}", "reply"])
    for entry in entries:  # newer sessions have later messages
        entry["message"]["timestamp"] += minute * 60_000
    path = folder / f"{name}.jsonl"
    path.write_bytes(jsonl(*entries, header=header))
    return path


@pytest.fixture
def agent(tmp_path: Path) -> Path:
    folder = tmp_path / "agent" / "sessions" / "--home-ana-proj--"
    folder.mkdir(parents=True)
    for minute in range(6):
        write_session(folder, f"s{minute}", minute)
    return tmp_path / "agent"


def listing(agent: Path, tmp_path: Path) -> list[SessionInfo]:
    with Store(agent=agent, cwd="/home/ana/proj", index_path=tmp_path / "i.sqlite3") as store:
        return store.load("all")


def test_a_page_comes_back_as_it_was_listed(agent: Path, tmp_path: Path) -> None:
    infos = listing(agent, tmp_path)
    page = first_page_path(tmp_path, KEY)
    write_first_page(page, KEY, infos)
    back = read_first_page(page, KEY)
    assert [info.to_json() for info in back] == [info.to_json() for info in infos]
    assert [info.path for info in back] == [f"{agent}/sessions/--home-ana-proj--/s{m}.jsonl"
                                            for m in range(5, -1, -1)]  # fmt: skip


def test_changed_and_vanished_files_are_left_out(agent: Path, tmp_path: Path) -> None:
    infos = listing(agent, tmp_path)
    page = first_page_path(tmp_path, KEY)
    write_first_page(page, KEY, infos)
    grown, gone, replaced = (Path(infos[i].path) for i in (0, 1, 2))
    with grown.open("ab") as handle:
        handle.write(b'{"type":"label","id":"l1","parentId":"m2","timestamp":"x"}\n')
    gone.unlink()
    replaced.write_bytes(replaced.read_bytes())  # same bytes, a new mtime
    os.utime(replaced, ns=(1, 1))
    assert [info.path for info in read_first_page(page, KEY)] == [i.path for i in infos[3:]]


def test_a_file_that_changed_since_it_was_listed_is_not_written(
    agent: Path, tmp_path: Path
) -> None:
    infos = listing(agent, tmp_path)
    with open(infos[0].path, "ab") as handle:
        handle.write(b"\n")
    page = first_page_path(tmp_path, KEY)
    write_first_page(page, KEY, infos)
    assert [info.path for info in read_first_page(page, KEY)] == [i.path for i in infos[1:]]


@pytest.mark.parametrize(
    "damage",
    [b"", b"not marshal at all", b"\xe9\x03\x00\x00", None],
    ids=["empty", "junk", "an-int", "another-key"],
)
def test_a_damaged_or_foreign_page_is_no_page(
    agent: Path, tmp_path: Path, damage: bytes | None
) -> None:
    infos = listing(agent, tmp_path)
    page = first_page_path(tmp_path, KEY)
    write_first_page(page, KEY, infos)
    if damage is None:
        assert read_first_page(page, KEY + "x") == []
    else:
        page.write_bytes(damage)
        assert read_first_page(page, KEY) == []
    assert read_first_page(tmp_path / "missing.marshal", KEY) == []


def test_the_page_is_capped_and_rewritten_only_when_it_changed(
    agent: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(first_page, "PAGE_SIZE", 2)
    infos = listing(agent, tmp_path)
    page = first_page_path(tmp_path, KEY)
    write_first_page(page, KEY, infos)
    assert len(read_first_page(page, KEY)) == 2
    os.utime(page, ns=(5, 5))
    write_first_page(page, KEY, infos)
    assert page.stat().st_mtime_ns == 5  # the same page: not written again
    write_first_page(page, KEY, infos[1:])
    assert page.stat().st_mtime_ns != 5
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_the_catalog_paints_the_page_first_and_lists_each_session_once(
    agent: Path, tmp_path: Path
) -> None:
    def catalog() -> StoreCatalog:
        store = Store(agent=agent, cwd="/home/ana/proj", index_path=tmp_path / "i.sqlite3")
        return StoreCatalog(store)

    first = catalog()
    assert first.first_page("all") == []  # nothing read ahead
    whole = first.load("all", lambda done, total: None)
    first.store.close()

    write_session(agent / "sessions" / "--home-ana-proj--", "new", 60)  # since the last run
    second = catalog()
    second.read_ahead("all")
    assert [i.path for i in second.first_page("all")] == [i.path for i in whole]
    batches: list[list[str]] = []
    items = second.load("all", lambda done, total: None, lambda b: batches.append(
        [i.path for i in b]))  # fmt: skip
    second.store.close()
    assert batches[0] == [i.path for i in whole]  # the page, before the store's batches
    listed = [path for batch in batches for path in batch]
    assert sorted(listed) == sorted(i.path for i in items)  # each session once
    assert items[0].path.endswith("new.jsonl")
    assert [i.path for i in items] == [i.path for i in sort_items(items)]


def test_no_index_means_no_page(agent: Path, tmp_path: Path) -> None:
    store = Store(agent=agent, cwd="/home/ana/proj", use_index=False)
    catalog = StoreCatalog(store)
    catalog.load("all", lambda done, total: None)
    catalog.read_ahead("all")
    assert catalog.first_page("all") == []
    batches: list[int] = []
    catalog.load("all", lambda done, total: None, lambda b: batches.append(len(b)))
    assert sum(batches) == 6
    cache = Path(os.environ["XDG_CACHE_HOME"])
    assert not list(cache.rglob("first-page-*")) and not list(tmp_path.rglob("first-page-*"))


def test_without_a_page_the_newest_named_sessions_stand_in(
    agent: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(first_page, "NEWEST_NAMED", 3)
    monkeypatch.setattr(first_page, "NEWEST_NAMED_MAX_BYTES", 2000)
    folder = agent / "sessions" / "--home-ana-proj--"
    other = agent / "sessions" / "--home-ana-other--"
    other.mkdir()
    write_session(other, "z9-newest", 0)  # names sort by creation time: the newest name
    (folder / "z8-not-a-session.jsonl").write_bytes(b"not json\n")
    big = write_session(folder, "z7-big", 0)
    big.write_bytes(big.read_bytes() + b"\n" * 3000)
    (folder / "z6-folder.jsonl").mkdir()
    found = first_page.newest_named([str(folder), str(other), str(tmp_path / "missing")])
    assert [Path(info.path).name for info in found] == ["z9-newest.jsonl"]
    monkeypatch.setattr(first_page, "NEWEST_NAMED", 6)  # (z8, z7 and the folder z6 left out)
    found = first_page.newest_named([str(folder), str(other)])
    names = [Path(info.path).name for info in found]
    assert names == ["z9-newest.jsonl", "s5.jsonl", "s4.jsonl", "s3.jsonl"]
    listed = {info.path: info.to_json() for info in listing(agent, tmp_path)}
    assert all(info.to_json() == listed[info.path] for info in found)  # read as the store does


def test_a_first_run_paints_the_newest_named_sessions_first(
    agent: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(first_page, "NEWEST_NAMED", 2)
    store = Store(agent=agent, cwd="/home/ana/proj", index_path=tmp_path / "i.sqlite3")
    catalog = StoreCatalog(store)
    catalog.read_ahead("all")
    assert [Path(i.path).name for i in catalog.first_page("all")] == ["s5.jsonl", "s4.jsonl"]
    batches: list[list[str]] = []
    items = catalog.load("all", lambda done, total: None, lambda b: batches.append(
        [i.path for i in b]))  # fmt: skip
    store.close()
    assert [Path(p).name for p in batches[0]] == ["s5.jsonl", "s4.jsonl"]
    listed = [path for batch in batches for path in batch]
    assert sorted(listed) == sorted(i.path for i in items) and len(items) == 6


def test_later_loads_of_a_scope_read_no_page(
    agent: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pitui.ui import catalog as catalog_module

    reads: list[str] = []
    for name in ("read_first_page", "newest_named"):
        real = getattr(catalog_module, name)

        def counted(*args: object, _name: str = name, _real: object = real) -> object:
            reads.append(_name)
            return _real(*args)  # type: ignore[operator]

        monkeypatch.setattr(catalog_module, name, counted)
    store = Store(agent=agent, cwd="/home/ana/proj", index_path=tmp_path / "i.sqlite3")
    catalog = StoreCatalog(store)
    catalog.load("all", lambda done, total: None, lambda batch: None)
    assert reads == ["read_first_page", "newest_named"]  # a first run: no page kept yet
    reads.clear()
    batches: list[int] = []
    catalog.load("all", lambda done, total: None, lambda batch: batches.append(len(batch)))
    store.close()
    assert reads == [] and sum(batches) == 6  # the store's batches only
