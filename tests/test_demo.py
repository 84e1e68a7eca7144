"""The built-in demo store: built by pitui's own writer, complete, reproducible, listable."""

from __future__ import annotations

import base64
import hashlib
import os
import re
import struct
import time
import zlib
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from pitui.core import paths
from pitui.core.context import build_session_context
from pitui.core.js import parse_iso_ms
from pitui.core.session import Session
from pitui.core.store import Store
from pitui.core.units import format_age
from pitui.demo import (
    GENERATOR_VERSION,
    MARKER_NAME,
    PROJECTS,
    REFRESH_AFTER,
    DemoStore,
    demo_agent_dir,
    ensure_demo_store,
    read_demo_store,
    write_demo_store,
)
from pitui.demo.builder import Builder
from pitui.demo.chat import MODELS
from pitui.demo.scenario import Player, Scenario, ScenarioError, load_scenarios

BASE = 1_741_790_000.0  # 2025-03-12T14:33:20Z
# Every byte of the store built for BASE (and every session file's modification time). A change
# to a scenario, the builder or pi's writer shows here: when it is meant, bump GENERATOR_VERSION,
# regenerate the screenshots (scripts/screenshots.py) and pin the new digest.
STORE_DIGEST = "ac32489c576397ba857832b08393e24fb8e16103c80ce49ddeadb51b6a5034df"


def store_digest(agent: Path) -> str:
    """sha256 of every file's name, bytes (the store's own path written ``<agent>``, as forks
    name their parents by absolute path) and, for sessions, modification time in ms."""
    digest = hashlib.sha256()
    for path in sorted(agent.rglob("*")):
        if not path.is_file():
            continue
        data = path.read_bytes().replace(str(agent).encode(), b"<agent>")
        mtime = round(path.stat().st_mtime * 1000) if path.suffix == ".jsonl" else 0
        digest.update(f"{path.relative_to(agent)}\0{len(data)}\0{mtime}\0".encode())
        digest.update(data)
    return digest.hexdigest()


def snapshot(agent: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(agent)): path.read_bytes()
        for path in sorted(agent.rglob("*"))
        if path.is_file()
    }


def session_files(agent: Path) -> list[Path]:
    return sorted((agent / "sessions").glob("*/*.jsonl"))


def raw_entries(path: Path) -> list[dict[str, Any]]:
    lines = path.read_bytes().split(b"\n")
    return [orjson.loads(line) for line in lines[1:] if line]


