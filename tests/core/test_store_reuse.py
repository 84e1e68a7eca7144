"""A reload keeps the objects of unchanged sessions, and the texts read for them (issue 24.13:
a picker following pi reloaded every text, and held a second copy, many times a minute)."""

from __future__ import annotations

import os
from pathlib import Path

from tests.core.sessiondata import HEADER, assistant, jsonl, user
from tests.core.test_store import make_store, write_session


def test_unchanged_sessions_come_back_as_the_same_objects(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    folder = agent / "sessions" / "--home-ana-proj--"
    paths = [
        write_session(folder / f"s{n}.jsonl", user("u1", None, f"talk {n}"), assistant("a1", "u1"),
                      header={**HEADER, "id": f"0195aaaa-0000-7000-8000-00000000000{n}"})
        for n in range(3)
    ]  # fmt: skip
    with make_store(agent, tmp_path, True, cwd="/home/ana/proj") as store:
        first = {info.path: info for info in store.load("all")}
        store.load_texts(first.values())
        assert all(info.all_messages_text for info in first.values())
        with open(paths[0], "ab") as handle:  # pi appends to one session
            handle.write(jsonl(user("u2", "a1", "more", 9), header=None))
        os.unlink(paths[2])  # and another one is deleted
        second = {info.path: info for info in store.load("all")}
        assert sorted(second) == sorted(str(p) for p in paths[:2])
        assert second[str(paths[1])] is first[str(paths[1])]  # unchanged: the same, text and all
        assert second[str(paths[1])].all_messages_text
        assert second[str(paths[0])] is not first[str(paths[0])]  # grown: read again
        store.load_texts(second.values())
        assert "more" in (second[str(paths[0])].all_messages_text or "")
