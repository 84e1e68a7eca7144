"""The demo's scripted sessions as data: one TOML file per session in ``scenarios/``.

A file's name orders it (``01-webapp-pagination.toml``: played first; scenarios that branch or
fork another come after it) and names it (``webapp-pagination``). Its ``[session]`` table says
how the session begins:

- ``cwd``, ``ago`` (``"5d 6h"``: how long before the base time it starts), ``model`` (an id of
  :data:`pitui.demo.chat.MODELS`), ``thinking`` (the level), ``workspace`` (a file set of
  ``workspaces/``) and a ``[files]`` table (more files, or other contents) for a new session;
  ``ends_ago`` instead of ``ago``: its last entry lands that long before the base time;
- ``branch_of`` (a scenario) and ``at`` (a mark there; without it, the leaf pi opens the source
  at): pi's ``/fork`` into a new session of the same folder, with the workspace as it was at
  the mark;
- ``fork_of`` and ``cwd``: pi's ``forkFrom``, a copy continued in another folder;
  ``uncached_tokens``: what its first request sends beyond the copied history.

Then each ``[[step]]`` is one thing that happens, in order; its first key says what (see
``_ACTIONS``): the user writes (``user``, with ``images``), the model answers (``say``, with
``thinking``, ``stop``, ``error``; ``stop`` alone: an answer without text), calls one tool
(``ls``/``read``/``grep``/``find``/``write``/``edit``/``bash``, with ``text`` and ``thinking``)
or several at once (``run``), time passes (``pause``, minutes), an extension records ``todos``
or a ``note``, the user labels (``label`` ``on`` a mark, ``unlabel``), names the session
(``name``), switches ``model`` or ``thinking_level``, runs a ``shell`` command, compacts
(``compact``, ``kept`` from a mark on), goes back in the tree (``back_to`` a mark, with a
``summary`` of the branch left), or changes a file outside the conversation (``put``).
``mark = "name"`` names a step's entry for later steps and for scenarios that branch from it.

Text the model writes is wrapped in the files and joined into paragraphs when played (see
:func:`pitui.demo.workspace.prose`); code and tool outputs are kept line for line.
"""

from __future__ import annotations

import base64
import functools
import re
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Any

from pitui.demo.chat import MODELS, Chat
from pitui.demo.workspace import Op, Workspace, bash

__all__ = [
    "Mark",
    "Player",
    "Scenario",
    "ScenarioError",
    "load_scenarios",
    "parse_ago",
    "workspace",
]

_UNITS = {"d": 86400.0, "h": 3600.0, "m": 60.0, "s": 1.0}
_SESSION_KEYS = frozenset(
    {"cwd", "ago", "ends_ago", "model", "thinking", "workspace"}
    | {"branch_of", "at", "fork_of", "uncached_tokens"}
)


class ScenarioError(ValueError):
    """A scenario file that cannot be played; ``str(exc)`` names the file and the step."""


@dataclass(frozen=True, slots=True)
class Scenario:
    """One data file: ``name`` without the order prefix, ``source`` the file name."""

    name: str
    source: str
    session: Mapping[str, Any]
    files: Mapping[str, str]
    steps: Sequence[Mapping[str, Any]]


@dataclass(frozen=True, slots=True)
class Mark:
    """A marked step: its entry's id and the workspace files right after it."""

    entry: str
    files: Mapping[str, str]


def _data() -> Traversable:
    return resources.files("pitui.demo")


def load_scenarios() -> list[Scenario]:
    """Every scenario, in the order they are played."""
    folder = _data() / "scenarios"
    files = sorted((f for f in folder.iterdir() if f.name.endswith(".toml")), key=lambda f: f.name)
    return [_load(file) for file in files]


