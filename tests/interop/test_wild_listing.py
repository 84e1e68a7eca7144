"""``pitui list`` against the listing of pi 0.73.1 and 1.6.0 on the files from the wild (issue 20).

- Every wild file pi lists, pitui lists with the same record; a header without id (which pi lists
  with no id, and cannot resume) is marked; a line before the header (a fork's title line, which
  pi does not list) is listed too, marked: both are never resumed (see the picker's tests).
- A last line without its newline, fresh (pi may still be writing it): at every moment of its
  writing (whole but unterminated, then terminated with the next line half written, then all
  written) pitui lists what both pi releases list, from the files and through the index, which
  keys a file by size and time: a line that gets its newline later is read again, once.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import orjson

from pitui.core.store import Store
from tests.conftest import PI_LISTED_KEYS
from tests.core.sessiondata import HEADER, assistant, jsonl, user
from tests.interop.pi_oracle import PiOracle
from tests.interop.wild import wild_files

JsonDict = dict[str, Any]
# What pi's listing and `pitui list --json` both name (pi_oracle.PiOracle.list_sessions).
COMPARED = (*PI_LISTED_KEYS, "allMessagesTextLength")
MARKED = {"header-without-id.jsonl": "no-id", "line-before-header.jsonl": "line-before-header"}


def pi_listing(oracle: PiOracle, agent: Path) -> dict[str, JsonDict]:
    return {Path(r["path"]).name: r for r in oracle.list_sessions(agent)}


def pitui_listing(agent: Path, index: Path | None) -> dict[str, JsonDict]:
    store = Store(cwd="/", agent=agent, use_index=index is not None, index_path=index)
    try:
        return {Path(i.path).name: i.to_json() for i in store.load("all", texts=True)}
    finally:
        store.close()


def same_records(pi: JsonDict, ours: JsonDict) -> None:
    for key in COMPARED:
        assert ours[key] == pi.get(key), (key, pi.get("path"))


def test_pitui_lists_what_pi_lists_and_marks_what_pi_cannot_resume(
    pi_oracles: tuple[PiOracle, PiOracle], tmp_path: Path
) -> None:
    folder = tmp_path / "agent" / "sessions" / "--home-alice-wild--"
    folder.mkdir(parents=True)
    for path in wild_files():
        shutil.copyfile(path, folder / path.name)
    for index in (None, tmp_path / "index.sqlite3", tmp_path / "index.sqlite3"):  # cold, warm
        ours = pitui_listing(tmp_path / "agent", index)
        assert {
            name: info["headerProblem"] for name, info in ours.items() if info["headerProblem"]
        } == MARKED
        for oracle in pi_oracles:
            theirs = pi_listing(oracle, tmp_path / "agent")
            assert set(ours) == set(theirs) | {"line-before-header.jsonl"}
            for name, pi in theirs.items():
                same_records(pi, ours[name])


def test_an_unterminated_last_line_is_listed_as_pi_lists_it_while_it_is_written(
    pi_oracles: tuple[PiOracle, PiOracle], tmp_path: Path
) -> None:
    agent = tmp_path / "agent"
    folder = agent / "sessions" / "--home-alice-wild--"
    folder.mkdir(parents=True)
    path = folder / "fresh.jsonl"
    header = {**HEADER, "cwd": "/home/alice/wild"}
    third = orjson.dumps(user("u2", "a1", "and the third one, written in two halves", t=3000))
    stages = [
        # a whole last line without its newline (a tool joining lines with "\n")
        jsonl(user("u1", None, "first", t=1000), header=header)
        + orjson.dumps(assistant("a1", "u1", "second, unterminated", t=2000)),
        b"\n" + third[:30],  # its newline comes, and half of the next line
        third[30:] + b"\n",  # the rest
    ]
    index = tmp_path / "index.sqlite3"
    counts = []
    for stage in stages:
        with open(path, "ab") as handle:  # (an append, fresh: pi may be writing it)
            handle.write(stage)
        ours_cold = pitui_listing(agent, None)["fresh.jsonl"]
        ours_warm = pitui_listing(agent, index)["fresh.jsonl"]
        for oracle in pi_oracles:
            pi = pi_listing(oracle, agent)["fresh.jsonl"]
            same_records(pi, ours_cold)
            same_records(pi, ours_warm)
        counts.append(ours_warm["messageCount"])
        os.utime(path)  # (the next stage a moment later)
    assert counts == [2, 2, 3]
