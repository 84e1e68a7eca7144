"""The first page (``Store.first_page``): the index's newest sessions of a scope, shown only while
their file is as it was listed; without them, the sessions of the newest names stand in."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pitui.core import store as store_module
from pitui.core.session_info import SessionInfo
from pitui.core.store import Store
from pitui.ui.catalog import StoreCatalog, sort_items
from tests.core.sessiondata import HEADER, chain, jsonl


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


def indexed(agent: Path, tmp_path: Path, cwd: str = "/home/ana/proj") -> Store:
    return Store(agent=agent, cwd=cwd, index_path=tmp_path / "i.sqlite3")


def listing(agent: Path, tmp_path: Path) -> list[SessionInfo]:
    with indexed(agent, tmp_path) as store:
        return store.load("all")


def page(agent: Path, tmp_path: Path, scope: store_module.Scope = "all", **kw: int) -> list[str]:
    with indexed(agent, tmp_path) as store:
        return [info.path for info in store.first_page(scope, **kw)]


def test_a_page_comes_back_as_it_was_listed(agent: Path, tmp_path: Path) -> None:
    infos = listing(agent, tmp_path)
    with indexed(agent, tmp_path) as store:
        back = store.first_page("all")
    assert [info.to_json() for info in back] == [info.to_json() for info in infos]
    assert [info.path for info in back] == [f"{agent}/sessions/--home-ana-proj--/s{m}.jsonl"
                                            for m in range(5, -1, -1)]  # fmt: skip


def test_changed_and_vanished_files_are_left_out(agent: Path, tmp_path: Path) -> None:
    infos = listing(agent, tmp_path)
    grown, gone, replaced = (Path(infos[i].path) for i in (0, 1, 2))
    with grown.open("ab") as handle:
        handle.write(b'{"type":"label","id":"l1","parentId":"m2","timestamp":"x"}\n')
    gone.unlink()
    replaced.write_bytes(replaced.read_bytes())  # same bytes, a new mtime
    os.utime(replaced, ns=(1, 1))
    assert page(agent, tmp_path) == [i.path for i in infos[3:]]


def test_a_page_holds_the_scopes_sessions_only(agent: Path, tmp_path: Path) -> None:
    other = agent / "sessions" / "--home-ana-other--"
    other.mkdir()
    newest = write_session(other, "elsewhere", 60)
    elsewhere = tmp_path / "elsewhere-agent" / "sessions" / "--home-ana-proj--"
    elsewhere.mkdir(parents=True)
    write_session(elsewhere, "other-agent", 90)
    listing(agent, tmp_path)
    with Store(agent=elsewhere.parent.parent, cwd="/home/ana/proj",
               index_path=tmp_path / "i.sqlite3") as store:  # fmt: skip
        store.load("all")  # (the same index)
    everything = page(agent, tmp_path)
    assert everything[0] == str(newest) and len(everything) == 7
    current = page(agent, tmp_path, "current")
    assert current == everything[1:]
    assert page(agent, tmp_path, "current", size=2) == everything[1:3]


def test_a_page_in_a_custom_dir_filters_by_cwd(tmp_path: Path) -> None:
    custom = tmp_path / "custom"
    custom.mkdir()
    for i, cwd in enumerate(["/home/ana/proj", "/elsewhere", "/home/ana/proj"]):
        (custom / f"c{i}.jsonl").write_bytes(
            jsonl(*chain([f"m{i}"]), header={**HEADER, "id": f"c{i}", "cwd": cwd})
        )

    def store() -> Store:
        return Store(agent=tmp_path / "agent", cwd="/home/ana/proj", session_dir=str(custom),
                     index_path=tmp_path / "i.sqlite3")  # fmt: skip

    with store() as first:
        assert first.first_page("current") == []  # nothing listed yet: none stands in here
        want = [info.path for info in first.load("current")]
    with store() as again:
        assert [info.path for info in again.first_page("current")] == want
        assert [info.path for info in again.first_page("current", size=1)] == want[:1]
    assert len(want) == 2


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
    assert not list(cache.rglob("*sqlite3*")) and not list(tmp_path.rglob("*sqlite3*"))


def test_without_a_page_the_newest_named_sessions_stand_in(
    agent: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store_module, "NEWEST_NAMED", 3)
    monkeypatch.setattr(store_module, "NEWEST_NAMED_MAX_BYTES", 2000)
    folder = agent / "sessions" / "--home-ana-proj--"
    other = agent / "sessions" / "--home-ana-other--"
    other.mkdir()
    write_session(other, "z9-newest", 0)  # names sort by creation time: the newest name
    (folder / "z8-not-a-session.jsonl").write_bytes(b"not json\n")
    big = write_session(folder, "z7-big", 0)
    big.write_bytes(big.read_bytes() + b"\n" * 3000)
    (folder / "z6-folder.jsonl").mkdir()
    found = store_module.newest_named([str(folder), str(other), str(tmp_path / "missing")])
    assert [Path(info.path).name for info in found] == ["z9-newest.jsonl"]
    monkeypatch.setattr(store_module, "NEWEST_NAMED", 6)  # (z8, z7 and the folder z6 left out)
    found = store_module.newest_named([str(folder), str(other)])
    names = [Path(info.path).name for info in found]
    assert names == ["z9-newest.jsonl", "s5.jsonl", "s4.jsonl", "s3.jsonl"]
    listed = {info.path: info.to_json() for info in listing(agent, tmp_path)}
    assert all(info.to_json() == listed[info.path] for info in found)  # read as the store does


def test_a_first_run_paints_the_newest_named_sessions_first(
    agent: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store_module, "NEWEST_NAMED", 2)
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
    reads: list[str] = []
    for owner, name in ((Store, "first_page"), (store_module, "newest_named")):
        real = getattr(owner, name)

        def counted(*args: object, _name: str = name, _real: object = real) -> object:
            reads.append(_name)
            return _real(*args)  # type: ignore[operator]

        monkeypatch.setattr(owner, name, counted)
    store = Store(agent=agent, cwd="/home/ana/proj", index_path=tmp_path / "i.sqlite3")
    catalog = StoreCatalog(store)
    catalog.load("all", lambda done, total: None, lambda batch: None)
    assert reads == ["first_page", "newest_named"]  # a first run: nothing in the index yet
    reads.clear()
    batches: list[int] = []
    catalog.load("all", lambda done, total: None, lambda batch: batches.append(len(batch)))
    store.close()
    assert reads == [] and sum(batches) == 6  # the store's batches only


def test_a_page_over_many_folders_is_the_listings_newest(agent: Path, tmp_path: Path) -> None:
    root = agent / "sessions"
    for n in range(7):  # more folders than a page looks up one by one
        (root / f"--f{n}--").mkdir()
        for k in range(3):
            write_session(root / f"--f{n}--", f"s{n}-{k}", 10 + 5 * k + n)
    infos = listing(agent, tmp_path)
    assert page(agent, tmp_path, size=10) == [info.path for info in infos[:10]]
    assert page(agent, tmp_path) == [info.path for info in infos]