def _load(file: Traversable) -> Scenario:
    try:
        data = tomllib.loads(file.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ScenarioError(f"{file.name}: {exc}") from exc
    session = data.get("session", {})
    unknown = set(session) - _SESSION_KEYS
    if unknown:
        raise ScenarioError(f"{file.name}: [session] has no key {sorted(unknown)[0]!r}")
    name = re.sub(r"^\d+-", "", file.name.removesuffix(".toml"))
    return Scenario(name, file.name, session, data.get("files", {}), data.get("step", []))


@functools.cache
def workspace(name: str) -> Mapping[str, str]:
    """The files of ``workspaces/<name>.toml``: path → content."""
    data: dict[str, str] = tomllib.loads(
        (_data() / "workspaces" / f"{name}.toml").read_text(encoding="utf-8")
    )
    return data


@functools.cache
def _image(name: str) -> str:
    return base64.b64encode((_data() / "images" / name).read_bytes()).decode("ascii")


def parse_ago(text: str, scenario: Scenario) -> float:
    """``"5d 6h"``, ``"11m"``, ``"20s"`` in seconds."""
    total = 0.0
    for part in text.split():
        match = re.fullmatch(r"(\d+)([dhms])", part)
        if match is None:
            raise ScenarioError(f"{scenario.source}: {text!r} is not a duration like '5d 6h'")
        total += int(match[1]) * _UNITS[match[2]]
    return total


# ------------------------------------------------------------------------------------ playing

# A tool call's own fields, beside the key naming the tool.
_TOOLS: Mapping[str, frozenset[str]] = {
    "ls": frozenset(),
    "read": frozenset(("offset", "limit")),
    "grep": frozenset(("path", "glob")),
    "find": frozenset(("path",)),
    "write": frozenset(("content",)),
    "edit": frozenset(("old", "new")),
    "bash": frozenset(("output", "code", "timeout")),
}
_TURN = frozenset(("text", "thinking"))


def _tool_call(ws: Workspace, call: Mapping[str, Any]) -> Op:
    """What the tool answers (a workspace tool reads and changes ``ws``)."""
    if "ls" in call:
        return ws.ls(call["ls"])
    if "read" in call:
        return ws.read(call["read"], call.get("offset"), call.get("limit"))
    if "grep" in call:
        return ws.grep(call["grep"], call.get("path", "."), call.get("glob"))
    if "find" in call:
        return ws.find(call["find"], call.get("path", "."))
    if "write" in call:
        return ws.write(call["write"], call["content"])
    if "edit" in call:
        return ws.edit(call["edit"], call["old"], call["new"])
    return bash(call["bash"], call["output"], call.get("code", 0), timeout=call.get("timeout"))


class Player:
    """Plays a scenario's steps on ``chat``, the session being written."""

    def __init__(self, scenario: Scenario, chat: Chat) -> None:
        self.scenario = scenario
        self.chat = chat
        self.marks: dict[str, Mark] = {}
        self._where = scenario.source

    def play(self) -> dict[str, Mark]:
        """Every step, in order; returns the marks."""
        for number, step in enumerate(self.scenario.steps, 1):
            self._where = f"{self.scenario.source}: step {number}"
            actions = [key for key in step if key in _ACTIONS]
            if actions == ["say", "stop"] or actions == ["stop", "say"]:
                actions = ["say"]
            if len(actions) != 1:
                raise ScenarioError(f"{self._where}: one action wanted, not {actions}")
            action = actions[0]
            play, allowed = _ACTIONS[action]
            unknown = set(step) - allowed - {action, "mark"}
            if unknown:
                raise ScenarioError(f"{self._where}: {action} takes no {sorted(unknown)[0]!r}")
            entry = play(self, step)
            if "mark" in step:
                self.marks[step["mark"]] = Mark(entry, dict(self.chat.ws.files))
        return self.marks

    def entry(self, mark: str) -> str:
        """The id of the entry of an earlier step marked ``mark``."""
        found = self.marks.get(mark)
        if found is None:
            raise ScenarioError(f"{self._where}: no earlier step is marked {mark!r}")
        return found.entry

    def user(self, step: Mapping[str, Any]) -> str:
        images = step.get("images", [])
        if not images:
            return self.chat.user(step["user"])
        text = {"type": "text", "text": step["user"]}
        return self.chat.user(
            [text]
            + [
                {"type": "image", "data": _image(image["file"]), "mimeType": image["mimeType"]}
                for image in images
            ]
        )

    def reply(self, step: Mapping[str, Any]) -> str:
        return self.chat.reply(
            step.get("say"),
            thinking=step.get("thinking"),
            stop=step.get("stop"),
            error=step.get("error"),
        )

    def tool(self, step: Mapping[str, Any]) -> str:
        call = {key: value for key, value in step.items() if key not in _TURN | {"mark"}}
        return self._turn(step, [call])

    def run(self, step: Mapping[str, Any]) -> str:
        for call in step["run"]:
            tool = next((key for key in call if key in _TOOLS), None)
            if tool is None or set(call) - _TOOLS[tool] - {tool}:
                raise ScenarioError(f"{self._where}: not a tool call: {call}")
        return self._turn(step, step["run"])

    def _turn(self, step: Mapping[str, Any], calls: Sequence[Mapping[str, Any]]) -> str:
        ops = [_tool_call(self.chat.ws, call) for call in calls]  # in order: edits build up
        return self.chat.run(*ops, text=step.get("text"), thinking=step.get("thinking"))

    def pause(self, step: Mapping[str, Any]) -> str:
        self.chat.pause(step["pause"])
        return ""

    def todos(self, step: Mapping[str, Any]) -> str:
        return self.chat.todos(step["todos"])

    def label(self, step: Mapping[str, Any]) -> str:
        return self.chat.label(self.entry(step["on"]), step["label"])

    def unlabel(self, step: Mapping[str, Any]) -> str:
        return self.chat.label(self.entry(step["unlabel"]), None)

    def name(self, step: Mapping[str, Any]) -> str:
        return self.chat.name(step["name"])

    def switch_model(self, step: Mapping[str, Any]) -> str:
        model = MODELS.get(step["model"])
        if model is None:
            raise ScenarioError(f"{self._where}: model is not one of {', '.join(MODELS)}")
        return self.chat.switch_model(model)

    def thinking_level(self, step: Mapping[str, Any]) -> str:
        return self.chat.thinking_level(step["thinking_level"])

    def shell(self, step: Mapping[str, Any]) -> str:
        return self.chat.shell(
            step["shell"], step["output"], step.get("code", 0), exclude=step.get("exclude", False)
        )

    def compact(self, step: Mapping[str, Any]) -> str:
        kept = self.entry(step["kept"])
        return self.chat.compact(step["compact"], kept, retain=step.get("retain", False))

    def note(self, step: Mapping[str, Any]) -> str:
        return self.chat.note(
            step["custom_type"], step["note"], display=step["display"], details=step.get("details")
        )

    def back_to(self, step: Mapping[str, Any]) -> str:
        """Back in the tree; the workspace goes back to how it was at the mark too."""
        target = step["back_to"]
        entry = self.chat.back_to(self.entry(target), step.get("summary"), step.get("details"))
        self.chat.ws.files = dict(self.marks[target].files)
        return entry

    def put(self, step: Mapping[str, Any]) -> str:
        self.chat.ws.files[step["put"]] = step["content"]
        return ""


_Play = Callable[[Player, Mapping[str, Any]], str]

# action key → (how it is played, the other keys it takes)
_ACTIONS: Mapping[str, tuple[_Play, frozenset[str]]] = {
    "user": (Player.user, frozenset(("images",))),
    "say": (Player.reply, frozenset(("thinking", "stop", "error"))),
    "stop": (Player.reply, frozenset(("error",))),  # an answer without text
    **{tool: (Player.tool, fields | _TURN) for tool, fields in _TOOLS.items()},
    "run": (Player.run, _TURN),
    "pause": (Player.pause, frozenset()),
    "todos": (Player.todos, frozenset()),
    "label": (Player.label, frozenset(("on",))),
    "unlabel": (Player.unlabel, frozenset()),
    "name": (Player.name, frozenset()),
    "model": (Player.switch_model, frozenset()),
    "thinking_level": (Player.thinking_level, frozenset()),
    "shell": (Player.shell, frozenset(("output", "code", "exclude"))),
    "compact": (Player.compact, frozenset(("kept", "retain"))),
    "note": (Player.note, frozenset(("custom_type", "display", "details"))),
    "back_to": (Player.back_to, frozenset(("summary", "details"))),
    "put": (Player.put, frozenset(("content",))),
}
