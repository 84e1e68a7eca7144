"""Writes the demo sessions: each scenario of ``scenarios/`` played into a session file.

The scenarios are played in the order of their file names (sources before their forks) with
one random source and one simulated clock, so the same base time gives the same bytes. New
sessions are built in memory and then written with pi's first flush
(:func:`pitui.core.edit.first_flush`): one write per file instead of one fsync'd append per entry
keeps the build around a second.
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import orjson

from pitui.core import edit, paths
from pitui.core.manager import SessionManager
from pitui.core.session import Session
from pitui.core.stringify import dump_header
from pitui.demo.chat import MODELS, Chat, Clock, Model
from pitui.demo.scenario import (
    Mark,
    Player,
    Scenario,
    ScenarioError,
    load_scenarios,
    parse_ago,
    workspace,
)

HOUR = 3600.0


@dataclass(frozen=True, slots=True)
class Played:
    """A written scenario: its session file and the entries it marked."""

    path: str
    marks: Mapping[str, Mark]


def write_sessions(agent: Path, base_time: float, installed_at: Path) -> list[str]:
    """Write every scenario's session into ``agent`` as of ``base_time``; returns the paths the
    files will have once ``agent`` is renamed to ``installed_at``."""
    builder = Builder(agent, base_time)
    played: dict[str, Played] = {}
    for scenario in load_scenarios():
        played[scenario.name] = _write(builder, scenario, played)
    return builder.finish(installed_at)


def _write(builder: Builder, scenario: Scenario, played: Mapping[str, Played]) -> Played:
    def write(ago: float) -> Played:
        chat = _begin(builder, scenario, played, ago)
        marks = Player(scenario, chat).play()
        return Played(builder.save(chat), marks)

    meta = scenario.session
    if "ends_ago" in meta:
        return builder.latest(write, gap=parse_ago(meta["ends_ago"], scenario))
    return write(parse_ago(meta["ago"], scenario))


def _begin(builder: Builder, scenario: Scenario, played: Mapping[str, Played], ago: float) -> Chat:
    """The new session of ``scenario``, as its ``[session]`` table says it begins."""
    meta = scenario.session
    model = _model(scenario)
    if "branch_of" in meta:
        source = _source(scenario, played, meta["branch_of"])
        if "at" not in meta:  # from the leaf pi opens the source at, without its files
            return builder.branch(source.path, _leaf(source.path), ago=ago, model=model)
        mark = source.marks.get(meta["at"])
        if mark is None:
            raise ScenarioError(f"{scenario.source}: {meta['branch_of']} marks no {meta['at']!r}")
        return builder.branch(source.path, mark.entry, ago=ago, model=model, files=mark.files)
    if "fork_of" in meta:
        source = _source(scenario, played, meta["fork_of"])
        chat = builder.fork(source.path, meta["cwd"], ago=ago, model=model)
        chat.pending += int(meta.get("uncached_tokens", 0))
        return chat
    files = dict(workspace(meta["workspace"])) if "workspace" in meta else {}
    files.update(scenario.files)
    return builder.start(meta["cwd"], ago=ago, model=model, thinking=meta["thinking"], files=files)


def _model(scenario: Scenario) -> Model:
    model = MODELS.get(scenario.session.get("model", ""))
    if model is None:
        raise ScenarioError(f"{scenario.source}: model is not one of {', '.join(MODELS)}")
    return model


def _source(scenario: Scenario, played: Mapping[str, Played], name: str) -> Played:
    source = played.get(name)
    if source is None:
        raise ScenarioError(f"{scenario.source}: {name!r} is not a scenario played before it")
    return source


def _leaf(path: str) -> str:
    with Session.open(path, final=True) as session:
        leaf = session.leaf_id
    if leaf is None:
        raise ScenarioError(f"{path}: an empty session cannot be branched")
    return leaf


class Builder:
    """Writes the sessions of one demo store into ``agent`` (the store being built)."""

    def __init__(self, agent: Path, base_time: float) -> None:
        self.agent = agent
        self.base_ms = round(base_time * 1000)
        # One random source for ids, tool call ids and timing: same base time, same bytes.
        self.rng = random.Random(self.base_ms)
        self.clock = Clock(self.base_ms)
        self.files: list[tuple[str, int]] = []  # (path, time of its last entry in ms)
        self.dry = False  # a dry run (see latest) writes nothing
        self.last_end = 0

    def folder(self, cwd: str) -> str:
        return str(paths.session_dir_for(cwd, self.agent))

    def _at(self, ago: float) -> None:
        # a few seconds of jitter so that no two sessions start on a round number
        self.clock.ms = self.base_ms - round(ago * 1000) + self.rng.randint(0, 59_000)

    def start(
        self, cwd: str, *, ago: float, model: Model, thinking: str, files: Mapping[str, str]
    ) -> Chat:
        """A new session that starts ``ago`` seconds before the base time, written in memory
        first (pi's writer writes it at the first assistant message anyway; one write keeps the
        build fast) and saved by :meth:`save`."""
        self._at(ago)
        sm = SessionManager.in_memory(cwd, clock=self.clock, rng=self.rng)
        chat = Chat(sm, self.clock, self.rng, model, files)
        # pi records the model and thinking level a session starts with
        sm.append_model_change(model.provider, model.id)
        sm.append_thinking_level_change(thinking)
        return chat

    def save(self, chat: Chat) -> str:
        """Write a session: the file pi would have written (header and entries, pi's key order,
        exclusive create), named and placed by pi's rules."""
        self._check_time()
        if self.dry:
            self.last_end = self.clock.ms
            chat.sm.close()
            return ""
        if chat.sm.is_persisted():
            path = chat.sm.get_session_file()
            assert path is not None
        else:
            view = chat.sm.session
            header = dict(view.header)
            entries = [view.raw(meta) for meta in view.entries]
            folder = self.folder(chat.sm.get_cwd())
            os.makedirs(folder, exist_ok=True)
            path = os.path.join(folder, paths.session_file_name(header["timestamp"], header["id"]))
            edit.first_flush(path, header, entries)
        chat.sm.close()
        self.files.append((path, self.clock.ms))
        return path

    def branch(
        self,
        source: str,
        leaf: str,
        *,
        ago: float,
        model: Model,
        files: Mapping[str, str] | None = None,
    ) -> Chat:
        """pi's ``/fork`` (``createBranchedSession``): a new session holding root → ``leaf`` of
        ``source``, with ``parentSession`` naming it. ``files``: the workspace at ``leaf``."""
        self._at(ago)
        sm = SessionManager.open(source, clock=self.clock, rng=self.rng, force=True)
        sm.create_branched_session(leaf)
        chat = Chat(sm, self.clock, self.rng, model)
        chat.ws.files = dict(files or {})  # already normalized
        chat.pending += sum(m.length for m in sm.session.entries) // 4  # nothing cached yet
        return chat

    def fork(self, source: str, cwd: str, *, ago: float, model: Model) -> Chat:
        """pi's ``forkFrom``: a copy of a session of another folder, continued in ``cwd``."""
        self._at(ago)
        sm = SessionManager.fork_from(source, cwd, self.folder(cwd), clock=self.clock, rng=self.rng)
        sm.force = True  # the copy was written a moment ago, by this builder
        return Chat(sm, self.clock, self.rng, model)

    def latest(self, write: Callable[[float], Played], *, gap: float) -> Played:
        """Run ``write(ago)`` so that the session's last entry lands ``gap`` seconds before the
        base time (the picker shows it as "now"). A dry run with the same random state measures
        how long the scenario takes; the real run then starts that much earlier. The session must
        be an in-memory one (:meth:`start`)."""
        state = self.rng.getstate()
        probe = HOUR
        self.dry = True
        try:
            write(probe)
        finally:
            self.dry = False
        self.rng.setstate(state)
        return write(probe + gap - (self.base_ms - self.last_end) / 1000)

    def _check_time(self) -> None:
        if self.clock.ms > self.base_ms:
            raise ScenarioError("a demo session runs past the base time")

    def finish(self, installed_at: Path) -> list[str]:
        """Make ``parentSession`` name the installed files, and give every file the time of its
        last entry as its modification time (what ``--continue`` and file managers see)."""
        here = str(self.agent) + os.sep
        there = str(installed_at) + os.sep
        for path, last in self.files:
            data = Path(path).read_bytes()
            end = data.index(b"\n") + 1
            header = orjson.loads(data[:end])
            parent = header.get("parentSession")
            if isinstance(parent, str) and parent.startswith(here) and here != there:
                header["parentSession"] = there + parent[len(here) :]
                # a plain rewrite: nobody sees the store before it is renamed into place
                Path(path).write_bytes(dump_header(header) + data[end:])
            os.utime(path, (last / 1000, last / 1000))
        return [there + path[len(here) :] for path, _ in self.files]