def messages(entries: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    for entry in entries:
        if entry["type"] == "message":
            yield entry["message"]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[DemoStore, float]:
    agent = tmp_path_factory.mktemp("demo") / "agent"
    started = time.perf_counter()
    store = write_demo_store(agent, BASE)
    return store, time.perf_counter() - started


@pytest.fixture(scope="module")
def demo(built: tuple[DemoStore, float]) -> DemoStore:
    return built[0]


@pytest.fixture(scope="module")
def everything(demo: DemoStore) -> dict[Path, list[dict[str, Any]]]:
    return {path: raw_entries(path) for path in session_files(demo.agent_dir)}


# ------------------------------------------------------------------------------ the files


def test_the_store_for_a_fixed_clock_is_pinned(demo: DemoStore) -> None:
    assert store_digest(demo.agent_dir) == STORE_DIGEST


def test_one_data_file_per_session(demo: DemoStore) -> None:
    scenarios = load_scenarios()
    assert len(scenarios) == demo.sessions
    names = [s.name for s in scenarios]
    assert len(set(names)) == len(names) and names[0] == "webapp-pagination"
    assert all(s.source.endswith(".toml") and s.steps for s in scenarios)


def test_the_store_is_modest(demo: DemoStore, built: tuple[DemoStore, float]) -> None:
    files = session_files(demo.agent_dir)
    assert 25 <= len(files) == demo.sessions <= 35
    assert sum(f.stat().st_size for f in files) < 2_000_000
    assert built[1] < 10  # typically ~1 s; a generous bound against a pathological slowdown
    assert demo.cwd in demo.projects and list(PROJECTS) == demo.projects
    assert 4 <= len(demo.projects) <= 5


def test_every_file_reads_cleanly_where_pi_puts_it(demo: DemoStore) -> None:
    for path in session_files(demo.agent_dir):
        with Session.open(path, final=True) as session:
            assert session.problems == [], path
            assert session.original_version == 3
            assert session.cwd in PROJECTS
            assert path.parent == paths.session_dir_for(session.cwd, demo.agent_dir)
            assert path.name == paths.session_file_name(session.created or "", session.id)
            assert len({m.uid for m in session.entries}) == len(session.entries)
            assert all(m.id and len(m.id) == 8 for m in session.entries)


def test_no_folder_of_the_demo_exists_on_disk(demo: DemoStore) -> None:
    assert not any(os.path.exists(cwd) for cwd in demo.projects)


def test_timestamps_lie_in_the_three_months_before_the_base_time(
    demo: DemoStore, everything: dict[Path, list[dict[str, Any]]]
) -> None:
    base_ms = BASE * 1000
    for path, entries in everything.items():
        times = [parse_iso_ms(e["timestamp"]) for e in entries]
        assert all(t is not None and base_ms - 100 * 86_400_000 < t <= base_ms for t in times)
        # the file's modification time is its last entry's time (what --continue looks at)
        assert path.stat().st_mtime * 1000 == pytest.approx(max(t or 0 for t in times), abs=1)
        for message in messages(entries):
            assert base_ms - 100 * 86_400_000 < message["timestamp"] <= base_ms


def test_the_picker_shows_every_kind_of_age(demo: DemoStore) -> None:
    with Store(agent=demo.agent_dir, cwd=demo.cwd, use_index=False) as store:
        listed = store.load("all")
    ages = [format_age(info.modified, BASE * 1000) for info in listed]
    assert ages[0] == "now"
    units = {age.lstrip("0123456789") for age in ages}
    assert {"now", "m", "h", "d", "w", "mo"} <= units


# ------------------------------------------------------------------------------ what is in it


def test_every_entry_type_and_role_occurs(everything: dict[Path, list[dict[str, Any]]]) -> None:
    kinds = Counter(
        f"message/{e['message']['role']}" if e["type"] == "message" else e["type"]
        for entries in everything.values()
        for e in entries
    )
    for kind in (
        "message/user", "message/assistant", "message/toolResult", "message/bashExecution",
        "model_change", "thinking_level_change", "compaction", "branch_summary", "custom",
        "custom_message", "label", "session_info",
    ):  # fmt: skip
        assert kinds[kind] > 0, kind


def test_messages_cover_tools_stop_reasons_images_and_costs(
    everything: dict[Path, list[dict[str, Any]]],
) -> None:
    all_messages = [m for entries in everything.values() for m in messages(entries)]
    assistants = [m for m in all_messages if m["role"] == "assistant"]
    assert {"stop", "toolUse", "error", "aborted", "length"} <= {
        m["stopReason"] for m in assistants
    }
    assert all(m["usage"]["cost"]["total"] > 0 for m in assistants if m["stopReason"] != "error")
    assert any(m.get("errorMessage") for m in assistants if m["stopReason"] == "error")
    assert {m["provider"] for m in assistants} >= {"anthropic", "openai", "google"}
    blocks = [b for m in assistants for b in m["content"]]
    assert any(b["type"] == "thinking" for b in blocks)
    tools = {b["name"] for b in blocks if b["type"] == "toolCall"}
    assert {"read", "edit", "write", "bash", "ls", "grep", "find"} <= tools
    results = [m for m in all_messages if m["role"] == "toolResult"]
    assert any(m["isError"] for m in results) and any(not m["isError"] for m in results)
    edits = [m for m in results if m["toolName"] == "edit" and not m["isError"]]
    assert all(m["details"]["diff"] and m["details"]["firstChangedLine"] > 0 for m in edits)
    shells = [m for m in all_messages if m["role"] == "bashExecution"]
    assert any(m.get("excludeFromContext") for m in shells)
    assert any(not m.get("excludeFromContext") for m in shells)


def test_the_image_is_a_real_16x16_png(everything: dict[Path, list[dict[str, Any]]]) -> None:
    images = [
        block
        for entries in everything.values()
        for m in messages(entries)
        if m["role"] == "user" and isinstance(m["content"], list)
        for block in m["content"]
        if block["type"] == "image"
    ]
    assert len(images) == 1 and images[0]["mimeType"] == "image/png"
    png = base64.b64decode(images[0]["data"], validate=True)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", png[16:24]) == (16, 16)
    length = struct.unpack(">I", png[33:37])[0]
    assert png[37:41] == b"IDAT"
    assert len(zlib.decompress(png[41 : 41 + length])) == 16 * (1 + 16 * 4)


def test_custom_entries_match_the_example_renderer(
    everything: dict[Path, list[dict[str, Any]]],
) -> None:
    entries = [e for es in everything.values() for e in es]
    todos = [e for e in entries if e["type"] == "custom" and e["customType"] == "todo-tracker"]
    assert len(todos) >= 5
    for entry in todos:
        items = entry["data"]["todos"]
        assert items and all(
            isinstance(t["text"], str) and isinstance(t["done"], bool) for t in items
        )
    assert any(all(t["done"] for t in e["data"]["todos"]) for e in todos)
    assert any(not any(t["done"] for t in e["data"]["todos"]) for e in todos)
    shown = {e["display"] for e in entries if e["type"] == "custom_message"}
    assert shown == {True, False}


def test_compactions_one_with_retained_tail_one_legacy(
    everything: dict[Path, list[dict[str, Any]]],
) -> None:
    compactions = [e for es in everything.values() for e in es if e["type"] == "compaction"]
    assert any("retainedTail" not in c and c["firstKeptEntryId"] for c in compactions)
    assert all(c["tokensBefore"] > 0 and "<read-files>" in c["summary"] for c in compactions)
    retained = [
        (entries, c) for entries in everything.values() for c in entries if c.get("retainedTail")
    ]
    assert len(retained) == 1
    entries, compaction = retained[0]
    # the tail is a copy of the messages from firstKeptEntryId to the compaction, so pi 0.73.1
    # (which reads firstKeptEntryId) and newer readers (retainedTail) build the same context
    by_id = {e["id"]: e for e in entries}
    path = [compaction]
    while path[-1]["id"] != compaction["firstKeptEntryId"]:
        path.append(by_id[path[-1]["parentId"]])
    kept = [e["message"] for e in reversed(path) if e["type"] == "message"]
    assert compaction["retainedTail"] == kept and len(kept) >= 2
    assert {m["role"] for m in kept} == {"user", "assistant", "toolResult"}


def test_the_long_session(demo: DemoStore) -> None:
    longest = max(session_files(demo.agent_dir), key=lambda p: len(raw_entries(p)))
    with Session.open(longest, final=True) as session:
        assert 250 <= len(session.entries) <= 400
        assert session.name == "API pagination + flaky e2e test"
        context = build_session_context(session)
        roles = [m["role"] for m in context.messages]
        # the newest compaction is on the path and keeps its tail: summary, then kept messages
        assert roles[0] == "compactionSummary" and roles[1] == "user"
        assert context.model is not None and context.thinking_level == "medium"
        kinds = Counter(m.type for m in session.entries)
        assert kinds["compaction"] == 2 and kinds["model_change"] >= 3
        assert kinds["thinking_level_change"] >= 3 and kinds["custom"] >= 5


def test_a_session_with_branches_labels_and_a_cleared_label(demo: DemoStore) -> None:
    found = False
    for path in session_files(demo.agent_dir):
        with Session.open(path, final=True) as session:
            leaves = [m for m in session.entries if not m.children]
            label_entries = [m for m in session.entries if m.type == "label"]
            if len(leaves) < 3 or len(label_entries) < 3:
                continue
            found = True
            cleared = [m for m in label_entries if m.label is None]
            assert cleared and all(m.target_id not in session.labels for m in cleared)
            assert len(session.labels) >= 3
            assert any(m.type == "branch_summary" for m in session.entries)
            # an edited and a regenerated prompt: two user messages with the same parent
            users = [m for m in session.entries if m.role == "user"]
            assert Counter(m.parent_id for m in users).most_common(1)[0][1] >= 2
            # the file's leaf (pi's on-open leaf) is the last entry, on the final branch
            assert session.leaf is session.entries[-1]
    assert found


def test_names_and_markup_looking_text(everything: dict[Path, list[dict[str, Any]]]) -> None:
    names = {e["name"] for es in everything.values() for e in es if e["type"] == "session_info"}
    assert len(names) >= 5
    texts = [
        m["content"]
        for es in everything.values()
        for m in messages(es)
        if m["role"] == "user" and isinstance(m["content"], str)
    ]
    assert any("\x1b[31m" in t and "[bold red]" in t for t in texts)


def test_forks_make_a_tree_across_folders(demo: DemoStore) -> None:
    with Store(agent=demo.agent_dir, cwd=demo.cwd, use_index=False) as store:
        listed = store.load("all")
    by_path = {os.path.realpath(info.path): info for info in listed}
    forks = [info for info in listed if info.parent_session_path]
    assert len(forks) >= 4
    for fork in forks:
        assert fork.parent_session_path is not None
        parent = by_path[os.path.realpath(fork.parent_session_path)]  # points into the store
        assert parent.created is not None and fork.created is not None
        assert parent.created < fork.created
    assert any(by_path[os.path.realpath(f.parent_session_path or "")].cwd != f.cwd for f in forks)

    def depth(info: Any) -> int:
        parent = info.parent_session_path
        return 0 if not parent else 1 + depth(by_path[os.path.realpath(parent)])

    assert max(depth(f) for f in forks) >= 2


def test_listing_current_and_all(demo: DemoStore) -> None:
    with Store(agent=demo.agent_dir, cwd=demo.cwd, use_index=False) as store:
        current = store.load("current")
        everything = store.load("all")
    assert len(current) >= 8 and {info.cwd for info in current} == {demo.cwd}
    assert len({info.cwd for info in everything}) == len(PROJECTS)
    assert len(everything) == demo.sessions
    assert sum(1 for info in everything if info.name) >= 5


# ------------------------------------------------------------------------------ ensure_demo_store


def test_ensure_builds_reuses_and_rebuilds_identically() -> None:
    first = ensure_demo_store(base_time=BASE)
    agent = demo_agent_dir()
    assert first.agent_dir == agent and agent.is_relative_to(paths.cache_dir())
    assert first == read_demo_store(agent)
    before = snapshot(agent)
    marker_inode = (agent / MARKER_NAME).stat().st_ino
    # parentSession names the installed files, not the temp folder the store was built in
    parents = [
        orjson.loads(data.split(b"\n", 1)[0]).get("parentSession")
        for name, data in before.items()
        if name.endswith(".jsonl")
    ]
    assert all(p is None or p.startswith(str(agent) + os.sep) for p in parents)
    assert sum(p is not None for p in parents) >= 4
    assert all(os.path.exists(p) for p in parents if p is not None)

    assert ensure_demo_store(base_time=BASE) == first  # reused: nothing rewritten
    assert (agent / MARKER_NAME).stat().st_ino == marker_inode

    rebuilt = ensure_demo_store(base_time=BASE, force=True)
    assert rebuilt == first
    assert (agent / MARKER_NAME).stat().st_ino != marker_inode
    assert snapshot(agent) == before  # byte for byte, ids and session ids included
    assert not [p for p in agent.parent.iterdir() if p.name != "agent"]  # no temp leftovers

    other = ensure_demo_store(base_time=BASE + 86_400)
    assert other.base_time == BASE + 86_400
    assert snapshot(agent).keys() != before.keys()  # new times, new file names


def test_another_generator_version_or_a_stale_store_is_rebuilt() -> None:
    store = ensure_demo_store()
    assert abs(store.base_time - time.time()) < 60
    marker = demo_agent_dir() / MARKER_NAME
    data = orjson.loads(marker.read_bytes())
    assert data["generator"] == GENERATOR_VERSION
    assert ensure_demo_store() == store  # fresh: reused

    data["baseTime"] = time.time() - REFRESH_AFTER - 60
    marker.write_bytes(orjson.dumps(data))
    assert abs(ensure_demo_store().base_time - time.time()) < 60

    data = orjson.loads(marker.read_bytes())
    data["generator"] = GENERATOR_VERSION + 1
    marker.write_bytes(orjson.dumps(data))
    assert read_demo_store(demo_agent_dir()) is None
    ensure_demo_store()
    assert orjson.loads(marker.read_bytes())["generator"] == GENERATOR_VERSION


def test_a_damaged_store_is_replaced() -> None:
    agent = demo_agent_dir()
    (agent / "sessions").mkdir(parents=True)
    (agent / "sessions" / "junk.txt").write_text("not a store")
    store = ensure_demo_store(base_time=BASE)
    assert not (agent / "sessions" / "junk.txt").exists()
    assert len(session_files(agent)) == store.sessions


# ------------------------------------------------------------------------------ scenario data


def play(tmp_path: Path, *steps: dict[str, Any]) -> None:
    builder = Builder(tmp_path / "agent", BASE)
    chat = builder.start(
        PROJECTS[0], ago=3600, model=MODELS["claude-haiku-4-5"], thinking="off", files={}
    )
    Player(Scenario("test", "99-test.toml", {}, {}, list(steps)), chat).play()


@pytest.mark.parametrize(
    ("steps", "message"),
    [
        ([{"user": "hi", "think": 3}], "99-test.toml: step 1: user takes no 'think'"),
        ([{"user": "hi"}, {"say": "a", "user": "b"}], "step 2: one action wanted"),
        ([{"thinking": "hm"}], "step 1: one action wanted, not []"),
        ([{"user": "hi"}, {"label": "x", "on": "nowhere"}], "no earlier step is marked 'nowhere'"),
        ([{"run": [{"read": "a", "limit": 1, "glob": "*"}]}], "step 1: not a tool call"),
        ([{"user": "hi"}, {"model": "gpt-4"}], "step 2: model is not one of"),
    ],
)
def test_a_scenario_step_that_cannot_be_played_is_named(
    tmp_path: Path, steps: list[dict[str, Any]], message: str
) -> None:
    with pytest.raises(ScenarioError, match=re.escape(message)):
        play(tmp_path, *steps)


def test_marks_name_entries_and_going_back_restores_the_files(tmp_path: Path) -> None:
    builder = Builder(tmp_path / "agent", BASE)
    chat = builder.start(
        PROJECTS[0], ago=3600, model=MODELS["claude-haiku-4-5"], thinking="off", files={}
    )
    steps: list[dict[str, Any]] = [
        {"mark": "asked", "user": "write a file"},
        {"write": "a.txt", "content": "one"},
        {"mark": "wrote", "say": "done"},
        {"back_to": "asked"},
        {"read": "a.txt"},
    ]
    marks = Player(Scenario("test", "99-test.toml", {}, {}, steps), chat).play()
    assert marks["wrote"].files == {"a.txt": "one\n"} and marks["asked"].files == {}
    view = chat.sm.session
    asked = view.get(marks["asked"].entry)
    assert asked is not None and asked.role == "user"
    # the new branch starts at the mark, and its read finds no file: the workspace is as it
    # was at "asked"
    call, result = view.entries[-2:]
    assert call.role == "assistant" and call.parent_id == marks["asked"].entry
    message = view.raw(result)["message"]
    assert message["role"] == "toolResult" and message["isError"]
