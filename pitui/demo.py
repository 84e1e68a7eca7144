"""The built-in demo store: a realistic pi agent directory, written by pitui's own writer.

``pitui --demo`` browses it when a user has no pi sessions yet, so every feature can be tried on
data that cannot be lost. Five fictional projects (none of the folders exist on disk), 30 sessions
of coding-agent work spread over the three months before ``base_time``: tool calls with outputs
that agree with each other (a small in-memory workspace answers ``read``/``ls``/``grep``/``find``/
``edit``/``write``), branches (edit-and-resubmit, regenerate, branch summaries), labels (one
cleared), names, model and thinking-level changes, two kinds of compaction, ``custom`` and
``custom_message`` entries, a ``bashExecution``, an image, error/aborted/length stop reasons,
usage with costs, forks (``fork_from`` and ``create_branched_session``, so the threaded picker shows
a tree) and a session whose text looks like Rich markup and holds an ANSI escape.

Every session is written through :class:`pitui.core.manager.SessionManager` with an injected clock
and random source: with a fixed ``base_time`` two builds are byte-identical (screenshots are
reproducible). New sessions are built in memory and then written with pi's first flush
(:func:`pitui.core.edit.first_flush`): one write per file instead of one fsync'd append per entry
keeps the build around a second. The store is built in a temp folder beside its place and
renamed into it, so a reader never sees half a store.

Example::

    demo = ensure_demo_store()
    Store(agent=demo.agent_dir, cwd=demo.cwd)
"""

from __future__ import annotations

import base64
import contextlib
import difflib
import fnmatch
import os
import random
import re
import shutil
import struct
import tempfile
import time
import zlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from textwrap import dedent
from typing import Any

import orjson

from pitui.core import edit, paths
from pitui.core.manager import SessionManager
from pitui.core.models import dump_header
from pitui.core.session import Session

__all__ = [
    "GENERATOR_VERSION",
    "MARKER_NAME",
    "PROJECTS",
    "REFRESH_AFTER",
    "DemoStore",
    "DemoStoreError",
    "demo_agent_dir",
    "ensure_demo_store",
    "read_demo_store",
    "write_demo_store",
]

# Bump whenever the generated content changes: an existing store with another version is rebuilt.
GENERATOR_VERSION = 1
MARKER_NAME = "pitui-demo.json"
# A store built for "now" (no base_time) is rebuilt after a day, so that its ages stay believable.
REFRESH_AFTER = 24 * 3600.0

HOME = "/home/demo"
WEBAPP = f"{HOME}/code/webapp"
CLI = f"{HOME}/code/cli-tool"
INFRA = f"{HOME}/code/infra"
NOTES = f"{HOME}/notes"
PIPELINE = f"{HOME}/code/data-pipeline"
PROJECTS: tuple[str, ...] = (WEBAPP, CLI, INFRA, NOTES, PIPELINE)
CURRENT = WEBAPP  # the folder the demo opens in: its Current Folder scope is the fullest

MINUTE = 60.0
HOUR = 3600.0
DAY = 86400.0


class DemoStoreError(Exception):
    """The demo store could not be written; ``str(exc)`` is one line."""


@dataclass(frozen=True, slots=True)
class DemoStore:
    """A demo agent directory: point ``PI_CODING_AGENT_DIR`` (or ``Store(agent=...)``) at
    ``agent_dir`` and open the picker in ``cwd``. ``base_time`` is the moment the content is
    dated against (epoch seconds); ``sessions`` the number of session files."""

    agent_dir: Path
    cwd: str
    projects: list[str]
    base_time: float
    sessions: int


# ------------------------------------------------------------------------------------- the store


def demo_agent_dir() -> Path:
    """Where :func:`ensure_demo_store` keeps the store: ``<cache dir>/demo/agent``."""
    return paths.cache_dir() / "demo" / "agent"


def read_demo_store(agent: Path) -> DemoStore | None:
    """The store described by the marker file in ``agent``; ``None`` if there is none, it is
    damaged, or it was made by another generator version."""
    try:
        marker = orjson.loads((agent / MARKER_NAME).read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    if not isinstance(marker, dict) or marker.get("generator") != GENERATOR_VERSION:
        return None
    base = marker.get("baseTime")
    cwd = marker.get("cwd")
    projects = marker.get("projects")
    count = marker.get("sessions")
    if (
        not isinstance(base, int | float)
        or not isinstance(cwd, str)
        or not isinstance(projects, list)
        or not all(isinstance(p, str) for p in projects)
        or not isinstance(count, int)
    ):
        return None
    return DemoStore(agent, cwd, list(projects), float(base), count)


def ensure_demo_store(*, base_time: float | None = None, force: bool = False) -> DemoStore:
    """The demo store in the cache dir, built if missing.

    An existing store is reused when its marker names this generator version and, with an
    explicit ``base_time``, the same base time; without one, when it is less than a day old.
    ``force`` rebuilds. Building takes well under two seconds; it happens in a temp folder that
    is then renamed into place, so concurrent callers never see a partial store. Raises
    :class:`DemoStoreError`.
    """
    target = demo_agent_dir()
    if not force:
        existing = read_demo_store(target)
        if existing is not None and _reusable(existing, base_time):
            return existing
    moment = time.time() if base_time is None else float(base_time)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        building = Path(tempfile.mkdtemp(prefix=".agent-", dir=target.parent))
    except OSError as exc:
        raise DemoStoreError(f"{target.parent}: cannot write the demo store ({exc})") from exc
    try:
        write_demo_store(building, moment, installed_at=target)
        _install(building, target)
    except (OSError, edit.WriteError) as exc:
        raise DemoStoreError(f"{target}: cannot write the demo store ({exc})") from exc
    finally:
        shutil.rmtree(building, ignore_errors=True)
    store = read_demo_store(target)
    if store is None:
        raise DemoStoreError(f"{target}: the demo store vanished while it was installed")
    return store


def _reusable(store: DemoStore, base_time: float | None) -> bool:
    if base_time is not None:
        return store.base_time == float(base_time)
    return 0.0 <= time.time() - store.base_time < REFRESH_AFTER


def _install(building: Path, target: Path) -> None:
    """Rename the finished store into place; an older store is moved aside first, then deleted.
    If another process installed a store in between, theirs is kept (ours is discarded)."""
    aside: Path | None = None
    if target.exists() or target.is_symlink():
        aside = Path(tempfile.mkdtemp(prefix=".old-", dir=target.parent))
        with contextlib.suppress(FileNotFoundError):  # another process moved it first
            os.rename(target, aside / "agent")
    try:
        os.rename(building, target)
    except OSError:
        if read_demo_store(target) is None:
            raise
    finally:
        if aside is not None:
            shutil.rmtree(aside, ignore_errors=True)


def write_demo_store(
    agent: Path, base_time: float, *, installed_at: Path | None = None
) -> DemoStore:
    """Write the demo sessions into ``agent`` (an empty or missing folder) as of ``base_time``.

    ``installed_at``: where the folder will be renamed to; the ``parentSession`` paths of forks
    name the files there. Used by :func:`ensure_demo_store`; tests and benchmarks call it
    directly.
    """
    builder = _Builder(agent, base_time)
    _write_all(builder)
    final = installed_at if installed_at is not None else agent
    files = builder.finish(final)
    marker = {
        "generator": GENERATOR_VERSION,
        "baseTime": base_time,
        "cwd": CURRENT,
        "projects": list(PROJECTS),
        "sessions": len(files),
    }
    (agent / MARKER_NAME).write_bytes(orjson.dumps(marker, option=orjson.OPT_INDENT_2) + b"\n")
    return DemoStore(final, CURRENT, list(PROJECTS), base_time, len(files))


# ------------------------------------------------------------------------------------ the writer


@dataclass(frozen=True, slots=True)
class _Model:
    provider: str
    api: str
    id: str
    # US$ per million tokens: input, output, cache read, cache write (as pi's model registry)
    prices: tuple[float, float, float, float]


SONNET = _Model("anthropic", "anthropic-messages", "claude-sonnet-4-5", (3, 15, 0.3, 3.75))
OPUS = _Model("anthropic", "anthropic-messages", "claude-opus-4-1", (15, 75, 1.5, 18.75))
HAIKU = _Model("anthropic", "anthropic-messages", "claude-haiku-4-5", (1, 5, 0.1, 1.25))
GPT5 = _Model("openai", "openai-responses", "gpt-5", (1.25, 10, 0.125, 0))
GEMINI = _Model("google", "google-generative-ai", "gemini-2.5-pro", (1.25, 10, 0.31, 0))


class _Clock:
    """Simulated time in whole milliseconds; the SessionManager reads it for every timestamp."""

    def __init__(self, ms: int) -> None:
        self.ms = ms

    def __call__(self) -> float:
        return self.ms / 1000

    def advance(self, seconds: float) -> None:
        self.ms += max(1, round(seconds * 1000))


@dataclass(slots=True)
class _Op:
    """One tool call and what the tool answered."""

    name: str
    args: dict[str, Any]
    output: str
    error: bool = False
    details: Any = None


def bash(command: str, output: str, code: int = 0, *, timeout: int | None = None) -> _Op:
    """A ``bash`` tool call; a non-zero exit is reported the way pi's bash tool reports it."""
    args: dict[str, Any] = {"command": command}
    if timeout is not None:
        args["timeout"] = timeout
    # a line of the script ending in a backslash goes on with the next (terminal lines are long)
    body = re.sub(r"\\\n[ \t]*", "", _text(output))
    text = body if body.strip() else "(no output)"
    if code:
        text += f"\n\nCommand exited with code {code}"
    return _Op("bash", args, text, error=code != 0)


def _text(value: str) -> str:
    """A dedented, stripped block of text (scripts below are indented like code)."""
    return dedent(value).strip("\n")


# A line that starts a Markdown block of its own: list item, heading, table row, quote, fence.
_BLOCK_LINE = re.compile(r"^\s*(?:[-*+] |\d+\. |#|\||>|```)")


def _prose(value: str) -> str:
    """Like :func:`_text`, and the lines of each paragraph or list item joined, as a model
    writes them (the scripts wrap prose to fit the source's line length). Code blocks and
    tables are kept line for line."""
    out: list[str] = []
    fenced = False
    for line in _text(value).split("\n"):
        stripped = line.strip()
        if stripped.startswith("```"):
            fenced = not fenced
            out.append(line)
            continue
        previous = out[-1].strip() if out else ""
        if (
            fenced
            or not stripped
            or not previous
            or previous.startswith(("```", "|", "#"))
            or _BLOCK_LINE.match(line)
        ):
            out.append(line)
        else:
            out[-1] = out[-1].rstrip() + " " + stripped
    return "\n".join(out)


class _Workspace:
    """A project's files in memory, so that tool outputs agree with each other: what ``edit``
    changed, a later ``read`` or ``grep`` shows."""

    def __init__(self, files: Mapping[str, str]) -> None:
        self.files: dict[str, str] = {k: _text(v) + "\n" for k, v in files.items()}

    def _children(self, folder: str) -> list[str]:
        prefix = "" if folder in ("", ".") else folder.rstrip("/") + "/"
        found: set[str] = set()
        for name in self.files:
            if name.startswith(prefix):
                rest = name[len(prefix) :]
                head, sep, _ = rest.partition("/")
                found.add(head + "/" if sep else head)
        return sorted(found, key=lambda n: (n.lower().lstrip("."), n))

    def ls(self, folder: str = ".") -> _Op:
        entries = self._children(folder)
        if not entries:
            return _Op("ls", {"path": folder}, f"Path not found: {folder}", error=True)
        return _Op("ls", {"path": folder}, "\n".join(entries))

    def read(self, path: str, offset: int | None = None, limit: int | None = None) -> _Op:
        args: dict[str, Any] = {"path": path}
        if offset is not None:
            args["offset"] = offset
        if limit is not None:
            args["limit"] = limit
        content = self.files.get(path)
        if content is None:
            return _Op("read", args, f"ENOENT: no such file or directory, open '{path}'", True)
        lines = content.rstrip("\n").split("\n")
        start = (offset or 1) - 1
        end = len(lines) if limit is None else min(len(lines), start + limit)
        text = "\n".join(lines[start:end])
        if end < len(lines):
            text += (
                f"\n\n[Showing lines {start + 1}-{end} of {len(lines)}. "
                f"Use offset={end + 1} to continue]"
            )
        return _Op("read", args, text)

    def grep(self, pattern: str, path: str = ".", glob: str | None = None) -> _Op:
        args: dict[str, Any] = {"pattern": pattern}
        if path != ".":
            args["path"] = path
        if glob is not None:
            args["glob"] = glob
        regex = re.compile(pattern)
        prefix = "" if path == "." else path.rstrip("/") + "/"
        hits: list[str] = []
        for name in sorted(self.files):
            if not (name.startswith(prefix) or name == path):
                continue
            if glob is not None and not fnmatch.fnmatch(name.rsplit("/", 1)[-1], glob):
                continue
            for number, line in enumerate(self.files[name].split("\n"), 1):
                if regex.search(line):
                    hits.append(f"{name}:{number}: {line}")
        return _Op("grep", args, "\n".join(hits) if hits else "No matches found")

    def find(self, pattern: str, path: str = ".") -> _Op:
        args: dict[str, Any] = {"pattern": pattern}
        if path != ".":
            args["path"] = path
        prefix = "" if path == "." else path.rstrip("/") + "/"
        hits = [
            name
            for name in sorted(self.files)
            if name.startswith(prefix) and fnmatch.fnmatch(name, pattern)
        ]
        return _Op("find", args, "\n".join(hits) if hits else "No files found matching pattern")

    def write(self, path: str, content: str) -> _Op:
        body = _text(content) + "\n"
        self.files[path] = body
        return _Op("write", {"path": path, "content": body}, f"Successfully wrote to {path}")

    def edit(self, path: str, old: str, new: str) -> _Op:
        old_text, new_text = _text(old), _text(new)
        before = self.files.get(path)
        # The scripts write blocks dedented; the tool call carries them with the indentation
        # they have in the file, as a model sends them.
        for indent in (" " * n for n in range(0, 17, 2)):
            if before is not None and ("\n" + before).count("\n" + _indent(old_text, indent)) == 1:
                old_text, new_text = _indent(old_text, indent), _indent(new_text, indent)
                break
        args = {"path": path, "oldText": old_text, "newText": new_text}
        if before is None:
            return _Op("edit", args, f"File not found: {path}", error=True, details={})
        if before.count(old_text) != 1:
            return _Op(
                "edit",
                args,
                f"Could not find the exact text in {path}. The old text must match exactly "
                "including all whitespace and newlines.",
                error=True,
                details={},
            )
        after = before.replace(old_text, new_text, 1)
        self.files[path] = after
        diff, first = _pi_diff(before, after)
        return _Op(
            "edit",
            args,
            f"Successfully replaced 1 block(s) in {path}.",
            details={"diff": diff, "firstChangedLine": first},
        )


def _indent(text: str, prefix: str) -> str:
    return "\n".join(prefix + line if line else line for line in text.split("\n"))


def _pi_diff(before: str, after: str) -> tuple[str, int]:
    """The edit tool's display diff: numbered lines, ``-``/``+`` markers, 3 lines of context."""
    old, new = before.split("\n"), after.split("\n")
    width = len(str(max(len(old), len(new))))
    out: list[str] = []
    first = 0
    groups = list(difflib.SequenceMatcher(None, old, new, autojunk=False).get_grouped_opcodes(3))
    for number, group in enumerate(groups):
        if number or group[0][1] > 0:
            out.append(" " * (width + 2) + "...")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out.extend(f" {j + 1:>{width}} {new[j]}" for j in range(j1, j2))
                continue
            if not first:
                first = j1 + 1
            out.extend(f"-{i + 1:>{width}} {old[i]}" for i in range(i1, i2))
            out.extend(f"+{j + 1:>{width}} {new[j]}" for j in range(j1, j2))
    if groups and groups[-1][-1][2] < len(old):
        out.append(" " * (width + 2) + "...")
    return "\n".join(out), first


_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


class _Chat:
    """One session being written: messages with believable timing, token usage and cost."""

    def __init__(
        self,
        sm: SessionManager,
        clock: _Clock,
        rng: random.Random,
        model: _Model,
        workspace: _Workspace | None = None,
    ) -> None:
        self.sm = sm
        self.clock = clock
        self.rng = rng
        self.model = model
        self.ws = workspace if workspace is not None else _Workspace({})
        self.context = 0  # tokens the provider has seen (cached) so far
        self.pending = rng.randint(4200, 6400)  # system prompt and tool definitions
        self.read_files: list[str] = []
        self.modified_files: list[str] = []

    # -------------------------------------------------------------- timing

    def wait(self, low: float, high: float) -> None:
        self.clock.advance(self.rng.uniform(low, high))

    def pause(self, minutes: float) -> None:
        """The user is away (a meeting, lunch, the next morning)."""
        self.clock.advance(minutes * MINUTE + self.rng.uniform(0, 90))

    # -------------------------------------------------------------- messages

    def user(self, content: str | list[dict[str, Any]], *, think: float = 12.0) -> str:
        """The user types and sends a message (time passes while they type)."""
        text = content if isinstance(content, str) else ""
        self.wait(think * 0.5 + len(text) / 12, think * 1.5 + len(text) / 6)
        self.pending += len(text) // 4 + (800 if isinstance(content, list) else 4)
        message = {"role": "user", "content": content, "timestamp": self.clock.ms}
        return self.sm.append_message(message)

    def _usage(self, produced: int) -> dict[str, Any]:
        fresh = self.pending + self.rng.randint(2, 40)
        if self.model.provider == "anthropic":
            uncached = min(fresh, self.rng.randint(3, 60))
            tokens = [uncached, produced, self.context, fresh - uncached]
        else:
            tokens = [fresh, produced, self.context, 0]
        self.context += fresh + produced
        self.pending = 0
        prices = self.model.prices
        costs = [price / 1_000_000 * count for price, count in zip(prices, tokens, strict=True)]
        cost = dict(zip(("input", "output", "cacheRead", "cacheWrite"), costs, strict=True))
        cost["total"] = costs[0] + costs[1] + costs[2] + costs[3]
        return {
            "input": tokens[0],
            "output": tokens[1],
            "cacheRead": tokens[2],
            "cacheWrite": tokens[3],
            "totalTokens": sum(tokens),
            "cost": cost,
        }

    def _call_id(self) -> str:
        if self.model.provider == "anthropic":
            return "toolu_01" + "".join(self.rng.choice(_ALNUM) for _ in range(22))
        return "call_" + "".join(self.rng.choice(_ALNUM) for _ in range(24))

    def reply(
        self,
        text: str | None = None,
        *,
        thinking: str | None = None,
        calls: Iterable[tuple[str, str, dict[str, Any]]] = (),
        stop: str | None = None,
        error: str | None = None,
    ) -> str:
        """An assistant message (``calls``: ``(id, tool name, arguments)``)."""
        self.wait(0.8, 3.5)  # time to first token
        started = self.clock.ms
        content: list[dict[str, Any]] = []
        if thinking:
            content.append({"type": "thinking", "thinking": _prose(thinking)})
        if text:
            content.append({"type": "text", "text": _prose(text)})
        call_list = list(calls)
        for call_id, name, args in call_list:
            content.append({"type": "toolCall", "id": call_id, "name": name, "arguments": args})
        if stop is None:
            stop = "toolUse" if call_list else "stop"
        usage: dict[str, Any]
        if stop == "error":  # the provider refused the request: nothing used, nothing cached
            zero = dict.fromkeys(("input", "output", "cacheRead", "cacheWrite"), 0)
            usage = {**zero, "totalTokens": 0, "cost": {**zero, "total": 0}}
        else:
            size = sum(len(b.get("text", "")) + len(b.get("thinking", "")) for b in content)
            size += sum(len(orjson.dumps(args)) for _, _, args in call_list)
            usage = self._usage(max(12, size // 4 + self.rng.randint(4, 40)))
        self.clock.advance(usage["output"] / self.rng.uniform(55, 90))  # streaming
        message: dict[str, Any] = {
            "role": "assistant",
            "content": content,
            "api": self.model.api,
            "provider": self.model.provider,
            "model": self.model.id,
            "usage": usage,
            "stopReason": stop,
        }
        if error is not None:
            message["errorMessage"] = error
        message["timestamp"] = started
        return self.sm.append_message(message)

    def say(self, text: str, *, thinking: str | None = None, stop: str | None = None) -> str:
        """A plain text answer."""
        return self.reply(text, thinking=thinking, stop=stop)

    def run(self, *ops: _Op, text: str | None = None, thinking: str | None = None) -> str:
        """An assistant turn calling tools, then one result per call; returns the last result's
        id."""
        ids = [self._call_id() for _ in ops]
        calls = [(i, op.name, op.args) for i, op in zip(ids, ops, strict=True)]
        self.reply(text, thinking=thinking, calls=calls)
        last = ""
        for call_id, op in zip(ids, ops, strict=True):
            path = op.args.get("path")
            if isinstance(path, str) and not op.error:
                bucket = self.modified_files if op.name in ("edit", "write") else self.read_files
                if op.name in ("read", "edit", "write") and path not in bucket:
                    bucket.append(path)
            last = self.result(call_id, op)
        return last

    def result(self, call_id: str, op: _Op) -> str:
        self.wait(0.05, 0.6 if op.name != "bash" else 6.0)
        self.pending += len(op.output) // 4 + 10
        message: dict[str, Any] = {
            "role": "toolResult",
            "toolCallId": call_id,
            "toolName": op.name,
            "content": [{"type": "text", "text": op.output}],
        }
        if op.details is not None:
            message["details"] = op.details
        message["isError"] = op.error
        message["timestamp"] = self.clock.ms
        return self.sm.append_message(message)

    # -------------------------------------------------------------- other entries

    def shell(self, command: str, output: str, code: int = 0, *, exclude: bool = False) -> str:
        """The user runs ``!command`` (``!!`` with ``exclude``: kept out of the context)."""
        self.wait(4, 15)
        message: dict[str, Any] = {
            "role": "bashExecution",
            "command": command,
            "output": output,
            "exitCode": code,
            "cancelled": False,
            "truncated": False,
            "timestamp": self.clock.ms,
        }
        if exclude:
            message["excludeFromContext"] = True
        else:
            self.pending += len(output) // 4 + 20
        self.clock.advance(self.rng.uniform(0.5, 8))
        return self.sm.append_message(message)

    def switch_model(self, model: _Model) -> str:
        self.wait(2, 10)
        self.model = model
        self.pending += self.context  # a new provider has nothing cached
        self.context = 0
        return self.sm.append_model_change(model.provider, model.id)

    def thinking_level(self, level: str) -> str:
        self.wait(1, 5)
        return self.sm.append_thinking_level_change(level)

    def name(self, name: str) -> str:
        self.wait(2, 20)
        return self.sm.append_session_info(name)

    def label(self, target: str, label: str | None) -> str:
        self.wait(2, 15)
        return self.sm.append_label_change(target, label)

    def todos(self, *items: tuple[str, bool] | tuple[str, bool, list[str]]) -> str:
        """The ``todo-tracker`` extension's state (the example renderer plug-in draws it)."""
        todos: list[dict[str, Any]] = []
        for number, item in enumerate(items, 1):
            todo: dict[str, Any] = {"id": number, "text": item[0], "done": item[1]}
            if len(item) > 2:
                todo["tags"] = item[2]
            todos.append(todo)
        self.clock.advance(0.05)
        return self.sm.append_custom_entry("todo-tracker", {"version": 1, "todos": todos})

    def compact(self, summary: str, kept: str, *, retain: bool = False) -> str:
        """A compaction keeping the branch from ``kept`` on: the legacy ``firstKeptEntryId``,
        and with ``retain`` also the kept messages materialized as ``retainedTail`` (pi 0.73.1
        reads the id, newer readers the tail; both give the same context)."""
        self.wait(8, 25)
        tail: list[dict[str, Any]] | None = None
        view = self.sm.session
        leaf = view.get(self.sm.get_leaf_id() or "")
        assert leaf is not None
        metas = view.path_to(leaf)
        start = next(i for i, m in enumerate(metas) if m.uid == kept)
        if retain:
            tail = [view.raw(m)["message"] for m in metas[start:] if m.type == "message"]
        before = self.context + self.pending
        details = {"readFiles": list(self.read_files), "modifiedFiles": list(self.modified_files)}
        text = _prose(summary)
        text += "\n\n<read-files>\n" + "\n".join(self.read_files) + "\n</read-files>"
        text += "\n\n<modified-files>\n" + "\n".join(self.modified_files) + "\n</modified-files>"
        entry = self.sm.append_compaction(text, kept, before, details, False, retained_tail=tail)
        kept_tokens = sum(m.length for m in metas[start:]) // 4
        self.context = 0
        self.pending = self.rng.randint(4200, 5200) + len(text) // 4 + kept_tokens
        return entry

    def note(self, custom_type: str, content: str, *, display: bool, details: Any = None) -> str:
        """An extension's ``custom_message`` (in context; shown in the chat when ``display``)."""
        self.clock.advance(self.rng.uniform(0.05, 0.4))
        self.pending += len(content) // 4
        return self.sm.append_custom_message_entry(custom_type, content, display, details)


class _Builder:
    """Writes the sessions of one demo store into ``agent`` (the store being built)."""

    def __init__(self, agent: Path, base_time: float) -> None:
        self.agent = agent
        self.base_ms = round(base_time * 1000)
        # One random source for ids, tool call ids and timing: same base time, same bytes.
        self.rng = random.Random(self.base_ms)
        self.clock = _Clock(self.base_ms)
        self.files: list[tuple[str, int]] = []  # (path, time of its last entry in ms)
        self.dry = False  # a dry run (see latest) writes nothing
        self.last_end = 0

    def folder(self, cwd: str) -> str:
        return str(paths.session_dir_for(cwd, self.agent))

    def _at(self, ago: float) -> None:
        # a few seconds of jitter so that no two sessions start on a round number
        self.clock.ms = self.base_ms - round(ago * 1000) + self.rng.randint(0, 59_000)

    def start(
        self,
        cwd: str,
        *,
        ago: float,
        model: _Model = SONNET,
        thinking: str = "medium",
        files: Mapping[str, str] | None = None,
    ) -> _Chat:
        """A new session that starts ``ago`` seconds before the base time, written in memory
        first (pi's writer writes it at the first assistant message anyway; one write keeps the
        build fast) and saved by :meth:`save`."""
        self._at(ago)
        sm = SessionManager.in_memory(cwd, clock=self.clock, rng=self.rng)
        chat = _Chat(sm, self.clock, self.rng, model, _Workspace(files or {}))
        # pi records the model and thinking level a session starts with
        sm.append_model_change(model.provider, model.id)
        sm.append_thinking_level_change(thinking)
        return chat

    def save(self, chat: _Chat) -> str:
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
        model: _Model,
        files: Mapping[str, str] | None = None,
    ) -> _Chat:
        """pi's ``/fork`` (``createBranchedSession``): a new session holding root → ``leaf`` of
        ``source``, with ``parentSession`` naming it. ``files``: the workspace at ``leaf``."""
        self._at(ago)
        sm = SessionManager.open(source, clock=self.clock, rng=self.rng, force=True)
        sm.create_branched_session(leaf)
        workspace = _Workspace({})
        workspace.files = dict(files or {})  # already normalized
        chat = _Chat(sm, self.clock, self.rng, model, workspace)
        chat.pending += sum(m.length for m in sm.session.entries) // 4  # nothing cached yet
        return chat

    def fork(self, source: str, cwd: str, *, ago: float, model: _Model) -> _Chat:
        """pi's ``forkFrom``: a copy of a session of another folder, continued in ``cwd``."""
        self._at(ago)
        sm = SessionManager.fork_from(source, cwd, self.folder(cwd), clock=self.clock, rng=self.rng)
        sm.force = True  # the copy was written a moment ago, by this builder
        return _Chat(sm, self.clock, self.rng, model)

    def latest(self, write: Callable[[_Builder, float], str], *, gap: float) -> str:
        """Run ``write(builder, ago)`` so that the session's last entry lands ``gap`` seconds
        before the base time (the picker shows it as "now"). A dry run with the same random
        state measures how long the script takes; the real run then starts that much earlier.
        The session must be an in-memory one (:meth:`start`)."""
        state = self.rng.getstate()
        probe = HOUR
        self.dry = True
        try:
            write(self, probe)
        finally:
            self.dry = False
        self.rng.setstate(state)
        return write(self, probe + gap - (self.base_ms - self.last_end) / 1000)

    def _check_time(self) -> None:
        if self.clock.ms > self.base_ms:
            raise AssertionError("a demo session runs past the base time")

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


def _png_icon() -> bytes:
    """A real 16×16 RGBA PNG: the webapp's favicon (a planet with a ring on navy)."""
    width = height = 16
    rows = bytearray()
    for y in range(height):
        rows.append(0)  # filter: none
        for x in range(width):
            dx, dy = x - 7.5, y - 7.5
            ring = abs((dx * dx) / 49 + (dy * dy) / 6.25 - 1) < 0.22 and dy > -1.5
            if dx * dx + dy * dy <= 12.5 and not ring:
                rows.extend((251, 191, 36, 255))  # amber planet
            elif ring:
                rows.extend((226, 232, 240, 255))  # pale ring
            else:
                rows.extend((15, 23, 42, 255))  # navy

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data) & 0xFFFFFFFF
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    # level 0 (stored blocks): the same bytes with every zlib version
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(bytes(rows), 0))
        + chunk(b"IEND", b"")
    )


FAVICON_PNG_BASE64 = base64.b64encode(_png_icon()).decode("ascii")


# ===================================================================================== the content
#
# Each function below writes one session (or a few related ones) and returns what later sessions
# need (paths, entry ids). They run oldest source first, so forks come after what they fork.


def _webapp_files() -> dict[str, str]:
    return {
        "package.json": """
            {
              "name": "orbit",
              "version": "0.9.3",
              "private": true,
              "type": "module",
              "scripts": {
                "dev": "concurrently \\"npm:dev:*\\"",
                "dev:server": "tsx watch src/server/index.ts",
                "dev:client": "vite",
                "build": "tsc -p tsconfig.build.json && vite build",
                "typecheck": "tsc --noEmit",
                "lint": "eslint . --max-warnings 0",
                "test": "vitest run",
                "test:e2e": "playwright test"
              },
              "dependencies": {
                "@prisma/client": "^5.22.0",
                "express": "^4.21.1",
                "react": "^18.3.1",
                "react-dom": "^18.3.1",
                "zod": "^3.23.8"
              },
              "devDependencies": {
                "@playwright/test": "^1.48.2",
                "@types/express": "^5.0.0",
                "eslint": "^9.14.0",
                "prisma": "^5.22.0",
                "tsx": "^4.19.2",
                "typescript": "^5.6.3",
                "vite": "^5.4.10",
                "vitest": "^2.1.4"
              }
            }
        """,
        "README.md": """
            # Orbit

            Project tracking for small teams. Express + Prisma API, React client.

            ```sh
            npm install
            npm run dev        # API on :3000, client on :5173
            npm test           # unit tests (vitest)
            npm run test:e2e   # browser tests (playwright)
            ```
        """,
        "tsconfig.json": """
            {
              "compilerOptions": {
                "target": "ES2022",
                "module": "NodeNext",
                "strict": true,
                "jsx": "react-jsx",
                "skipLibCheck": true
              },
              "include": ["src", "test"]
            }
        """,
        "eslint.config.js": """
            import js from "@eslint/js";
            import tseslint from "typescript-eslint";

            export default tseslint.config(js.configs.recommended, ...tseslint.configs.strict);
        """,
        "playwright.config.ts": """
            import { defineConfig } from "@playwright/test";

            export default defineConfig({
              testDir: "test/e2e",
              retries: process.env.CI ? 2 : 0,
              use: { baseURL: "http://localhost:5173", trace: "retain-on-failure" },
              webServer: { command: "npm run dev", port: 5173, reuseExistingServer: true },
            });
        """,
        "prisma/schema.prisma": """
            model Project {
              id          String    @id @default(cuid())
              name        String
              description String?
              teamId      String
              ownerId     String
              owner       User      @relation(fields: [ownerId], references: [id])
              tasks       Task[]
              archivedAt  DateTime?
              createdAt   DateTime  @default(now())
              updatedAt   DateTime  @updatedAt

              @@index([teamId])
            }
        """,
        "src/server/index.ts": """
            import express from "express";
            import { projects } from "./routes/projects.js";
            import { tasks } from "./routes/tasks.js";
            import { session } from "./auth.js";

            const app = express();
            app.use(express.json());
            app.use(session());
            app.use("/api/projects", projects);
            app.use("/api/tasks", tasks);

            const port = Number(process.env.PORT ?? 3000);
            app.listen(port, () => console.log(`orbit api listening on :${port}`));
        """,
        "src/server/db.ts": """
            import { PrismaClient } from "@prisma/client";

            export const db = new PrismaClient({
              log: process.env.DEBUG_SQL ? ["query", "warn", "error"] : ["warn", "error"],
            });
        """,
        "src/server/auth.ts": """
            import type { NextFunction, Request, Response } from "express";

            export function requireUser(req: Request, res: Response, next: NextFunction) {
              if (!req.user) return res.status(401).json({ error: "not signed in" });
              next();
            }
        """,
        "src/server/routes/projects.ts": """
            import { Router } from "express";
            import { z } from "zod";
            import { db } from "../db.js";
            import { requireUser } from "../auth.js";

            export const projects = Router();

            projects.get("/", requireUser, async (req, res) => {
              const rows = await db.project.findMany({
                where: { teamId: req.user.teamId, archivedAt: null },
                orderBy: { updatedAt: "desc" },
                include: { owner: { select: { id: true, name: true } } },
              });
              res.json({ projects: rows });
            });

            const CreateProject = z.object({
              name: z.string().min(1).max(80),
              description: z.string().max(500).optional(),
            });

            projects.post("/", requireUser, async (req, res) => {
              const body = CreateProject.safeParse(req.body);
              if (!body.success) {
                return res.status(400).json({ error: body.error.flatten() });
              }
              const project = await db.project.create({
                data: { ...body.data, teamId: req.user.teamId, ownerId: req.user.id },
              });
              res.status(201).json(project);
            });
        """,
        "src/server/routes/tasks.ts": """
            import { Router } from "express";
            import { db } from "../db.js";
            import { requireUser } from "../auth.js";

            export const tasks = Router();

            tasks.get("/:projectId", requireUser, async (req, res) => {
              const rows = await db.task.findMany({ where: { projectId: req.params.projectId } });
              res.json({ tasks: rows });
            });
        """,
        "src/client/api.ts": """
            export async function getJSON<T>(url: string): Promise<T> {
              const res = await fetch(url, { credentials: "include" });
              if (!res.ok) throw new Error(`${res.status} ${res.statusText}`);
              return (await res.json()) as T;
            }
        """,
        "src/client/hooks/useProjects.ts": """
            import { useEffect, useState } from "react";
            import { getJSON } from "../api.js";
            import type { Project } from "../types.js";

            export function useProjects() {
              const [projects, setProjects] = useState<Project[]>([]);
              const [loading, setLoading] = useState(true);

              useEffect(() => {
                getJSON<{ projects: Project[] }>("/api/projects")
                  .then((data) => setProjects(data.projects))
                  .finally(() => setLoading(false));
              }, []);

              return { projects, loading };
            }
        """,
        "src/client/components/ProjectList.tsx": """
            import { useProjects } from "../hooks/useProjects.js";
            import { ProjectCard } from "./ProjectCard.js";

            export function ProjectList() {
              const { projects, loading } = useProjects();

              if (loading) return <p className="muted">Loading projects…</p>;
              if (projects.length === 0) return <p className="muted">No projects yet.</p>;

              return (
                <ul className="project-list" data-testid="project-list">
                  {projects.map((project) => (
                    <ProjectCard key={project.id} project={project} />
                  ))}
                </ul>
              );
            }
        """,
        "src/client/components/ProjectCard.tsx": """
            import type { Project } from "../types.js";

            export function ProjectCard({ project }: { project: Project }) {
              return (
                <li className="project-card">
                  <h3>{project.name}</h3>
                  <p>{project.description ?? "No description"}</p>
                  <span className="owner">{project.owner.name}</span>
                </li>
              );
            }
        """,
        "src/client/types.ts": """
            export interface Project {
              id: string;
              name: string;
              description: string | null;
              owner: { id: string; name: string };
              updatedAt: string;
            }
        """,
        "test/server/projects.test.ts": """
            import { describe, expect, it } from "vitest";
            import { testApp, seedTeam } from "../helpers.js";

            describe("GET /api/projects", () => {
              it("lists the team's projects, newest first", async () => {
                const { agent, team } = await seedTeam({ projects: 3 });
                const res = await agent.get("/api/projects");
                expect(res.status).toBe(200);
                expect(res.body.projects.map((p: { teamId: string }) => p.teamId)).toEqual([
                  team.id, team.id, team.id,
                ]);
              });

              it("needs a session", async () => {
                const res = await testApp().get("/api/projects");
                expect(res.status).toBe(401);
              });
            });
        """,
        "test/e2e/dashboard.spec.ts": """
            import { expect, test } from "@playwright/test";

            test("dashboard shows the team's projects", async ({ page }) => {
              await page.goto("/login?as=demo-user");
              await page.goto("/");
              await page.waitForTimeout(500);
              const items = page.getByTestId("project-list").locator("li");
              expect(await items.count()).toBeGreaterThan(0);
            });

            test("creating a project puts it on top", async ({ page }) => {
              await page.goto("/login?as=demo-user");
              await page.goto("/");
              await page.getByRole("button", { name: "New project" }).click();
              await page.getByLabel("Name").fill("Launch checklist");
              await page.getByRole("button", { name: "Create" }).click();
              await expect(page.getByTestId("project-list").locator("li").first()).toContainText(
                "Launch checklist",
              );
            });
        """,
        "test/helpers.ts": """
            import request from "supertest";
            import { app } from "../src/server/app.js";

            export const testApp = () => request(app);
        """,
        ".github/workflows/ci.yml": """
            name: ci
            on: [push, pull_request]
            jobs:
              test:
                runs-on: ubuntu-latest
                steps:
                  - uses: actions/checkout@v4
                  - uses: actions/setup-node@v4
                    with: { node-version: 22, cache: npm }
                  - run: npm ci
                  - run: npm run lint
                  - run: npm run typecheck
                  - run: npm test
        """,
    }


def _webapp_pagination(b: _Builder) -> tuple[str, dict[str, str], dict[str, str]]:
    """The long session (~300 entries): pagination, a flaky e2e test, an index, two compactions,
    model and thinking changes, a todo list, labels, a name."""
    c = b.start(WEBAPP, ago=5 * DAY + 6 * HOUR, thinking="medium", files=_webapp_files())
    ws = c.ws
    marks: dict[str, str] = {}
    c.user(
        "The dashboard takes ~4 s to load for teams with a lot of projects, because "
        "GET /api/projects returns everything at once. Add pagination (page + pageSize, "
        "default 25, max 100) and make ProjectList use it. Have a look around first."
    )
    c.run(ws.ls("."), text="I'll get the lay of the land first.")
    c.run(ws.read("package.json"), ws.read("src/server/routes/projects.ts"))
    c.run(ws.grep("useProjects", "src/client"))
    c.run(
        ws.read("src/client/hooks/useProjects.ts"),
        ws.read("src/client/components/ProjectList.tsx"),
    )
    c.run(ws.read("prisma/schema.prisma"))
    c.say(
        """
        Here is what I found:

        - `GET /api/projects` (`src/server/routes/projects.ts`) runs one unbounded `findMany`
          ordered by `updatedAt desc`, and includes the owner of every project.
        - The client fetches it once in `useProjects` and renders everything in `ProjectList`.
        - `Project` is only indexed on `teamId`, so the sort happens in memory on Postgres'
          side for every request.

        Plan:

        1. A small `parsePagination()` helper (zod) that validates `page`/`pageSize` and clamps
           `pageSize` to 100.
        2. Use it in the route: `skip`/`take` plus a `count()` in the same transaction, and
           return `{ projects, page, pageSize, total }`.
        3. A `usePaginatedProjects` hook with `loadMore()`, and a *Load more* button in
           `ProjectList`, so the look stays the same.
        4. Tests for the helper and the route.
        5. Probably an index on `(teamId, updatedAt)`; I'll check the query plan once the rest
           works.

        Shall I start with the server side?
        """,
        thinking="""
        The user wants offset pagination with page/pageSize. Offset pagination is fine for a
        dashboard with "load more"; cursor pagination would be more robust against inserts but
        the user asked for page + pageSize explicitly. I should mention the index since ORDER BY
        updatedAt over a whole team is the real cost. Start with a plan, not code.
        """,
    )
    c.todos(
        ("parsePagination helper", False, ["server"]),
        ("paginate GET /api/projects", False, ["server"]),
        ("usePaginatedProjects + Load more", False, ["client"]),
        ("tests", False),
        ("index on (teamId, updatedAt)", False, ["db"]),
    )
    c.pause(3)

    # ---------------------------------------------------------------- server side
    c.user("Sounds good, go ahead with the server side.")
    c.run(
        ws.write(
            "src/server/pagination.ts",
            """
            import { z } from "zod";

            export const MAX_PAGE_SIZE = 100;

            const Pagination = z.object({
              page: z.coerce.number().int().min(1).default(1),
              pageSize: z.coerce.number().int().min(1).default(25),
            });

            export interface Page {
              page: number;
              pageSize: number;
              skip: number;
              take: number;
            }

            export function parsePagination(query: unknown): Page {
              const { page, pageSize } = Pagination.parse(query);
              const size = Math.min(pageSize, MAX_PAGE_SIZE);
              return { page, pageSize: size, skip: (page - 1) * size, take: size };
            }
            """,
        ),
        text="Starting with the helper.",
    )
    c.run(
        ws.edit(
            "src/server/routes/projects.ts",
            """
            projects.get("/", requireUser, async (req, res) => {
              const rows = await db.project.findMany({
                where: { teamId: req.user.teamId, archivedAt: null },
                orderBy: { updatedAt: "desc" },
                include: { owner: { select: { id: true, name: true } } },
              });
              res.json({ projects: rows });
            });
            """,
            """
            projects.get("/", requireUser, async (req, res) => {
              const { page, pageSize, skip, take } = parsePagination(req.query);
              const where = { teamId: req.user.teamId, archivedAt: null };
              const [rows, total] = await db.$transaction([
                db.project.findMany({
                  where,
                  orderBy: { updatedAt: "desc" },
                  include: { owner: { select: { id: true, name: true } } },
                  skip,
                  take,
                }),
                db.project.count({ where }),
              ]);
              res.json({ projects: rows, page, pageSize, total });
            });
            """,
        ),
        ws.edit(
            "src/server/routes/projects.ts",
            """
            import { requireUser } from "../auth.js";
            """,
            """
            import { requireUser } from "../auth.js";
            import { parsePagination } from "../pagination.js";
            """,
        ),
    )
    c.run(
        bash(
            "npm run typecheck",
            """
            > orbit@0.9.3 typecheck
            > tsc --noEmit

            src/server/routes/projects.ts(10,57): error TS2345: Argument of type 'ParsedQs' is \\
            not assignable to parameter of type 'Record<string, string>'.
            """,
            2,
        )
    )
    c.run(
        ws.read("src/server/pagination.ts", 17, 5),
        text="Hm, the signature says `unknown` — let me check that the file is what I think.",
    )
    c.run(
        bash(
            "npm run typecheck",
            """
            > orbit@0.9.3 typecheck
            > tsc --noEmit
            """,
        ),
        text="The file is right; that error was from a stale `tsc` incremental build. Again:",
    )
    c.run(
        bash(
            "curl -s 'localhost:3000/api/projects?pageSize=2' -b .dev-cookie | jq -c '.'",
            '{"projects":[{"id":"cm3k2x0f1000108l4","name":"Launch checklist","owner":'
            '{"id":"u1","name":"Dana"}},{"id":"cm3k2wz9k000008l4","name":"Q3 roadmap","owner":'
            '{"id":"u2","name":"Sam"}}],"page":1,"pageSize":2,"total":214}',
        )
    )
    marks["server"] = c.say(
        """
        Server side done:

        - `src/server/pagination.ts`: `parsePagination(query)` (zod, coerces strings, `page ≥ 1`,
          `pageSize` clamped to `MAX_PAGE_SIZE = 100`).
        - `GET /api/projects` now returns `{ projects, page, pageSize, total }`; the rows and the
          count come from one `$transaction`, so `total` matches the page.

        A quick request against the dev server returns 2 of 214 projects as expected.
        """
    )
    c.todos(
        ("parsePagination helper", True, ["server"]),
        ("paginate GET /api/projects", True, ["server"]),
        ("usePaginatedProjects + Load more", False, ["client"]),
        ("tests", False),
        ("index on (teamId, updatedAt)", False, ["db"]),
    )
    c.label(marks["server"], "server pagination")
    server_files = dict(ws.files)

    # ---------------------------------------------------------------- tests for the helper
    c.user("Add tests for parsePagination before we move on. Edge cases please.")
    c.run(
        ws.write(
            "test/server/pagination.test.ts",
            """
            import { describe, expect, it } from "vitest";
            import { MAX_PAGE_SIZE, parsePagination } from "../../src/server/pagination.js";

            describe("parsePagination", () => {
              it("defaults to the first page of 25", () => {
                expect(parsePagination({})).toEqual({ page: 1, pageSize: 25, skip: 0, take: 25 });
              });

              it("coerces query strings", () => {
                expect(parsePagination({ page: "3", pageSize: "10" }).skip).toBe(20);
              });

              it("clamps the page size", () => {
                expect(parsePagination({ pageSize: "1000" }).pageSize).toBe(MAX_PAGE_SIZE);
              });

              it.each([["0"], ["-1"], ["1.5"], ["abc"]])("rejects page=%s", (page) => {
                expect(() => parsePagination({ page })).toThrow();
              });

              it("rejects pageSize=0", () => {
                expect(() => parsePagination({ pageSize: "0" })).toThrow();
              });
            });
            """,
        )
    )
    c.run(
        bash(
            "npx vitest run test/server/pagination.test.ts",
            """
             RUN  v2.1.4 /home/demo/code/webapp

             ✓ test/server/pagination.test.ts (8 tests) 6ms

             Test Files  1 passed (1)
                  Tests  8 passed (8)
               Start at  14:02:11
               Duration  412ms (transform 61ms, setup 0ms, collect 48ms, tests 6ms)
            """,
        )
    )
    c.say(
        "8 tests, all green: defaults, string coercion, clamping, and rejection of `0`, `-1`, "
        "`1.5`, `abc` for `page` and `0` for `pageSize`. A rejected value currently throws a "
        "`ZodError`, which Express turns into a 500 — I'll map that to a 400 in the route next."
    )
    c.run(
        ws.edit(
            "src/server/routes/projects.ts",
            """
              const { page, pageSize, skip, take } = parsePagination(req.query);
            """,
            """
              const parsed = safePagination(req.query);
              if (!parsed.ok) return res.status(400).json({ error: parsed.error });
              const { page, pageSize, skip, take } = parsed.value;
            """,
        ),
        ws.edit(
            "src/server/pagination.ts",
            """
              return { page, pageSize: size, skip: (page - 1) * size, take: size };
            }
            """,
            """
              return { page, pageSize: size, skip: (page - 1) * size, take: size };
            }

            export function safePagination(
              query: unknown,
            ): { ok: true; value: Page } | { ok: false; error: string } {
              try {
                return { ok: true, value: parsePagination(query) };
              } catch (err) {
                if (err instanceof z.ZodError) return { ok: false, error: err.issues[0].message };
                throw err;
              }
            }
            """,
        ),
        ws.edit(
            "src/server/routes/projects.ts",
            """
            import { parsePagination } from "../pagination.js";
            """,
            """
            import { safePagination } from "../pagination.js";
            """,
        ),
        text="Mapping invalid input to a 400:",
    )
    c.run(
        bash(
            "npm run typecheck && npx vitest run test/server",
            """
            > orbit@0.9.3 typecheck
            > tsc --noEmit

             RUN  v2.1.4 /home/demo/code/webapp

             ✓ test/server/pagination.test.ts (8 tests) 6ms
             ✓ test/server/projects.test.ts (2 tests) 141ms

             Test Files  2 passed (2)
                  Tests  10 passed (10)
            """,
        )
    )
    c.say("Typecheck clean, server tests pass, and `?page=0` now answers 400 instead of 500.")
    c.todos(
        ("parsePagination helper", True, ["server"]),
        ("paginate GET /api/projects", True, ["server"]),
        ("usePaginatedProjects + Load more", False, ["client"]),
        ("tests", True),
        ("index on (teamId, updatedAt)", False, ["db"]),
    )
    c.pause(25)

    # ---------------------------------------------------------------- client side
    c.user("Now the client. Keep the existing look, just add a Load more button under the list.")
    c.run(ws.read("src/client/api.ts"), ws.read("src/client/types.ts"))
    c.run(
        ws.write(
            "src/client/hooks/usePaginatedProjects.ts",
            """
            import { useCallback, useEffect, useState } from "react";
            import { getJSON } from "../api.js";
            import type { Project } from "../types.js";

            interface PageResponse {
              projects: Project[];
              page: number;
              pageSize: number;
              total: number;
            }

            export function usePaginatedProjects(pageSize = 25) {
              const [projects, setProjects] = useState<Project[]>([]);
              const [page, setPage] = useState(1);
              const [total, setTotal] = useState(0);
              const [loading, setLoading] = useState(true);

              useEffect(() => {
                setLoading(true);
                getJSON<PageResponse>(`/api/projects?page=${page}&pageSize=${pageSize}`)
                  .then((data) => {
                    setProjects((prev) =>
                      page === 1 ? data.projects : [...prev, ...data.projects],
                    );
                    setTotal(data.total);
                  })
                  .finally(() => setLoading(false));
              }, [page, pageSize]);

              const loadMore = useCallback(() => setPage((p) => p + 1), []);
              return { projects, total, loading, loadMore, hasMore: projects.length < total };
            }
            """,
        ),
        text="A new hook that accumulates pages:",
    )
    c.run(
        ws.edit(
            "src/client/components/ProjectList.tsx",
            """
            import { useProjects } from "../hooks/useProjects.js";
            """,
            """
            import { usePaginatedProjects } from "../hooks/usePaginatedProjects.js";
            """,
        ),
        ws.edit(
            "src/client/components/ProjectList.tsx",
            """
              const { projects, loading } = useProjects();

              if (loading) return <p className="muted">Loading projects…</p>;
            """,
            """
              const { projects, total, loading, loadMore, hasMore } = usePaginatedProjects();

              if (loading && projects.length === 0) {
                return <p className="muted">Loading projects…</p>;
              }
            """,
        ),
        ws.edit(
            "src/client/components/ProjectList.tsx",
            """
                  ))}
                </ul>
              );
            """,
            """
                  ))}
                  {hasMore && (
                    <li className="load-more">
                      <button type="button" onClick={loadMore} disabled={loading}>
                        {loading ? "Loading…" : `Load more (${projects.length} of ${total})`}
                      </button>
                    </li>
                  )}
                </ul>
              );
            """,
        ),
    )
    c.run(ws.grep("useProjects\\b", "src"), text="Is the old hook still used anywhere?")
    c.run(
        bash("git rm -q src/client/hooks/useProjects.ts && npm run typecheck", "> tsc --noEmit"),
        text="Only its own file. Removing it:",
    )
    c.say(
        """
        Client done. `ProjectList` uses `usePaginatedProjects()`; the first page renders as
        before and a *Load more (25 of 214)* button sits as the last list item, disabled while a
        page is loading. The old `useProjects` hook had no other users, so I removed it.
        """
    )
    c.todos(
        ("parsePagination helper", True, ["server"]),
        ("paginate GET /api/projects", True, ["server"]),
        ("usePaginatedProjects + Load more", True, ["client"]),
        ("tests", True),
        ("index on (teamId, updatedAt)", False, ["db"]),
    )

    # ---------------------------------------------------------------- the flaky e2e test
    c.user("Run the whole suite, e2e included.")
    c.run(
        bash(
            "npm test && npm run test:e2e",
            """
             Test Files  9 passed (9)
                  Tests  61 passed (61)

            Running 14 tests using 4 workers

              ✓   1 [chromium] › dashboard.spec.ts:12:1 › creating a project… (2.1s)
              ✘   2 [chromium] › dashboard.spec.ts:3:1 › dashboard shows the team… (1.2s)
              ✓   3 [chromium] › tasks.spec.ts:5:1 › tasks can be reordered (3.4s)
              …

              1) [chromium] › dashboard.spec.ts:3:1 › dashboard shows the team's projects

                Error: expect(received).toBeGreaterThan(expected)

                Expected: > 0
                Received:   0

                   6 |   await page.waitForTimeout(500);
                   7 |   const items = page.getByTestId("project-list").locator("li");
                >  8 |   expect(await items.count()).toBeGreaterThan(0);

              1 failed
              13 passed (21.7s)
            """,
            1,
            timeout=300,
        )
    )
    c.say(
        "Unit tests pass; one e2e test failed: *dashboard shows the team's projects* counted 0 "
        "list items. It waits a fixed 500 ms before counting, so it depends on how fast the "
        "first page arrives."
    )
    c.user(
        "That one has been flaky for weeks, long before pagination. Can you get to the bottom "
        "of it? Take your time."
    )
    c.switch_model(OPUS)
    c.thinking_level("high")
    c.run(
        ws.read("test/e2e/dashboard.spec.ts"),
        ws.read("playwright.config.ts"),
        thinking="""
        A fixed waitForTimeout(500) followed by a non-retrying count() is the classic flake:
        `expect(await items.count())` evaluates once. If the API takes longer than 500 ms (cold
        Prisma client on the first request in CI, or the dev server still compiling), it sees 0.
        Before pagination, the list was rendered only after the full fetch, which took longer
        for big seeds, so it failed more often on CI than locally. The fix is a web-first
        assertion that retries: `await expect(items.first()).toBeVisible()` or
        `toHaveCount` with a matcher. Also should wait for the response, not time. Let me
        confirm the config: retries on CI = 2 hides it most of the time.
        """,
    )
    c.run(ws.grep("waitForTimeout", "test"))
    c.run(
        bash(
            "npx playwright test dashboard.spec.ts --repeat-each=20 --workers=4 2>&1 | tail -n 4",
            """
              7 failed
                [chromium] › dashboard.spec.ts:3:1 › dashboard shows the team's projects
              33 passed (48.2s)
            """,
            1,
            timeout=600,
        ),
        text="Let me measure how flaky it is before changing anything.",
    )
    c.say(
        """
        Found it. The test is racy by construction:

        ```ts
        await page.waitForTimeout(500);
        expect(await items.count()).toBeGreaterThan(0);
        ```

        `items.count()` runs exactly once, after a fixed 500 ms. Whenever the first
        `/api/projects` request takes longer (cold Prisma client, Vite still compiling, 4 workers
        sharing one dev server) the list is still empty and the test fails. Locally it failed
        7 of 40 runs with 4 workers. On CI `retries: 2` hides it most of the time, which is why
        it looked random.

        The fix is to wait for the thing we care about instead of for time: Playwright's
        web-first assertions retry until they pass or time out.
        """
    )
    c.run(
        ws.edit(
            "test/e2e/dashboard.spec.ts",
            """
              await page.goto("/");
              await page.waitForTimeout(500);
              const items = page.getByTestId("project-list").locator("li");
              expect(await items.count()).toBeGreaterThan(0);
            """,
            """
              const firstPage = page.waitForResponse(
                (res) => res.url().includes("/api/projects") && res.ok(),
              );
              await page.goto("/");
              await firstPage;
              const items = page.getByTestId("project-list").locator("li.project-card");
              await expect(items.first()).toBeVisible();
            """,
        )
    )
    c.run(
        bash(
            "npx playwright test dashboard.spec.ts --repeat-each=50 --workers=4 2>&1 | tail -n 2",
            "  100 passed (1.6m)",
            timeout=600,
        )
    )
    marks["flaky"] = c.say(
        "100 of 100 runs pass with 4 workers. I also made the locator target `li.project-card`, "
        "so the new *Load more* item can never satisfy the assertion on its own."
    )
    c.label(marks["flaky"], "flaky e2e fixed")
    c.switch_model(SONNET)
    c.thinking_level("medium")
    c.pause(50)

    # ---------------------------------------------------------------- the index
    c.user("Great. Now the index you mentioned. We use prisma migrate.")
    c.run(
        bash(
            "psql orbit_dev -f scripts/explain-first-page.sql",
            """
                                                 QUERY PLAN
            -------------------------------------------------------------------------------
             Limit  (cost=1893.22..1893.28 rows=25 width=212) (actual time=38.911..38.918 rows=25)
               ->  Sort  (cost=1893.22..1908.47 rows=6100 width=212) (actual time=38.909..38.913)
                     Sort Key: "updatedAt" DESC
                     Sort Method: top-N heapsort  Memory: 33kB
                     ->  Bitmap Heap Scan on "Project"  (actual time=1.412..33.020 rows=6112)
                           Recheck Cond: ("teamId" = 'team_big'::text)
                           Filter: ("archivedAt" IS NULL)
             Planning Time: 0.211 ms
             Execution Time: 38.967 ms
            (9 rows)
            """,
        ),
        text="First the current plan for the biggest team in the dev seed:",
    )
    c.run(
        ws.edit(
            "prisma/schema.prisma",
            """
              @@index([teamId])
            """,
            """
              @@index([teamId, updatedAt(sort: Desc)])
            """,
        )
    )
    c.run(
        bash(
            "npx prisma migrate dev --name projects_team_updated_idx",
            """
            Environment variables loaded from .env
            Prisma schema loaded from prisma/schema.prisma
            Datasource "db": PostgreSQL database "orbit_dev", schema "public" at "localhost:5432"

            Applying migration `20250312140512_projects_team_updated_idx`

            The following migration(s) have been created and applied from new schema changes:

            migrations/
              └─ 20250312140512_projects_team_updated_idx/
                └─ migration.sql

            Your database is now in sync with your schema.

            ✔ Generated Prisma Client (v5.22.0) to ./node_modules/@prisma/client in 61ms
            """,
        )
    )
    c.run(
        bash(
            "psql orbit_dev -f scripts/explain-first-page.sql",
            """
                                                 QUERY PLAN
            -------------------------------------------------------------------------------
             Limit  (cost=0.41..9.87 rows=25 width=212) (actual time=0.031..0.074 rows=25)
               ->  Index Scan using "Project_teamId_updatedAt_idx" on "Project"
                     Index Cond: ("teamId" = 'team_big'::text)
                     Filter: ("archivedAt" IS NULL)
             Planning Time: 0.198 ms
             Execution Time: 0.093 ms
            (6 rows)
            """,
        )
    )
    c.say(
        """
        The composite index turns the bitmap scan + sort into an index scan that stops after 25
        rows: **38.9 ms → 0.09 ms** for the first page of the biggest dev team.

        The migration is `prisma/migrations/20250312140512_projects_team_updated_idx`. It
        replaces the old `teamId` index (the new one covers the same lookups because `teamId`
        is its first column).
        """
    )
    c.todos(
        ("parsePagination helper", True, ["server"]),
        ("paginate GET /api/projects", True, ["server"]),
        ("usePaginatedProjects + Load more", True, ["client"]),
        ("tests", True),
        ("index on (teamId, updatedAt)", True, ["db"]),
    )
    kept = c.user(
        "The count() is now the slow part for big teams, right? Is it worth doing something "
        "about it?"
    )
    c.run(
        bash(
            'psql orbit_dev -c "EXPLAIN ANALYZE SELECT count(*) FROM \\"Project\\" WHERE '
            '\\"teamId\\" = \'team_big\' AND \\"archivedAt\\" IS NULL"',
            """
             Aggregate  (actual time=2.871..2.872 rows=1 loops=1)
               ->  Index Scan using "Project_teamId_updatedAt_idx" on "Project" (rows=6112)
             Execution Time: 2.904 ms
            """,
        )
    )
    c.say(
        "Not really: with the new index the count takes ~3 ms for 6,100 projects. It would "
        "matter at hundreds of thousands of rows per team; then I'd cache the total or switch "
        "to cursor pagination and drop the exact count. For now I'd leave it."
    )
    c.compact(
        """
        ## Goal
        Paginate GET /api/projects (page + pageSize, default 25, max 100) and use it in
        ProjectList; fix what turns up on the way.

        ## Constraints & Preferences
        - Keep the existing look of the dashboard; a "Load more" button, no page numbers
        - Prisma migrations via `prisma migrate dev`

        ## Progress
        ### Done
        - [x] `parsePagination` / `safePagination` (zod), invalid input → 400
        - [x] Route returns `{ projects, page, pageSize, total }` (rows + count in one
          transaction)
        - [x] `usePaginatedProjects` + Load more button; old `useProjects` removed
        - [x] Flaky e2e test fixed (fixed 500 ms wait → waitForResponse + web-first assertion);
          100/100 runs pass
        - [x] Index on (teamId, updatedAt desc): first page 38.9 ms → 0.09 ms

        ### In Progress
        - (none)

        ### Blocked
        - (none)

        ## Key Decisions
        - **Offset pagination**: the user asked for page/pageSize; cursor pagination only if
          counts get slow
        - **count() kept**: ~3 ms for 6,100 projects with the new index

        ## Next Steps
        1. Open the PR once the user is happy

        ## Critical Context
        - Dev server cookie for curl is in `.dev-cookie`
        """,
        kept,
    )
    c.pause(90)

    # ---------------------------------------------------------------- after the first compaction
    c.user(
        "Back from lunch. CI on the branch failed on lint, can you look? The log says "
        "something about react-hooks."
    )
    c.run(
        bash(
            "npm run lint",
            """
            > orbit@0.9.3 lint
            > eslint . --max-warnings 0

            /home/demo/code/webapp/src/client/hooks/usePaginatedProjects.ts
              18:6  warning  React Hook useEffect has a missing dependency: 'pageSize'. Either \\
            include it or remove the dependency array  react-hooks/exhaustive-deps

            ✖ 1 problem (0 errors, 1 warning)

            ESLint found too many warnings (maximum: 0).
            """,
            1,
        )
    )
    c.run(ws.read("src/client/hooks/usePaginatedProjects.ts", 16, 12))
    c.say(
        """
        That warning is a false positive in spirit but right in the letter: the dependency
        array is `[page, pageSize]`, which is correct — the warning is from line 18 of the
        **CI** checkout. Let me compare with what's pushed.
        """
    )
    c.run(
        bash(
            "git diff origin/feat/projects-pagination -- src/client/hooks/usePaginatedProjects.ts",
            """
            --- a/src/client/hooks/usePaginatedProjects.ts
            +++ b/src/client/hooks/usePaginatedProjects.ts
            @@ -21,7 +21,7 @@ export function usePaginatedProjects(pageSize = 25) {
                     setTotal(data.total);
                   })
                   .finally(() => setLoading(false));
            -  }, [page]);
            +  }, [page, pageSize]);
            """,
        )
    )
    c.say(
        "The pushed commit still had `[page]`; the fix is only in your working tree. Commit and "
        "push it and lint will pass — want me to do it?"
    )
    c.user("yes please, use a fixup commit so I can squash later")
    c.run(
        bash(
            "git commit -q --fixup=HEAD~1 src/client/hooks/usePaginatedProjects.ts && git push -q "
            "&& git log --oneline -4",
            """
            9f3c2e1 (HEAD -> feat/projects-pagination, origin/feat/projects-pagination) fixup! \\
            client: paginated project list
            41d7a0b db: index projects on (teamId, updatedAt desc)
            c2e9b54 client: paginated project list
            7ab1f02 api: paginate GET /api/projects
            """,
        )
    )
    c.say("Pushed `9f3c2e1 fixup! client: paginated project list`. CI should be green now.")
    c.pause(12)
    c.user(
        "While you're at it: the archived projects page uses the same endpoint with "
        "?archived=1, does that still work?"
    )
    c.run(ws.grep("archived", "src"))
    c.run(ws.read("src/server/routes/projects.ts", 1, 30))
    c.say(
        """
        It doesn't, and it didn't before either: the route hard-codes `archivedAt: null`, and
        nothing reads `?archived`. The archived page must get its data elsewhere.
        """
    )
    c.run(ws.grep("archived", "src/client"), ws.find("src/client/**/*Archive*"))
    c.say(
        "Nothing in the client calls `/api/projects?archived=1` — the archived view you're "
        "thinking of is probably the admin app. So there's nothing to keep working here."
    )
    c.user("ah right, it's in the admin repo. ignore that then.")
    ignored = c.say("👍 Ignoring it.")
    before_heading = dict(ws.files)
    c.pause(20)

    # ---------------------------------------------------------------- total in the UI
    c.user("Small thing: show the total next to the heading, like 'Projects (214)'.")
    c.run(ws.grep("<h2", "src/client"))
    c.run(
        ws.edit(
            "src/client/components/ProjectList.tsx",
            """
              return (
                <ul className="project-list" data-testid="project-list">
            """,
            """
              return (
                <>
                <h2 className="section-title">
                  Projects <span className="count">({total})</span>
                </h2>
                <ul className="project-list" data-testid="project-list">
            """,
        ),
        ws.edit(
            "src/client/components/ProjectList.tsx",
            """
                  )}
                </ul>
              );
            """,
            """
                  )}
                </ul>
                </>
              );
            """,
        ),
        text="There's no heading in the list yet, so I'll add one in the component:",
    )
    c.run(
        bash(
            "npx prettier --write src/client/components/ProjectList.tsx && npm run typecheck",
            "src/client/components/ProjectList.tsx 38ms\n\n> tsc --noEmit",
        )
    )
    c.say("Added *Projects (214)* above the list (the count is `total`, not the loaded rows).")
    c.pause(2)
    # The user goes back in /tree to before the heading, and keeps a summary of the detour.
    c.sm.branch_with_summary(
        ignored,
        _prose(
            """
            ## Goal
            Show the total next to the projects heading ("Projects (214)").

            ## Progress
            ### Done
            - [x] Added an <h2> with the count above the list in ProjectList.tsx

            ## Key Decisions
            - **Dropped**: the dashboard layout already renders a "Projects" heading above
              ProjectList, so the component must not add its own. Not worth plumbing `total`
              up for now.

            <modified-files>
            src/client/components/ProjectList.tsx
            </modified-files>
            """
        ),
        {"readFiles": [], "modifiedFiles": ["src/client/components/ProjectList.tsx"]},
        False,
    )
    ws.files = before_heading
    c.pause(30)

    # ---------------------------------------------------------------- sorting
    c.user(
        "Product wants a sort dropdown: 'Recently updated' (default) and 'Name A–Z'. Server "
        "param `sort=updated|name`. Same pagination."
    )
    c.run(ws.read("src/server/pagination.ts"))
    c.run(
        ws.edit(
            "src/server/pagination.ts",
            """
            const Pagination = z.object({
              page: z.coerce.number().int().min(1).default(1),
              pageSize: z.coerce.number().int().min(1).default(25),
            });
            """,
            """
            const Pagination = z.object({
              page: z.coerce.number().int().min(1).default(1),
              pageSize: z.coerce.number().int().min(1).default(25),
              sort: z.enum(["updated", "name"]).default("updated"),
            });
            """,
        ),
        ws.edit(
            "src/server/pagination.ts",
            """
              skip: number;
              take: number;
            }
            """,
            """
              skip: number;
              take: number;
              sort: "updated" | "name";
            }
            """,
        ),
        ws.edit(
            "src/server/pagination.ts",
            """
              const { page, pageSize } = Pagination.parse(query);
              const size = Math.min(pageSize, MAX_PAGE_SIZE);
              return { page, pageSize: size, skip: (page - 1) * size, take: size };
            """,
            """
              const { page, pageSize, sort } = Pagination.parse(query);
              const size = Math.min(pageSize, MAX_PAGE_SIZE);
              return { page, pageSize: size, skip: (page - 1) * size, take: size, sort };
            """,
        ),
        text="The parameter belongs in the same zod schema:",
    )
    c.run(
        ws.edit(
            "src/server/routes/projects.ts",
            """
              const { page, pageSize, skip, take } = parsed.value;
            """,
            """
              const { page, pageSize, skip, take, sort } = parsed.value;
              // id as a tie-breaker: equal names or timestamps must not reorder between pages
              const orderBy =
                sort === "name"
                  ? [{ name: "asc" as const }, { id: "asc" as const }]
                  : [{ updatedAt: "desc" as const }, { id: "asc" as const }];
            """,
        ),
        ws.edit(
            "src/server/routes/projects.ts",
            """
                  orderBy: { updatedAt: "desc" },
                  include: { owner: { select: { id: true, name: true } } },
                  skip,
            """,
            """
                  orderBy,
                  include: { owner: { select: { id: true, name: true } } },
                  skip,
            """,
        ),
        thinking="""
        Offset pagination needs a total order, otherwise rows with equal sort keys can swap
        between two page requests and appear twice or never. Add id as a tie-breaker for both
        sorts.
        """,
    )
    c.run(
        ws.edit(
            "test/server/pagination.test.ts",
            """
              it("rejects pageSize=0", () => {
            """,
            """
              it("accepts the two sorts and defaults to updated", () => {
                expect(parsePagination({}).sort).toBe("updated");
                expect(parsePagination({ sort: "name" }).sort).toBe("name");
                expect(() => parsePagination({ sort: "size" })).toThrow();
              });

              it("rejects pageSize=0", () => {
            """,
        )
    )
    c.run(
        bash(
            "npx vitest run test/server 2>&1 | tail -n 4",
            """
             ✓ test/server/pagination.test.ts (9 tests) 7ms
             ✓ test/server/projects.test.ts (2 tests) 152ms

             Test Files  2 passed (2)
                  Tests  11 passed (11)
            """,
        )
    )
    c.run(
        ws.edit(
            "src/client/hooks/usePaginatedProjects.ts",
            """
            export function usePaginatedProjects(pageSize = 25) {
            """,
            """
            export type ProjectSort = "updated" | "name";

            export function usePaginatedProjects(sort: ProjectSort = "updated", pageSize = 25) {
            """,
        ),
        ws.edit(
            "src/client/hooks/usePaginatedProjects.ts",
            """
                getJSON<PageResponse>(`/api/projects?page=${page}&pageSize=${pageSize}`)
            """,
            """
                const query = new URLSearchParams({
                  page: String(page),
                  pageSize: String(pageSize),
                  sort,
                });
                getJSON<PageResponse>(`/api/projects?${query}`)
            """,
        ),
        ws.edit(
            "src/client/hooks/usePaginatedProjects.ts",
            """
              }, [page, pageSize]);
            """,
            """
              }, [page, pageSize, sort]);

              // a new sort starts over at page 1
              useEffect(() => setPage(1), [sort]);
            """,
        ),
        text="Now the hook takes the sort, and a new sort starts again at page 1:",
    )
    c.run(
        ws.edit(
            "src/client/components/ProjectList.tsx",
            """
            export function ProjectList() {
              const { projects, total, loading, loadMore, hasMore } = usePaginatedProjects();
            """,
            """
            export function ProjectList() {
              const [sort, setSort] = useState<ProjectSort>("updated");
              const { projects, total, loading, loadMore, hasMore } = usePaginatedProjects(sort);
            """,
        ),
        ws.edit(
            "src/client/components/ProjectList.tsx",
            """
                  )}
                </ul>
              );
            """,
            """
                  )}
                </ul>
                </>
              );
            """,
        ),
        ws.edit(
            "src/client/components/ProjectList.tsx",
            """
              return (
                <ul className="project-list" data-testid="project-list">
            """,
            """
              return (
                <>
                <label className="sort">
                  Sort by{" "}
                  <select value={sort} onChange={(e) => setSort(e.target.value as ProjectSort)}>
                    <option value="updated">Recently updated</option>
                    <option value="name">Name A–Z</option>
                  </select>
                </label>
                <ul className="project-list" data-testid="project-list">
            """,
        ),
        ws.edit(
            "src/client/components/ProjectList.tsx",
            """
            import { usePaginatedProjects } from "../hooks/usePaginatedProjects.js";
            """,
            """
            import { useState } from "react";
            import {
              type ProjectSort,
              usePaginatedProjects,
            } from "../hooks/usePaginatedProjects.js";
            """,
        ),
    )
    c.run(
        bash(
            "npm run typecheck && npm run lint",
            """
            > tsc --noEmit

            > eslint . --max-warnings 0
            """,
        )
    )
    c.say(
        """
        Sorting is in:

        - API: `sort=updated|name` (default `updated`), validated by the same zod schema; an
          unknown value answers 400.
        - Both orders get `id` as a tie-breaker. Without it, projects with the same name (or
          the same `updatedAt`) may swap places between two page requests, and *Load more*
          would show one twice and skip another.
        - Client: a *Sort by* select above the list; changing it starts over at page 1.

        Typecheck and lint are clean, the schema test covers the new parameter.
        """
    )
    c.user("Do we need an index for the name sort too?")
    c.say(
        """
        For the biggest dev team (6,100 projects) a name sort without an index costs about the
        same as the old `updatedAt` sort did: ~35–40 ms, mostly the sort. Most teams have
        fewer than 200 projects, where it's under a millisecond either way. I'd add
        `@@index([teamId, name])` only if the name sort turns out to be popular — it costs
        write time on every project update. Your call.
        """,
        thinking="""
        Rough estimate from the earlier EXPLAIN: the bitmap heap scan + top-N heapsort was
        ~39 ms for 6112 rows. The name sort would be similar without an index.
        """,
    )
    c.user("Skip it for now.")
    c.say("OK — no index for the name sort.")
    c.pause(10)

    # ---------------------------------------------------------------- more tests
    c.user("Add a route test for the new response shape and for the 400.")
    c.run(ws.read("test/server/projects.test.ts"))
    c.run(
        ws.edit(
            "test/server/projects.test.ts",
            """
              it("needs a session", async () => {
            """,
            """
              it("returns one page and the total", async () => {
                const { agent } = await seedTeam({ projects: 30 });
                const res = await agent.get("/api/projects?page=2&pageSize=20");
                expect(res.status).toBe(200);
                expect(res.body).toMatchObject({ page: 2, pageSize: 20, total: 30 });
                expect(res.body.projects).toHaveLength(10);
              });

              it("answers 400 for a bad page", async () => {
                const { agent } = await seedTeam({ projects: 1 });
                const res = await agent.get("/api/projects?page=0");
                expect(res.status).toBe(400);
                expect(res.body.error).toMatch(/greater than or equal to 1/);
              });

              it("needs a session", async () => {
            """,
        )
    )
    c.run(
        bash(
            "npx vitest run test/server/projects.test.ts",
            """
             ✓ test/server/projects.test.ts (4 tests) 388ms
               ✓ GET /api/projects > lists the team's projects, newest first
               ✓ GET /api/projects > returns one page and the total
               ✓ GET /api/projects > answers 400 for a bad page
               ✓ GET /api/projects > needs a session

             Test Files  1 passed (1)
                  Tests  4 passed (4)
            """,
        )
    )
    c.say(
        "Both new route tests pass (30 seeded projects → page 2 of 20 has 10 rows; `page=0` → 400)."
    )
    c.run(
        bash(
            "npm test 2>&1 | tail -n 4",
            """
             Test Files  10 passed (10)
                  Tests  71 passed (71)
               Start at  16:48:03
               Duration  3.12s
            """,
        ),
        text="And the full unit suite once more:",
    )
    c.say("All 71 unit tests pass.")
    c.pause(8)

    # ---------------------------------------------------------------- loading skeleton
    c.user(
        "When you click Load more the button just says Loading… — can we show three grey "
        "skeleton cards instead, like on the tasks page?"
    )
    c.run(ws.find("src/client/**/*Skeleton*"), text="Let me see what the tasks page uses.")
    c.run(ws.grep("skeleton", "src/client"))
    c.say(
        "There's no skeleton component in this repo; the tasks page must be doing it inline. "
        "Could you point me at it?"
    )
    c.user("Oh, it's in the design-system package, `@orbit/ui`, component `<SkeletonCard />`.")
    c.run(
        bash(
            "ls node_modules/@orbit/ui/dist | head -n 20",
            "ls: cannot access 'node_modules/@orbit/ui/dist': No such file or directory",
        )
    )
    c.run(bash("npm ls @orbit/ui", "orbit@0.9.3 /home/demo/code/webapp\n└── (empty)", 1))
    c.say(
        "`@orbit/ui` isn't installed in this project (`npm ls` finds nothing, and it's not in "
        "`package.json`). Do you want me to add it as a dependency, or write a small local "
        "skeleton card with the same look?"
    )
    c.user("Local one is fine, keep it tiny. Grey box, pulse animation, same size as a card.")
    c.run(
        ws.write(
            "src/client/components/SkeletonCard.tsx",
            """
            /** A grey placeholder with the size of a ProjectCard, pulsing while a page loads. */
            export function SkeletonCard() {
              return <li className="project-card skeleton" aria-hidden="true" />;
            }
            """,
        ),
        ws.edit(
            "src/client/components/ProjectList.tsx",
            """
                  {hasMore && (
            """,
            """
                  {loading && projects.length > 0 && [0, 1, 2].map((i) => <SkeletonCard key={i} />)}
                  {hasMore && (
            """,
        ),
        ws.edit(
            "src/client/components/ProjectList.tsx",
            """
            import { ProjectCard } from "./ProjectCard.js";
            """,
            """
            import { ProjectCard } from "./ProjectCard.js";
            import { SkeletonCard } from "./SkeletonCard.js";
            """,
        ),
    )
    c.run(
        ws.edit(
            "src/client/styles.css",
            """
            .project-card {
            """,
            """
            .skeleton {
            """,
        ),
        text="And the CSS:",
    )
    c.run(ws.find("src/client/**/*.css"))
    c.run(
        ws.write(
            "src/client/components/SkeletonCard.css",
            """
            .project-card.skeleton {
              min-height: 5.5rem;
              background: var(--surface-muted, #e5e7eb);
              animation: skeleton-pulse 1.2s ease-in-out infinite;
            }

            @keyframes skeleton-pulse {
              50% { opacity: 0.45; }
            }

            @media (prefers-reduced-motion: reduce) {
              .project-card.skeleton { animation: none; }
            }
            """,
        ),
        ws.edit(
            "src/client/components/SkeletonCard.tsx",
            """
            /** A grey placeholder with the size of a ProjectCard, pulsing while a page loads. */
            """,
            """
            import "./SkeletonCard.css";

            /** A grey placeholder with the size of a ProjectCard, pulsing while a page loads. */
            """,
        ),
        text="There's no global stylesheet in the repo; the CSS goes next to the component:",
    )
    c.run(
        bash(
            "npm run typecheck && npx playwright test dashboard.spec.ts 2>&1 | tail -n 2",
            """
            > tsc --noEmit

              2 passed (6.8s)
            """,
        )
    )
    c.say(
        """
        Three pulsing skeleton cards now appear under the list while the next page loads
        (`SkeletonCard.tsx` + `SkeletonCard.css`, 20 lines in all). They are `aria-hidden`, and
        the animation is off for users who prefer reduced motion. The e2e tests still pass,
        since the assertion targets `li.project-card` that is *visible*, and skeletons are
        only shown after the first page.
        """
    )
    c.user("Hmm wait, skeletons have class project-card too. Doesn't that break the e2e locator?")
    c.say(
        """
        Good catch — it could. `li.project-card` matches skeletons too, so the "shows projects"
        test would pass on a skeleton if one were on screen. They only render after the first
        page arrives, so today it can't happen, but it's fragile. I'll give the real cards a
        test id and target that.
        """
    )
    c.run(
        ws.edit(
            "src/client/components/ProjectCard.tsx",
            """
                <li className="project-card">
            """,
            """
                <li className="project-card" data-testid="project-card">
            """,
        ),
        ws.edit(
            "test/e2e/dashboard.spec.ts",
            """
              const items = page.getByTestId("project-list").locator("li.project-card");
            """,
            """
              const items = page.getByTestId("project-card");
            """,
        ),
    )
    c.run(
        bash(
            "npx playwright test dashboard.spec.ts --repeat-each=10 2>&1 | tail -n 1",
            "  20 passed (24.0s)",
        )
    )
    c.say('The e2e test now looks for `data-testid="project-card"`; 20/20 runs pass.')
    c.pause(6)

    # ---------------------------------------------------------------- docs
    c.user("Document the query parameters in the README, there's an API section... or is there?")
    c.run(ws.grep("^## ", "README.md"))
    c.say("There isn't: the README only has the install/run block. I'll add a short *API* section.")
    c.run(
        ws.edit(
            "README.md",
            """
            npm run test:e2e   # browser tests (playwright)
            ```
            """,
            """
            npm run test:e2e   # browser tests (playwright)
            ```

            ## API

            ### `GET /api/projects`

            The signed-in user's team projects, most recently updated first.

            | query      | default | notes                  |
            |------------|---------|------------------------|
            | `page`     | 1       | 1-based                |
            | `pageSize` | 25      | clamped to 100         |

            Response: `{ projects, page, pageSize, total }`. Invalid values answer `400`.
            """,
        )
    )
    c.say("Added an *API* section with the parameters, defaults, the response shape and the 400.")
    c.pause(15)

    # ---------------------------------------------------------------- duplicates
    c.user(
        "Dana just reported that after clicking Load more she sometimes sees the same project "
        "twice. She had another tab open where she was editing projects."
    )
    c.run(
        ws.read("src/client/hooks/usePaginatedProjects.ts"),
        thinking="""
        Offset pagination with "recently updated" order: if a project on page 1 is edited
        between loading page 1 and page 2, it moves to the top; everything shifts down by one,
        so the last row of page 1 becomes the first row of page 2 → duplicate. Conversely an
        item can be skipped. Classic. Fixes: dedupe by id on the client (cheap, fixes the
        visible symptom), or cursor/keyset pagination (fixes the cause). Explain both.
        """,
    )
    c.say(
        """
        That's inherent to offset pagination over a list sorted by *recently updated*:

        1. Page 1 loads rows 1–25.
        2. In the other tab, Dana edits a project from page 1 → its `updatedAt` changes and
           it moves to position 1.
        3. Every row behind it shifts down by one, so the old row 25 is now row 26 — the first
           row of page 2. It shows up twice.

        (The mirror case also exists: editing a project from a *later* page makes one row get
        skipped.)

        Two ways out:

        - **Dedupe by id in the hook** — a few lines, fixes the duplicate you can see, but not
          the skipped row.
        - **Cursor (keyset) pagination**: ask for "25 rows after (updatedAt, id) of the last row
          I have". Stable under edits, and cheaper for deep pages, but the API changes and
          `page` numbers go away.

        I'd do the dedupe now and consider the cursor version separately.
        """
    )
    c.user("Agreed, dedupe now.")
    c.run(
        ws.edit(
            "src/client/hooks/usePaginatedProjects.ts",
            """
                    setProjects((prev) =>
                      page === 1 ? data.projects : [...prev, ...data.projects],
                    );
            """,
            """
                    setProjects((prev) =>
                      page === 1 ? data.projects : appendNew(prev, data.projects),
                    );
            """,
        ),
        ws.edit(
            "src/client/hooks/usePaginatedProjects.ts",
            """
            interface PageResponse {
            """,
            """
            /** Rows of the next page, minus those already shown (offset pages shift when rows are
             * edited meanwhile). */
            export function appendNew(shown: Project[], next: Project[]): Project[] {
              const seen = new Set(shown.map((p) => p.id));
              return [...shown, ...next.filter((p) => !seen.has(p.id))];
            }

            interface PageResponse {
            """,
        ),
    )
    c.run(
        ws.write(
            "test/client/appendNew.test.ts",
            """
            import { expect, it } from "vitest";
            import { appendNew } from "../../src/client/hooks/usePaginatedProjects.js";

            const owner = { id: "u", name: "U" };
            const p = (id: string) => ({ id, name: id, description: null, owner, updatedAt: "" });
            const ids = (rows: { id: string }[]) => rows.map((row) => row.id);

            it("drops rows that are already shown", () => {
              expect(ids(appendNew([p("a"), p("b")], [p("b"), p("c")]))).toEqual(["a", "b", "c"]);
            });

            it("keeps the order of both pages", () => {
              expect(ids(appendNew([p("b")], [p("c"), p("a")]))).toEqual(["b", "c", "a"]);
            });
            """,
        )
    )
    c.run(
        bash(
            "npx vitest run test/client/appendNew.test.ts",
            """
             ✓ test/client/appendNew.test.ts (2 tests) 3ms

             Test Files  1 passed (1)
                  Tests  2 passed (2)
            """,
        )
    )
    c.run(bash("npm run lint", "> eslint . --max-warnings 0"))
    dedupe = c.say(
        "Done: `appendNew()` drops rows of the next page that are already shown, with two unit "
        "tests. Lint is clean. The skipped-row case remains; it needs the cursor version."
    )
    c.label(dedupe, "dedupe (offset limits)")
    c.pause(40)

    # ---------------------------------------------------------------- review feedback
    c.user(
        "Review from Maria on the PR: 'page size 100 is a lot of owner joins, can we make the "
        "max 50?' and 'the Load more button should keep focus after loading'. Do both."
    )
    c.run(ws.grep("MAX_PAGE_SIZE", "."))
    c.run(
        ws.edit(
            "src/server/pagination.ts",
            """
            export const MAX_PAGE_SIZE = 100;
            """,
            """
            export const MAX_PAGE_SIZE = 50;
            """,
        ),
        ws.edit(
            "README.md",
            """
            | `pageSize` | 25      | clamped to 100         |
            """,
            """
            | `pageSize` | 25      | clamped to 50          |
            """,
        ),
    )
    c.run(
        ws.edit(
            "src/client/components/ProjectList.tsx",
            """
                      <button type="button" onClick={loadMore} disabled={loading}>
            """,
            """
                      <button type="button" onClick={loadMore} aria-disabled={loading}>
            """,
        ),
        thinking="""
        Focus is lost because the button gets `disabled` while loading: a disabled button
        cannot hold focus, so the browser moves focus to <body>. Using aria-disabled keeps it
        focusable; the click handler must then ignore clicks while loading.
        """,
    )
    c.run(
        ws.edit(
            "src/client/hooks/usePaginatedProjects.ts",
            """
              const loadMore = useCallback(() => setPage((p) => p + 1), []);
            """,
            """
              const loadMore = useCallback(() => {
                if (!loading) setPage((p) => p + 1);
              }, [loading]);
            """,
        )
    )
    c.run(
        bash(
            "npm run typecheck && npm test 2>&1 | tail -n 3",
            """
            > tsc --noEmit

             Test Files  10 passed (10)
                  Tests  71 passed (71)
            """,
        )
    )
    c.say(
        """
        Both done:

        1. `MAX_PAGE_SIZE` is 50 (the clamping test uses the constant, so it still passes; the
           README says 50).
        2. Focus: the button used `disabled` while loading, and a disabled button can't keep
           focus, so the browser moved it to `<body>`. It now uses `aria-disabled`, and
           `loadMore` ignores clicks while a page is loading.
        """
    )
    kept2 = c.user("Push it and reply to Maria's comments with a short summary.")
    c.run(
        bash(
            "git commit -qam 'review: max page size 50, keep focus on Load more' && git push -q "
            "&& gh pr comment 142 --body 'Done: max pageSize is now 50; the button uses "
            "aria-disabled so focus stays on it while the next page loads.'",
            "https://github.com/orbit-app/orbit/pull/142#issuecomment-2712094414",
        )
    )
    c.say("Pushed and commented on #142.")
    c.compact(
        """
        ## Goal
        Paginate GET /api/projects and the dashboard's project list (PR #142).

        ## Constraints & Preferences
        - Keep the existing look; no heading in ProjectList (the page layout has one)
        - Fixup commits while the PR is open (squash later)

        ## Progress
        ### Done
        - [x] Server: `parsePagination`/`safePagination`, 400 on bad input, rows + total
        - [x] Client: `usePaginatedProjects`, Load more button (aria-disabled, keeps focus)
        - [x] Flaky e2e test fixed; index on (teamId, updatedAt desc)
        - [x] Route tests for the page shape and the 400; README API section
        - [x] Review from Maria addressed: max pageSize 50, focus kept

        ### In Progress
        - (none)

        ### Blocked
        - (none)

        ## Key Decisions
        - **MAX_PAGE_SIZE = 50** after review (owner joins)
        - **?archived=1** is the admin app's business, not this endpoint's

        ## Next Steps
        1. Wait for CI and the second review

        ## Critical Context
        - PR: https://github.com/orbit-app/orbit/pull/142
        """,
        kept2,
        retain=True,
    )
    c.pause(60 * 17)  # the next morning

    # ---------------------------------------------------------------- the next morning
    c.user(
        "Morning. The PR got approved. Before merging: the e2e 'creating a project puts it on "
        "top' test — does it still make sense with pagination? New projects should still "
        "appear on top, right?"
    )
    c.run(ws.read("test/e2e/dashboard.spec.ts", 14, 12))
    c.say(
        """
        Yes, it still makes sense: a new project has the newest `updatedAt`, so it's the first
        row of page 1. One subtle case: if you have already clicked *Load more*, the accumulated
        list is not refetched after creating, so the new project would only show up after a
        reload. The create form navigates back to `/` today, which remounts the list, so users
        don't hit it — but it's worth knowing if the form ever becomes a modal.
        """
    )
    c.user("Good to know. Add a code comment about that in the hook so nobody trips over it.")
    c.run(
        ws.edit(
            "src/client/hooks/usePaginatedProjects.ts",
            """
            export function usePaginatedProjects(sort: ProjectSort = "updated", pageSize = 25) {
            """,
            """
            // Pages accumulate in local state and are never refetched: a project created while
            // later pages are loaded only shows up after the list remounts (today the create
            // form navigates back to "/", which does that).
            export function usePaginatedProjects(sort: ProjectSort = "updated", pageSize = 25) {
            """,
        )
    )
    c.run(
        bash(
            "git commit -qam 'fixup! client: paginated project list' && git push -q && gh pr "
            "checks 142 --watch --interval 20 | tail -n 5",
            """
            ✓  ci/test       1m52s  https://github.com/orbit-app/orbit/actions/runs/11781912001
            ✓  ci/lint       41s    https://github.com/orbit-app/orbit/actions/runs/11781912001
            ✓  ci/typecheck  38s    https://github.com/orbit-app/orbit/actions/runs/11781912001
            ✓  e2e           3m09s  https://github.com/orbit-app/orbit/actions/runs/11781912002

            All checks were successful
            """,
            timeout=900,
        )
    )
    c.say("Comment added and pushed; all four checks are green.")
    c.user("Squash-merge it.")
    c.run(
        bash(
            "gh pr merge 142 --squash --delete-branch",
            """
            ✓ Squashed and merged pull request #142 (Paginate the projects list)
            ✓ Deleted branch feat/projects-pagination and switched to branch main
            """,
        )
    )
    merged = c.say(
        "Merged as a single commit on `main`, and the branch is deleted. 🎉 Anything else?"
    )
    c.user("Write the CHANGELOG entry for this under Unreleased.")
    c.run(ws.read("CHANGELOG.md", 1, 20))
    c.run(ws.find("*.md"))
    c.run(
        ws.write(
            "CHANGELOG.md",
            """
            # Changelog

            ## Unreleased

            ### Changed
            - The dashboard loads projects 25 at a time, with a *Load more* button and a
              *Sort by* select (recently updated, name). (#142)
            - `GET /api/projects` takes `page`, `pageSize` (max 50) and `sort`, and returns
              `{ projects, page, pageSize, total }`. Invalid values answer 400. (#142)

            ### Fixed
            - The "dashboard shows the team's projects" e2e test no longer flakes. (#142)

            ### Performance
            - New index on projects `(teamId, updatedAt desc)`: the first page of a team with
              6,000 projects takes 0.1 ms instead of 39 ms in the database. (#142)
            """,
        ),
        text="There's no CHANGELOG yet; I'll start one in Keep a Changelog style.",
    )
    c.run(
        bash(
            "git checkout -qb docs/changelog && git add CHANGELOG.md && git commit -qm "
            "'docs: start a changelog' && git push -qu origin docs/changelog 2>&1 | tail -n 2",
            """
            remote: Create a pull request for 'docs/changelog' on GitHub by visiting:
            remote:      https://github.com/orbit-app/orbit/pull/new/docs/changelog
            """,
        )
    )
    c.say(
        "Created `CHANGELOG.md` with an *Unreleased* section (changed, fixed, performance) "
        "and pushed it on `docs/changelog` — `main` is protected, so it needs its own PR."
    )
    c.label(merged, "merged")
    c.name("API pagination + flaky e2e test")
    c.user("That's all, thanks!")
    c.say("You're welcome!")
    return b.save(c), marks, server_files


def _webapp_cursor(b: _Builder, source: str, leaf: str, files: dict[str, str]) -> str:
    """A /fork of the long session at the server-side step: trying cursor pagination instead."""
    c = b.branch(source, leaf, ago=4 * DAY + 3 * HOUR, model=SONNET, files=files)
    ws = c.ws
    c.user(
        "Experiment, separate from the PR: what would cursor (keyset) pagination look like "
        "on (updatedAt, id)? Server side only, don't touch the client."
    )
    c.run(ws.read("src/server/pagination.ts"))
    c.run(
        ws.write(
            "src/server/cursor.ts",
            """
            import { z } from "zod";

            export const MAX_LIMIT = 100;

            /** Position after a row: its sort key and id, base64url JSON (opaque to clients). */
            export interface Cursor {
              updatedAt: string;
              id: string;
            }

            export function encodeCursor(row: { updatedAt: Date; id: string }): string {
              const cursor: Cursor = { updatedAt: row.updatedAt.toISOString(), id: row.id };
              return Buffer.from(JSON.stringify(cursor)).toString("base64url");
            }

            const CursorShape = z.object({ updatedAt: z.string().datetime(), id: z.string() });

            export function decodeCursor(value: string): Cursor {
              const json = Buffer.from(value, "base64url").toString("utf8");
              return CursorShape.parse(JSON.parse(json));
            }

            /** Rows strictly after the cursor in (updatedAt desc, id asc) order. */
            export function afterCursor(cursor: Cursor) {
              const at = new Date(cursor.updatedAt);
              return {
                OR: [{ updatedAt: { lt: at } }, { updatedAt: at, id: { gt: cursor.id } }],
              };
            }
            """,
        ),
        thinking="""
        Keyset on (updatedAt desc, id asc). The "after" condition is
        updatedAt < c.updatedAt OR (updatedAt = c.updatedAt AND id > c.id).
        Fetch limit + 1 rows to know if there's a next page without a count.
        """,
    )
    c.run(
        ws.edit(
            "src/server/routes/projects.ts",
            """
              const { page, pageSize, skip, take } = parsePagination(req.query);
              const where = { teamId: req.user.teamId, archivedAt: null };
              const [rows, total] = await db.$transaction([
                db.project.findMany({
                  where,
                  orderBy: { updatedAt: "desc" },
                  include: { owner: { select: { id: true, name: true } } },
                  skip,
                  take,
                }),
                db.project.count({ where }),
              ]);
              res.json({ projects: rows, page, pageSize, total });
            """,
            """
              const limit = Math.min(Number(req.query.limit ?? 25), MAX_LIMIT);
              const { after: raw } = req.query;
              const after = typeof raw === "string" ? decodeCursor(raw) : null;
              const base = { teamId: req.user.teamId, archivedAt: null };
              const rows = await db.project.findMany({
                where: after ? { AND: [base, afterCursor(after)] } : base,
                orderBy: [{ updatedAt: "desc" }, { id: "asc" }],
                include: { owner: { select: { id: true, name: true } } },
                take: limit + 1, // one extra row says whether there is a next page
              });
              const page = rows.slice(0, limit);
              const next = rows.length > limit ? encodeCursor(page[page.length - 1]) : null;
              res.json({ projects: page, next });
            """,
        )
    )
    c.run(
        bash(
            'for i in 1 2 3; do curl -s "localhost:3000/api/projects?limit=2${c:+&after=$c}" -b '
            ".dev-cookie > /tmp/p.json; jq -c '[.projects[].name, .next[0:16]]' /tmp/p.json; "
            "c=$(jq -r .next /tmp/p.json); done",
            """
            ["Launch checklist","Q3 roadmap","eyJ1cGRhdGVkQXQi"]
            ["Support rotation","Billing revamp","eyJ1cGRhdGVkQXQi"]
            ["Design system v2","Hiring plan","eyJ1cGRhdGVkQXQi"]
            """,
        )
    )
    c.run(
        bash(
            "psql orbit_dev -f /tmp/explain_deep.sql | grep -E 'Execution|Index Scan|Sort'",
            """
            offset page 200:  Execution Time: 11.840 ms   (Index Scan, 5000 rows skipped)
            cursor page 200:  Execution Time: 0.101 ms    (Index Scan, Index Cond on cursor)
            """,
        ),
        text="And the difference for deep pages, offset vs. cursor, 25 rows at page 200:",
    )
    summary = c.say(
        """
        The cursor version works: three requests walk the list 2 rows at a time, each
        answering `next` (an opaque base64url cursor, `null` on the last page).

        Trade-offs against the page/pageSize PR:

        | | offset (PR #142) | cursor |
        |---|---|---|
        | edits while paging | duplicates/skips | stable |
        | deep pages | 11.8 ms at page 200 | 0.1 ms |
        | total count | yes | no (would need a separate count) |
        | jump to page N | yes | no |

        For a *Load more* list the cursor version fits better; the page numbers are only
        needed if we ever show a pager. Nothing here touches the client.
        """
    )
    c.name("cursor pagination experiment")
    c.label(summary, "comparison table")
    return b.save(c)


def _webapp_cursor_prisma(b: _Builder, source: str, leaf: str) -> str:
    """A /fork of the cursor experiment: a second opinion on Prisma's built-in cursor option."""
    c = b.branch(source, leaf, ago=3 * DAY + 2 * HOUR, model=SONNET)
    c.name("cursor pagination: Prisma's cursor option?")
    c.switch_model(GPT5)
    c.user(
        "Follow-up on the experiment: Prisma has a built-in `cursor` option for findMany. "
        "Could we use that instead of the hand-written OR condition?"
    )
    c.say(
        """
        You could, with caveats. Prisma's `cursor: { id }` + `skip: 1` means "start at the row
        with this id". It then runs a sub-select to find that row's sort values, so:

        - **It needs the cursor row to still exist.** If the project was deleted (or archived,
          given our `archivedAt: null` filter) between two requests, the next page is
          empty — the hand-written condition doesn't care, it only compares values.
        - **The cursor must be a unique field**, so it's `id` only; the `updatedAt` value is
          looked up again, which means an edit to the cursor row between requests moves the
          window (the very problem keyset pagination is meant to avoid).
        - It generates a slightly heavier query (sub-select per request), though with the
          (teamId, updatedAt) index it's still well under a millisecond.

        So for a list that people edit while they scroll, I'd keep the explicit
        `(updatedAt, id)` cursor. Prisma's option is fine for append-only data like audit
        logs.
        """,
        thinking="""
        Prisma cursor-based pagination: cursor must be unique/unique compound, uses skip: 1
        to exclude the cursor row. Internally it resolves the cursor row's order-by values.
        If the row is gone, result is empty. If the row was updated, the window shifts.
        """,
    )
    c.user("Makes sense, thanks. Keep ours.")
    c.say("👍")
    return b.save(c)


def _webapp_lint_now(b: _Builder) -> str:
    """The newest session: a user-run shell command, an aborted reply, a fix."""
    c = b.start(WEBAPP, ago=11 * MINUTE, files=_webapp_files())
    ws = c.ws
    c.shell(
        "npm run lint",
        _text(
            """
            > orbit@0.9.3 lint
            > eslint . --max-warnings 0

            /home/demo/code/webapp/src/client/components/ProjectCard.tsx
              8:37  error  Unsafe member access .name on an `any` value  no-unsafe-member-access

            /home/demo/code/webapp/src/server/index.ts
              13:31  error  Unexpected console statement  no-console

            /home/demo/code/webapp/src/server/routes/tasks.ts
              8:71  error  Unsafe argument of type `any` assigned to a parameter of type `string`

            ✖ 3 problems (3 errors, 0 warnings)
            """
        ),
        1,
    )
    c.user("CI on main is red because of these ^ — can you fix them?")
    c.run(ws.read("src/client/components/ProjectCard.tsx"), text="Starting with the client one.")
    c.reply("In `ProjectCard.tsx` the `owner` field comes from", stop="aborted")
    c.user(
        "No wait — only fix the two in src/server. Sam's PR already fixes the client one and "
        "I don't want a conflict."
    )
    c.run(ws.read("src/server/index.ts"), ws.read("src/server/routes/tasks.ts"))
    c.run(
        ws.edit(
            "src/server/index.ts",
            """
            app.listen(port, () => console.log(`orbit api listening on :${port}`));
            """,
            """
            app.listen(port, () => process.stdout.write(`orbit api listening on :${port}\\n`));
            """,
        ),
        ws.edit(
            "src/server/routes/tasks.ts",
            """
            tasks.get("/:projectId", requireUser, async (req, res) => {
            """,
            """
            type ProjectParams = Request<{ projectId: string }>;

            tasks.get("/:projectId", requireUser, async (req: ProjectParams, res) => {
            """,
        ),
        ws.edit(
            "src/server/routes/tasks.ts",
            """
            import { Router } from "express";
            """,
            """
            import { type Request, Router } from "express";
            """,
        ),
    )
    c.run(bash("npx eslint src/server && npm run typecheck", "> tsc --noEmit"))
    c.say(
        """
        Fixed the two server errors, left `ProjectCard.tsx` alone:

        - `src/server/index.ts`: the startup message goes through `process.stdout.write`
          instead of `console.log` (our config only allows `console.warn`/`console.error`).
        - `src/server/routes/tasks.ts`: the handler's `req` is typed as
          `Request<{ projectId: string }>`, so `req.params.projectId` is a `string`, not `any`.

        `eslint src/server` and the typecheck are clean. Once Sam's PR is in, `npm run lint`
        should pass on main.
        """
    )
    return b.save(c)


def _webapp_quick_question(b: _Builder, ago: float) -> str:
    """The newest session (see ``_Builder.latest``)."""
    c = b.start(WEBAPP, ago=ago, model=HAIKU, thinking="off")
    c.user(
        "quick one: in usePaginatedProjects, should loadMore be wrapped in useCallback or is "
        "useMemo the right tool there?"
    )
    c.say(
        """
        `useCallback` is the right one. `useCallback(fn, deps)` is exactly
        `useMemo(() => fn, deps)`: both keep the same function identity between renders, but
        `useCallback` says so directly.

        It only matters if something compares the function by identity — e.g. `loadMore` is
        passed to a child wrapped in `React.memo`, or used in another hook's dependency
        array. If `ProjectList` just calls it from an `onClick`, a plain function would work
        too; the `useCallback` is cheap insurance.
        """
    )
    c.user("ok thanks")
    return b.save(c)


def _webapp_favicon(b: _Builder) -> str:
    """A user message with an image (a real 16×16 PNG)."""
    files = {
        "index.html": """
            <!doctype html>
            <html lang="en">
              <head>
                <meta charset="UTF-8" />
                <link rel="icon" type="image/png" href="/favicon.png" />
                <meta name="viewport" content="width=device-width, initial-scale=1.0" />
                <title>Orbit</title>
              </head>
              <body>
                <div id="root"></div>
                <script type="module" src="/src/client/main.tsx"></script>
              </body>
            </html>
        """,
        "public/favicon.png": "(binary, 16×16)",
    }
    c = b.start(WEBAPP, ago=13 * DAY + 4 * HOUR, files=files)
    ws = c.ws
    c.user(
        [
            {
                "type": "text",
                "text": "The favicon looks blurry in the browser tab on my laptop (retina). "
                "This is the file we ship, public/favicon.png:",
            },
            {"type": "image", "data": FAVICON_PNG_BASE64, "mimeType": "image/png"},
        ]
    )
    c.run(ws.read("index.html"), text="I can see the icon, a 16×16 PNG. How is it linked?")
    c.say(
        """
        That's why: the browser gets only a **16×16 PNG**. On a 2× display the tab shows the
        icon at 32×32 device pixels, so the 16×16 bitmap is upscaled and looks soft; the thin
        ring in your icon suffers most.

        The usual fix:

        1. An **SVG favicon** (sharp at any size; all current browsers support it).
        2. A **32×32 PNG** fallback for older browsers.
        3. An `apple-touch-icon` (180×180) for iOS home screens.

        Do you have the logo as SVG? Then I'll wire all three up.
        """
    )
    c.user("Yes, it's in the design repo. I'll drop it in public/ as logo.svg.")
    c.pause(6)
    c.user("Done, it's there.")
    ws.files["public/logo.svg"] = (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" '
        'height="32" rx="6" fill="#0f172a"/><circle cx="16" cy="16" r="7" fill="#fbbf24"/>'
        '<ellipse cx="16" cy="17" rx="13" ry="4.5" fill="none" stroke="#e2e8f0" '
        'stroke-width="1.5"/></svg>\n'
    )
    c.run(ws.ls("public"))
    c.run(
        bash(
            "cp public/logo.svg public/favicon.svg && npx sharp-cli -i public/logo.svg -o "
            "public/favicon-32.png resize 32 32 && npx sharp-cli -i public/logo.svg -o "
            "public/apple-touch-icon.png resize 180 180 && file public/*.png",
            """
            public/apple-touch-icon.png: PNG image data, 180 x 180, 8-bit/color RGBA, non-interlaced
            public/favicon-32.png:       PNG image data, 32 x 32, 8-bit/color RGBA, non-interlaced
            public/favicon.png:          PNG image data, 16 x 16, 8-bit/color RGBA, non-interlaced
            """,
        )
    )
    c.run(
        ws.edit(
            "index.html",
            """
                <link rel="icon" type="image/png" href="/favicon.png" />
            """,
            """
                <link rel="icon" type="image/svg+xml" href="/favicon.svg" />
                <link rel="icon" type="image/png" sizes="32x32" href="/favicon-32.png" />
                <link rel="apple-touch-icon" href="/apple-touch-icon.png" />
            """,
        )
    )
    c.run(
        bash(
            "git rm -q public/favicon.png && git status --short",
            _text(
                """
        M  index.html
        A  public/apple-touch-icon.png
        A  public/favicon-32.png
        A  public/favicon.svg
        D  public/favicon.png
        A  public/logo.svg
        """
            ),
        )
    )
    c.say(
        """
        Done. `index.html` now offers the SVG first, then a 32×32 PNG, plus a 180×180
        `apple-touch-icon`; the old 16×16 PNG is gone. Browsers cache favicons aggressively:
        to see the change, open `/favicon.svg` once or use a private window.
        """
    )
    return b.save(c)


def _webapp_rate_limit(b: _Builder) -> str:
    """An assistant turn that ended in a provider error, then a retry."""
    files = {
        "src/server/routes/auth.ts": """
            import { Router } from "express";
            import { verifyPassword } from "../passwords.js";
            import { db } from "../db.js";

            export const auth = Router();

            auth.post("/login", async (req, res) => {
              const { email, password } = req.body ?? {};
              const user = await db.user.findUnique({ where: { email } });
              if (!user || !(await verifyPassword(user.passwordHash, password))) {
                return res.status(401).json({ error: "invalid email or password" });
              }
              req.session.userId = user.id;
              res.json({ id: user.id, name: user.name });
            });
        """,
        "package.json": _webapp_files()["package.json"],
    }
    c = b.start(WEBAPP, ago=20 * DAY + 2 * HOUR, files=files)
    ws = c.ws
    c.user(
        "Security review flagged that POST /api/auth/login has no rate limiting. Add something "
        "sensible: per IP and per email, 429 with Retry-After."
    )
    c.reply(
        stop="error",
        error='529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
    )
    c.user("continue")
    c.run(ws.read("src/server/routes/auth.ts"), ws.grep("rate", "package.json"))
    c.say(
        """
        No rate limiting library yet. Options:

        - `express-rate-limit` — the standard; in-memory by default, Redis store available.
        - A hand-written limiter — not worth it for login.

        We run two API instances behind the load balancer, so an in-memory store would let an
        attacker get 2× the budget. Is there a Redis we can use? `REDIS_URL` isn't referenced
        anywhere in the code.
        """
    )
    c.user("There's a Redis in prod for sessions, REDIS_URL is set there. Locally use memory.")
    c.run(
        bash(
            "npm install express-rate-limit rate-limit-redis redis",
            """
            added 6 packages, and audited 412 packages in 3s

            found 0 vulnerabilities
            """,
        )
    )
    c.run(
        ws.write(
            "src/server/limits.ts",
            """
            import rateLimit, { type Options } from "express-rate-limit";
            import { RedisStore } from "rate-limit-redis";
            import { createClient } from "redis";

            const url = process.env.REDIS_URL;
            const redis = url ? createClient({ url }) : null;
            await redis?.connect();

            function store(prefix: string): Partial<Options> {
              if (!redis) return {}; // memory store: fine for one local instance
              const sendCommand = (...args: string[]) => redis.sendCommand(args);
              return { store: new RedisStore({ prefix, sendCommand }) };
            }

            /** 20 attempts per IP per 15 minutes. */
            export const loginPerIp = rateLimit({
              windowMs: 15 * 60_000,
              limit: 20,
              standardHeaders: "draft-7",
              legacyHeaders: false,
              ...store("rl:login:ip:"),
            });

            /** 5 failed attempts per email per 15 minutes (successful logins don't count). */
            export const loginPerEmail = rateLimit({
              windowMs: 15 * 60_000,
              limit: 5,
              skipSuccessfulRequests: true,
              keyGenerator: (req) => String(req.body?.email ?? "").trim().toLowerCase(),
              standardHeaders: "draft-7",
              legacyHeaders: false,
              ...store("rl:login:email:"),
            });
            """,
        )
    )
    c.run(
        ws.edit(
            "src/server/routes/auth.ts",
            """
            auth.post("/login", async (req, res) => {
            """,
            """
            auth.post("/login", loginPerIp, loginPerEmail, async (req, res) => {
            """,
        ),
        ws.edit(
            "src/server/routes/auth.ts",
            """
            import { db } from "../db.js";
            """,
            """
            import { db } from "../db.js";
            import { loginPerEmail, loginPerIp } from "../limits.js";
            """,
        ),
    )
    c.run(
        bash(
            "for i in $(seq 1 7); do curl -s -o /dev/null -w '%{http_code} ' -X POST "
            "localhost:3000/api/auth/login -H 'content-type: application/json' -d "
            '\'{"email":"dana@example.com","password":"wrong"}\'; done; echo',
            "401 401 401 401 401 429 429",
        )
    )
    c.say(
        """
        Login is rate limited now (`src/server/limits.ts`):

        - **Per IP:** 20 attempts / 15 min.
        - **Per email:** 5 *failed* attempts / 15 min (`skipSuccessfulRequests`), keyed on
          the trimmed, lower-cased email — so an attacker can't spray one account from many
          IPs.
        - Redis store when `REDIS_URL` is set (shared by both API instances), memory
          otherwise. Both answer `429` with `RateLimit` and `Retry-After` headers.

        The curl loop shows the 6th wrong password for the same email getting a 429.
        """
    )
    return b.save(c)


def _webapp_openapi(b: _Builder) -> str:
    """An answer cut off at the output limit (stop reason ``length``)."""
    c = b.start(WEBAPP, ago=33 * DAY + 5 * HOUR, files=_webapp_files())
    ws = c.ws
    c.user("Write an OpenAPI 3.1 spec for the projects and tasks endpoints. Just show it here.")
    c.run(ws.read("src/server/routes/projects.ts"), ws.read("src/server/routes/tasks.ts"))
    c.say(
        """
        ```yaml
        openapi: 3.1.0
        info:
          title: Orbit API
          version: 0.9.3
        servers:
          - url: /api
        components:
          securitySchemes:
            session:
              type: apiKey
              in: cookie
              name: orbit.sid
          schemas:
            Owner:
              type: object
              required: [id, name]
              properties:
                id: { type: string }
                name: { type: string }
            Project:
              type: object
              required: [id, name, owner, updatedAt]
              properties:
                id: { type: string }
                name: { type: string, maxLength: 80 }
                description: { type: [string, "null"], maxLength: 500 }
                owner: { $ref: "#/components/schemas/Owner" }
                updatedAt: { type: string, format: date-time }
            Task:
              type: object
              required: [id, projectId, title, done]
              properties:
                id: { type: string }
                projectId: { type: string }
                title: { type: string }
                done: { type: boolean }
        security:
          - session: []
        paths:
          /projects:
            get:
              summary: The team's projects, most recently updated first
              responses:
                "200":
                  description: OK
                  content:
                    application/json:
                      schema:
                        type: object
                        properties:
                          projects:
                            type: array
                            items: { $ref: "#/components/schemas/Project" }
                "401": { description: Not signed in }
            post:
              summary: Create a project
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      type: object
                      required: [name]
                      properties:
                        name: { type: string, minLength: 1, maxLength:
        """,
        stop="length",
    )
    c.user("You got cut off. Write it to openapi.yaml with the write tool instead.")
    c.run(
        ws.write(
            "openapi.yaml",
            """
            openapi: 3.1.0
            info:
              title: Orbit API
              version: 0.9.3
            servers:
              - url: /api
            security:
              - session: []
            components:
              securitySchemes:
                session: { type: apiKey, in: cookie, name: orbit.sid }
              schemas:
                Owner:
                  type: object
                  required: [id, name]
                  properties: { id: { type: string }, name: { type: string } }
                Project:
                  type: object
                  required: [id, name, owner, updatedAt]
                  properties:
                    id: { type: string }
                    name: { type: string, maxLength: 80 }
                    description: { type: [string, "null"], maxLength: 500 }
                    owner: { $ref: "#/components/schemas/Owner" }
                    updatedAt: { type: string, format: date-time }
                NewProject:
                  type: object
                  required: [name]
                  properties:
                    name: { type: string, minLength: 1, maxLength: 80 }
                    description: { type: string, maxLength: 500 }
                Task:
                  type: object
                  required: [id, projectId, title, done]
                  properties:
                    id: { type: string }
                    projectId: { type: string }
                    title: { type: string }
                    done: { type: boolean }
            paths:
              /projects:
                get:
                  summary: The team's projects, most recently updated first
                  responses:
                    "200":
                      description: OK
                      content:
                        application/json:
                          schema:
                            type: object
                            properties:
                              projects:
                                type: array
                                items: { $ref: "#/components/schemas/Project" }
                    "401": { description: Not signed in }
                post:
                  summary: Create a project
                  requestBody:
                    required: true
                    content:
                      application/json:
                        schema: { $ref: "#/components/schemas/NewProject" }
                  responses:
                    "201":
                      description: Created
                      content:
                        application/json:
                          schema: { $ref: "#/components/schemas/Project" }
                    "400": { description: Invalid body }
                    "401": { description: Not signed in }
              /tasks/{projectId}:
                get:
                  summary: The tasks of a project
                  parameters:
                    - { name: projectId, in: path, required: true, schema: { type: string } }
                  responses:
                    "200":
                      description: OK
                      content:
                        application/json:
                          schema:
                            type: object
                            properties:
                              tasks: { type: array, items: { $ref: "#/components/schemas/Task" } }
                    "401": { description: Not signed in }
            """,
        )
    )
    c.run(
        bash(
            "npx @redocly/cli lint openapi.yaml",
            """
            validating openapi.yaml...
            openapi.yaml: validated in 38ms

            Woohoo! Your API description is valid. 🎉
            You have 2 warnings.
            """,
        )
    )
    c.say(
        "Written to `openapi.yaml` (compact flow style, so it fits) and it validates with "
        "Redocly. The two warnings are the missing `operationId`s; want me to add them?"
    )
    c.user("no, fine for now")
    return b.save(c)


def _webapp_review_reminders(b: _Builder) -> str:
    """``custom_message`` entries: one hidden (context only), one shown in the chat."""
    c = b.start(WEBAPP, ago=41 * DAY + 7 * HOUR, files=_webapp_files())
    ws = c.ws
    c.note(
        "git-context",
        "Current branch: feat/task-comments (3 commits ahead of main, 0 behind).\n"
        "Uncommitted changes: src/server/routes/tasks.ts (modified)",
        display=False,
        details={"branch": "feat/task-comments", "ahead": 3, "behind": 0, "dirty": 1},
    )
    c.user("Where did I leave off? I was adding comments to tasks.")
    ws.files["src/server/routes/tasks.ts"] = (
        _text(
            """
        import { Router } from "express";
        import { db } from "../db.js";
        import { requireUser } from "../auth.js";

        export const tasks = Router();

        tasks.get("/:projectId", requireUser, async (req, res) => {
          const rows = await db.task.findMany({ where: { projectId: req.params.projectId } });
          res.json({ tasks: rows });
        });

        tasks.get("/:taskId/comments", requireUser, async (req, res) => {
          const comments = await db.taskComment.findMany({
            where: { taskId: req.params.taskId },
            orderBy: { createdAt: "asc" },
          });
          res.json({ comments });
        });

        tasks.post("/:taskId/comments", requireUser, async (req, res) => {
          const body = String(req.body?.body ?? "").trim();
          if (!body) return res.status(400).json({ error: "empty comment" });
          const comment = await db.taskComment.create({
            data: { taskId: req.params.taskId, authorId: req.user.id, body },
          });
          // TODO: notify watchers
          res.status(201).json(comment);
        });
        """
        )
        + "\n"
    )  # the working tree: the last commit plus the uncommitted POST route
    c.run(
        bash(
            "git diff --stat && git log --oneline main..HEAD",
            _text(
                """
         src/server/routes/tasks.ts | 18 ++++++++++++++++++
         1 file changed, 18 insertions(+)
        a41c9e2 db: TaskComment model
        77d0b13 api: GET /api/tasks/:id/comments
        0c8b6f5 client: comment thread component
        """
            ),
        )
    )
    c.run(
        bash(
            "git diff src/server/routes/tasks.ts",
            _text(
                """
        @@ -10,3 +10,21 @@ tasks.get("/:projectId", requireUser, async (req, res) => {
         });
        +
        +tasks.post("/:taskId/comments", requireUser, async (req, res) => {
        +  const body = String(req.body?.body ?? "").trim();
        +  if (!body) return res.status(400).json({ error: "empty comment" });
        +  const comment = await db.taskComment.create({
        +    data: { taskId: req.params.taskId, authorId: req.user.id, body },
        +  });
        +  // TODO: notify watchers
        +  res.status(201).json(comment);
        +});
        """
            ),
        )
    )
    c.say(
        """
        You're on `feat/task-comments`, 3 commits ahead of `main`:

        1. `a41c9e2` the `TaskComment` model,
        2. `77d0b13` `GET /api/tasks/:id/comments`,
        3. `0c8b6f5` the client comment thread.

        Uncommitted: `POST /api/tasks/:taskId/comments` in `tasks.ts` — it validates and
        stores the comment, with a `TODO: notify watchers`. Nothing checks yet that the task
        belongs to the user's team.
        """
    )
    c.note(
        "review-reminder",
        "⏰ PR #139 'Task comments (read side)' has 2 unresolved review threads from @maria.",
        display=True,
        details={"pr": 139, "unresolved": 2, "reviewers": ["maria"]},
    )
    c.user("Ugh, right, Maria's review. What did she say?")
    c.run(
        bash(
            "gh pr view 139 --comments | tail -n 12",
            _text(
                """
        maria commented on src/server/routes/tasks.ts:14
          This returns comments for any task id, even one of another team. Please check
          task.project.teamId === req.user.teamId.

        maria commented on src/client/components/CommentThread.tsx:31
          dangerouslySetInnerHTML on user input?! Please render the text, not HTML.
        """
            ),
        )
    )
    c.say(
        """
        Two threads, both serious:

        1. **`GET /api/tasks/:id/comments` leaks across teams** — it never checks that the
           task belongs to the caller's team. (Your uncommitted POST has the same gap.)
        2. **`CommentThread.tsx` renders comments with `dangerouslySetInnerHTML`** — stored
           XSS.

        I'd fix both on this branch before anything else. Shall I?
        """
    )
    c.user("Yes, both.")
    c.run(
        ws.edit(
            "src/server/routes/tasks.ts",
            """
            export const tasks = Router();
            """,
            """
            export const tasks = Router();

            /** The task if it belongs to the caller's team, else null (callers answer 404). */
            async function teamTask(taskId: string, teamId: string) {
              const task = await db.task.findUnique({
                where: { id: taskId },
                select: { id: true, project: { select: { teamId: true } } },
              });
              return task?.project.teamId === teamId ? task : null;
            }
            """,
        ),
        ws.edit(
            "src/server/routes/tasks.ts",
            """
              const comments = await db.taskComment.findMany({
            """,
            """
              if (!(await teamTask(req.params.taskId, req.user.teamId))) return res.sendStatus(404);
              const comments = await db.taskComment.findMany({
            """,
        ),
        ws.edit(
            "src/server/routes/tasks.ts",
            """
              const body = String(req.body?.body ?? "").trim();
            """,
            """
              if (!(await teamTask(req.params.taskId, req.user.teamId))) return res.sendStatus(404);
              const body = String(req.body?.body ?? "").trim();
            """,
        ),
    )
    c.run(
        bash(
            "npx vitest run test/server/tasks.test.ts 2>&1 | tail -n 3",
            _text(
                """
         Test Files  1 passed (1)
              Tests  7 passed (7)
        """
            ),
        )
    )
    c.say(
        "Added `teamTask()`; both comment routes now answer 404 for a task of another team "
        "(404 rather than 403, so task ids of other teams can't be probed). For the client "
        "side I'd replace `dangerouslySetInnerHTML` by `{comment.body}` with "
        "`white-space: pre-wrap` — I don't have `CommentThread.tsx` open here; shall I read it?"
    )
    c.user("Later. Commit what you have.")
    c.run(
        bash(
            'git commit -qam "api: comments only for tasks of the caller\'s team" && git log '
            "--oneline -1",
            "5be02f7 (HEAD -> feat/task-comments) api: comments only for tasks of the "
            "caller's team",
        )
    )
    c.say("Committed as `5be02f7`.")
    return b.save(c)


def _webapp_dockerfile(b: _Builder) -> str:
    """The source of a cross-project fork (infra continues it)."""
    c = b.start(WEBAPP, ago=30 * DAY + 6 * HOUR, files=_webapp_files())
    ws = c.ws
    c.user("Write a production Dockerfile for the API. Small image, non-root, npm ci.")
    c.run(ws.read("package.json"), ws.ls("."))
    c.run(
        ws.write(
            "Dockerfile",
            """
            # syntax=docker/dockerfile:1.7
            FROM node:22-bookworm-slim AS deps
            WORKDIR /app
            COPY package.json package-lock.json ./
            RUN --mount=type=cache,target=/root/.npm npm ci

            FROM deps AS build
            COPY . .
            RUN npx prisma generate && npm run build && npm prune --omit=dev

            FROM gcr.io/distroless/nodejs22-debian12:nonroot
            WORKDIR /app
            ENV NODE_ENV=production
            COPY --from=build /app/node_modules ./node_modules
            COPY --from=build /app/dist ./dist
            COPY --from=build /app/prisma ./prisma
            EXPOSE 3000
            CMD ["dist/server/index.js"]
            """,
        ),
        ws.write(
            ".dockerignore",
            """
            node_modules
            dist
            .git
            .env*
            test
            playwright-report
            """,
        ),
    )
    c.run(
        bash(
            "docker build -t orbit-api . 2>&1 | tail -n 3 && docker image ls orbit-api",
            """
             => exporting to image                                                     0.4s
             => => writing image sha256:3f1c0e1a92b8…                                   0.0s
             => => naming to docker.io/library/orbit-api                                0.0s
            REPOSITORY   TAG       IMAGE ID       CREATED         SIZE
            orbit-api    latest    3f1c0e1a92b8   2 seconds ago   187MB
            """,
            timeout=900,
        )
    )
    c.say(
        """
        `Dockerfile` (multi-stage) and `.dockerignore` are in place; the image is **187 MB**.

        - `deps` stage: `npm ci` with a BuildKit cache mount, so rebuilds don't re-download.
        - `build` stage: `prisma generate`, `npm run build`, then `npm prune --omit=dev`.
        - Runtime: `distroless/nodejs22:nonroot` — no shell, no package manager, runs as
          uid 65532.

        Migrations are not run by the image; that should be a separate step in the deploy.
        """
    )
    return b.save(c)


def _webapp_websocket_leak(b: _Builder) -> str:
    """Model and thinking-level changes in the middle of a debugging session."""
    files = {
        "src/server/live.ts": """
            import type { Server } from "node:http";
            import { WebSocketServer, type WebSocket } from "ws";
            import { bus } from "./bus.js";

            export function attachLive(server: Server) {
              const wss = new WebSocketServer({ server, path: "/live" });
              wss.on("connection", (socket: WebSocket, req) => {
                const teamId = teamOf(req);
                const onChange = (event: { teamId: string }) => {
                  if (event.teamId === teamId) socket.send(JSON.stringify(event));
                };
                bus.on("project:changed", onChange);
                socket.on("message", (data) => handleClientMessage(socket, data));
              });
            }
        """,
    }
    c = b.start(WEBAPP, ago=62 * DAY + 3 * HOUR, files=files)
    ws = c.ws
    c.user(
        "The API's memory grows ~40 MB/hour in prod until the container gets OOM-killed "
        "(every ~2 days). Heap snapshots show thousands of closures named onChange. Help?"
    )
    c.run(ws.grep("onChange", "src/server"))
    c.run(ws.read("src/server/live.ts"))
    c.switch_model(GPT5)
    c.thinking_level("high")
    c.say(
        """
        Found it: `onChange` is added to `bus` on every connection and **never removed**.

        ```ts
        bus.on("project:changed", onChange);   // per connection
        // no bus.off(...) when the socket closes
        ```

        Each closed connection leaves its listener on the bus, which keeps the closure — and
        through it the `socket` (with its buffers) — reachable forever. Browsers reconnect on
        every deploy, network change and laptop wake-up, so listeners pile up: a few thousand
        per day matches ~40 MB/hour. Node would normally print
        `MaxListenersExceededWarning`; I'd guess `bus.setMaxListeners(0)` somewhere silenced it.

        Fix: remove the listener on `close` (and on `error`, which is followed by `close` in
        `ws`, so `close` alone suffices).
        """,
        thinking="""
        EventEmitter listeners registered per connection without removal: classic leak. The
        closure captures socket and teamId; socket holds internal buffers and the req. The
        heap snapshot's "thousands of onChange closures" confirms it. Check for
        setMaxListeners to explain why no warning appeared.
        """,
    )
    c.user("Yes, setMaxListeners(0) is in bus.ts, someone added it to silence the warning 🙈")
    c.switch_model(SONNET)
    c.thinking_level("low")
    c.run(
        ws.edit(
            "src/server/live.ts",
            """
                bus.on("project:changed", onChange);
                socket.on("message", (data) => handleClientMessage(socket, data));
            """,
            """
                bus.on("project:changed", onChange);
                socket.on("close", () => bus.off("project:changed", onChange));
                socket.on("message", (data) => handleClientMessage(socket, data));
            """,
        )
    )
    c.run(
        bash(
            "node --expose-gc scripts/ws-soak.mjs --connections 5000 --churn",
            """
            connected/closed 5000 sockets in 3 rounds
            bus listeners after churn: 0
            heapUsed: 61.2 MB → 62.0 MB (after gc)
            """,
        )
    )
    c.say(
        """
        Fixed: the listener is removed when the socket closes. The soak script (5,000
        connections opened and closed, three rounds) now ends with 0 listeners on the bus and a
        flat heap (61.2 → 62.0 MB after GC).

        I'd also remove `setMaxListeners(0)` from `bus.ts` — or set it to a real bound like the
        max expected concurrent connections — so a future leak warns again.
        """
    )
    c.user("Do it, set it to 10000.")
    c.run(
        bash(
            "sed -i 's/setMaxListeners(0)/setMaxListeners(10_000)/' src/server/bus.ts && git diff "
            "--stat",
            " src/server/bus.ts  | 2 +-\n src/server/live.ts | 1 +\n"
            " 2 files changed, 2 insertions(+), 1 deletion(-)",
        )
    )
    c.say("Done: `bus.setMaxListeners(10_000)`, so a leak shows up as a warning again.")
    c.name("websocket listener leak")
    return b.save(c)


def _cli_files() -> dict[str, str]:
    return {
        "pyproject.toml": """
            [project]
            name = "logslice"
            version = "0.3.2"
            description = "Cut time ranges out of log files"
            requires-python = ">=3.10"
            dependencies = ["click>=8.1", "rich>=13.7"]

            [project.scripts]
            logslice = "logslice.cli:main"

            [tool.pytest.ini_options]
            addopts = "-q"
        """,
        "src/logslice/__init__.py": """
            __version__ = "0.3.2"
        """,
        "src/logslice/timeparse.py": """
            \"\"\"Timestamps found at the start of log lines.\"\"\"

            from __future__ import annotations

            import re
            from datetime import datetime

            # 2025-03-04 10:15:30 or 2025-03-04T10:15:30, optional fraction
            _TIMESTAMP = re.compile(r"^(\\d{4}-\\d{2}-\\d{2})[ T](\\d{2}:\\d{2}:\\d{2})(\\.\\d+)?")


            def parse_timestamp(line: str) -> datetime | None:
                \"\"\"The timestamp a log line starts with, or None.\"\"\"
                match = _TIMESTAMP.match(line)
                if match is None:
                    return None
                date, time, fraction = match.groups()
                return datetime.fromisoformat(f"{date}T{time}{fraction or ''}")
        """,
        "src/logslice/slicer.py": """
            \"\"\"Select the lines of a log between two moments.\"\"\"

            from __future__ import annotations

            from collections.abc import Iterable, Iterator
            from datetime import datetime

            from logslice.timeparse import parse_timestamp


            def between(
                lines: Iterable[str], since: datetime | None, until: datetime | None
            ) -> Iterator[str]:
                \"\"\"Lines stamped in [since, until); unstamped lines go with the last stamp.\"\"\"
                inside = False
                for line in lines:
                    stamp = parse_timestamp(line)
                    if stamp is not None:
                        inside = (since is None or stamp >= since) and (
                            until is None or stamp < until
                        )
                    if inside:
                        yield line
        """,
        "src/logslice/cli.py": """
            \"\"\"The logslice command.\"\"\"

            from __future__ import annotations

            import sys

            import click
            from rich.console import Console

            from logslice.slicer import between
            from logslice.timeparse import parse_timestamp

            console = Console(highlight=False)


            @click.command()
            @click.argument("path", type=click.File("r"), default="-")
            @click.option("--since", help="Start (ISO time or a duration like 10m).")
            @click.option("--until", help="End (ISO time or a duration like 10m).")
            @click.option("--color/--no-color", default=None, help="Colour levels.")
            def main(path, since, until, color):
                \"\"\"Print the lines of PATH between --since and --until.\"\"\"
                start = parse_timestamp(since) if since else None
                end = parse_timestamp(until) if until else None
                if color is False:
                    console.no_color = True
                for line in between(path, start, end):
                    console.print(colorize(line.rstrip("\\n")))


            def colorize(line: str) -> str:
                for level, style in (("ERROR", "bold red"), ("WARN", "yellow")):
                    line = line.replace(level, f"[{style}]{level}[/{style}]")
                return line


            if __name__ == "__main__":
                sys.exit(main())
        """,
        "tests/test_timeparse.py": """
            from datetime import datetime

            import pytest

            from logslice.timeparse import parse_timestamp


            @pytest.mark.parametrize(
                ("line", "expected"),
                [
                    ("2025-03-04 10:15:30 GET /", datetime(2025, 3, 4, 10, 15, 30)),
                    ("2025-03-04T10:15:30.250 x", datetime(2025, 3, 4, 10, 15, 30, 250000)),
                    ("no stamp here", None),
                ],
            )
            def test_parse_timestamp(line, expected):
                assert parse_timestamp(line) == expected
        """,
        "tests/test_slicer.py": """
            from datetime import datetime

            from logslice.slicer import between

            LOG = [
                "2025-03-04 10:00:00 start\\n",
                "2025-03-04 10:05:00 ERROR boom\\n",
                "  Traceback (most recent call last):\\n",
                "2025-03-04 10:10:00 done\\n",
            ]


            def test_between_keeps_continuation_lines():
                got = list(between(LOG, datetime(2025, 3, 4, 10, 5), datetime(2025, 3, 4, 10, 10)))
                assert got == LOG[1:3]
        """,
    }


_PYTEST_OK = """
    ........................                                                 [100%]
    {n} passed in 0.{ms}s
"""


def _pytest_ok(n: int, ms: int = 42) -> str:
    return _text(_PYTEST_OK.format(n=n, ms=ms))


def _cli_timezones(b: _Builder) -> tuple[str, dict[str, str], dict[str, str]]:
    """The branchy session: edit-and-resubmit, a regenerated answer on another model, a branch
    summary, four leaves, several labels (one set and cleared)."""
    c = b.start(CLI, ago=9 * DAY + 5 * HOUR, files=_cli_files())
    ws = c.ws
    marks: dict[str, str] = {}
    c.user(
        "logslice ignores timezones: a line stamped 2025-03-04T10:15:30+01:00 is compared as if "
        "it were UTC, so `--since` cuts at the wrong place for our Berlin servers. Make "
        "parse_timestamp understand offsets (+01:00, +0100, Z). Stamps without an offset stay "
        "local time."
    )
    c.run(ws.read("src/logslice/timeparse.py"), ws.read("tests/test_timeparse.py"))
    c.run(ws.grep("parse_timestamp", "src"))
    plan = c.say(
        """
        The regex stops right after the seconds/fraction, so `+01:00` is silently dropped and
        every stamp comes out *naive*. Also, `slicer.between()` compares stamps with
        `--since`/`--until`; once some stamps carry an offset, naive and aware datetimes would
        meet there — Python refuses to compare those.

        Plan:

        1. Extend the regex with an optional offset group `(Z|[+-]\\d{2}:?\\d{2})`.
        2. Build an aware datetime when there is an offset; make naive stamps aware in local
           time (`.astimezone()`), so everything compares.
        3. Same for the `--since`/`--until` values.
        4. Tests for `Z`, `+01:00`, `+0100`, `-05:00` and naive stamps.
        """
    )
    at_plan = dict(ws.files)

    # ---------------------------------------------------------------- branch 1: regex
    go = c.user("ok, go")
    c.label(go, "wip")
    c.run(
        ws.edit(
            "src/logslice/timeparse.py",
            """
            # 2025-03-04 10:15:30 or 2025-03-04T10:15:30, optional fraction
            _TIMESTAMP = re.compile(r"^(\\d{4}-\\d{2}-\\d{2})[ T](\\d{2}:\\d{2}:\\d{2})(\\.\\d+)?")
            """,
            """
            # 2025-03-04 10:15:30 or 2025-03-04T10:15:30, optional fraction and UTC offset
            _TIMESTAMP = re.compile(
                r"^(\\d{4}-\\d{2}-\\d{2})[ T](\\d{2}:\\d{2}:\\d{2})(\\.\\d+)?"
                r"(Z|[+-]\\d{2}:?\\d{2})?"
            )
            """,
        ),
        ws.edit(
            "src/logslice/timeparse.py",
            """
                date, time, fraction = match.groups()
                return datetime.fromisoformat(f"{date}T{time}{fraction or ''}")
            """,
            """
                date, time, fraction, offset = match.groups()
                stamp = datetime.fromisoformat(f"{date}T{time}{fraction or ''}")
                if offset is None:
                    return stamp.astimezone()  # naive: the machine's local time
                if offset == "Z":
                    return stamp.replace(tzinfo=timezone.utc)
                sign = 1 if offset[0] == "+" else -1
                hours, minutes = int(offset[1:3]), int(offset[-2:])
                delta = timedelta(hours=hours, minutes=minutes)
                return stamp.replace(tzinfo=timezone(sign * delta))
            """,
        ),
        ws.edit(
            "src/logslice/timeparse.py",
            """
            from datetime import datetime
            """,
            """
            from datetime import datetime, timedelta, timezone
            """,
        ),
    )
    c.run(
        bash(
            "python -m pytest",
            """
            ..F.                                                                     [100%]
            =================================== FAILURES ===================================
            _____________ test_parse_timestamp[2025-03-04 10:15:30 GET /-expected0] ________
                def test_parse_timestamp(line, expected):
            >       assert parse_timestamp(line) == expected
            E       AssertionError: assert datetime.datetime(2025, 3, 4, 10, 15, 30, \\
            tzinfo=datetime.timezone(datetime.timedelta(seconds=3600), 'CET')) == \\
            datetime.datetime(2025, 3, 4, 10, 15, 30)
            1 failed, 3 passed in 0.05s
            """,
            1,
        ),
    )
    c.run(
        ws.write(
            "tests/test_timeparse.py",
            """
            from datetime import datetime, timedelta, timezone

            import pytest

            from logslice.timeparse import parse_timestamp

            UTC = timezone.utc
            BERLIN = timezone(timedelta(hours=1))  # winter time


            @pytest.mark.parametrize(
                ("line", "expected"),
                [
                    ("2025-03-04T10:15:30Z x", datetime(2025, 3, 4, 10, 15, 30, tzinfo=UTC)),
                    ("2025-03-04T10:15:30+01:00 x", datetime(2025, 3, 4, 9, 15, 30, tzinfo=UTC)),
                    ("2025-03-04 10:15:30+0100", datetime(2025, 3, 4, 10, 15, 30, tzinfo=BERLIN)),
                    ("2025-03-04T10:15:30.25-05:00", datetime(2025, 3, 4, 15, 15, 30, 250000, UTC)),
                    ("no stamp here", None),
                ],
            )
            def test_parse_timestamp(line, expected):
                assert parse_timestamp(line) == expected


            def test_naive_stamps_are_local_time():
                stamp = parse_timestamp("2025-03-04 10:15:30 GET /")
                assert stamp.tzinfo is not None
                assert stamp.replace(tzinfo=None) == datetime(2025, 3, 4, 10, 15, 30)
            """,
        ),
        text="The old test expects naive datetimes, which is exactly what changed. Updating it:",
    )
    c.run(bash("python -m pytest", _pytest_ok(7, 48)))
    regex_done = c.say(
        """
        Done, 7 tests pass:

        - The regex takes an optional `Z` / `±HH:MM` / `±HHMM` offset.
        - Stamps with an offset become aware datetimes; naive ones are interpreted in the
          machine's local time, so all stamps compare with each other and with
          `--since`/`--until`.
        - Tests cover `Z`, `+01:00`, `+0100`, `-05:00` with a fraction, naive stamps, and
          lines without a stamp.
        """
    )
    c.label(regex_done, "working regex")
    marks["regex"] = regex_done

    # ---------------------------------------------------------------- branch 2: edit-and-resubmit
    c.sm.branch(plan)
    ws.files = dict(at_plan)
    c.user(
        "Before you write a regex: we're on Python 3.11 now. Can't datetime.fromisoformat do "
        "all of this by itself?"
    )
    c.run(
        bash(
            'python3.11 -c "from datetime import datetime as d; '
            "print(d.fromisoformat('2025-03-04T10:15:30Z')); "
            "print(d.fromisoformat('2025-03-04 10:15:30+0100'))\"",
            """
            2025-03-04 10:15:30+00:00
            2025-03-04 10:15:30+01:00
            """,
        ),
        text="Let me check what 3.11's `fromisoformat` accepts.",
    )
    c.run(
        ws.edit(
            "src/logslice/timeparse.py",
            """
            # 2025-03-04 10:15:30 or 2025-03-04T10:15:30, optional fraction
            _TIMESTAMP = re.compile(r"^(\\d{4}-\\d{2}-\\d{2})[ T](\\d{2}:\\d{2}:\\d{2})(\\.\\d+)?")
            """,
            """
            # the first word (or two, "date time") of the line; fromisoformat decides the rest
            _TIMESTAMP = re.compile(r"^\\d{4}-\\d{2}-\\d{2}[ T]\\S+")
            """,
        ),
        ws.edit(
            "src/logslice/timeparse.py",
            """
                date, time, fraction = match.groups()
                return datetime.fromisoformat(f"{date}T{time}{fraction or ''}")
            """,
            """
                try:
                    stamp = datetime.fromisoformat(match.group())
                except ValueError:
                    return None
                return stamp if stamp.tzinfo else stamp.astimezone()
            """,
        ),
    )
    c.run(bash("python -m pytest", _pytest_ok(7, 39)))
    iso_done = c.say(
        """
        Yes — since 3.11, `datetime.fromisoformat` accepts `Z`, `±HH:MM` and `±HHMM`, a space
        instead of `T`, and fractions. So the regex only finds the stamp, and `fromisoformat`
        parses it. Naive stamps become local time as before. Tests pass. (This needs
        `requires-python >= 3.11`; `pyproject.toml` still says 3.10.)
        """
    )
    c.label(iso_done, "fromisoformat")
    marks["iso"] = iso_done
    iso_files = dict(ws.files)

    # ---------------------------------------------------------------- branch 3: regenerated
    c.sm.branch(plan)
    ws.files = dict(at_plan)
    c.switch_model(OPUS)
    c.thinking_level("high")
    c.user(
        "Before you write a regex: we're on Python 3.11 now. Can't datetime.fromisoformat do "
        "all of this by itself?"
    )
    c.run(ws.grep("requires-python", "pyproject.toml"), ws.grep("python-version", "."))
    c.say(
        """
        On 3.11+, yes: `fromisoformat` accepts `Z`, `+01:00`, `+0100`, a space instead of
        `T`, and comma fractions like logging's `10:15:30,123`.

        But the package still declares `requires-python = ">=3.10"`, and on 3.10
        `fromisoformat` only reads what `isoformat()` writes:

        ```python
        >>> datetime.fromisoformat("2025-03-04T10:15:30Z")        # Python 3.10
        ValueError: Invalid isoformat string: '2025-03-04T10:15:30Z'
        ```

        Same for `+0100` and `,123`. So either we drop 3.10 (then `fromisoformat` does it
        all), or we keep a small regex that splits date, time, fraction and offset, and let
        `fromisoformat` parse only the parts 3.10 understands. Which do you prefer?
        """,
        thinking="""
        Python 3.11 changed fromisoformat to accept most ISO 8601 strings: Z, basic offsets,
        comma decimal separator. 3.10 accepts only the output of isoformat(). pyproject says
        >=3.10, so relying on 3.11 semantics would break 3.10 users silently (ValueError on
        every Z-stamped line). Check requires-python and the CI matrix before answering.
        """,
    )

    # ---------------------------------------------------------------- back, with a summary
    c.pause(4)
    c.sm.branch_with_summary(
        plan,
        _prose(
            """
            ## Goal
            Make parse_timestamp understand UTC offsets.

            ## Progress
            ### Done
            - [x] Regex with an offset group: works, 7 tests pass (branch "working regex")
            - [x] fromisoformat alone: does everything on 3.11+, but 3.10 (still supported)
              rejects Z, +0100 and comma fractions

            ## Key Decisions
            - **Keep 3.10 for now**: regex for the parts, fromisoformat for what 3.10 reads

            <read-files>
            src/logslice/timeparse.py
            tests/test_timeparse.py
            </read-files>
            """
        ),
        {
            "readFiles": ["src/logslice/timeparse.py", "tests/test_timeparse.py"],
            "modifiedFiles": [],
        },
        False,
    )
    ws.files = dict(at_plan)
    c.switch_model(SONNET)
    c.thinking_level("medium")
    c.user(
        "OK, decision: small regex to find the stamp, comma → dot, then fromisoformat. Keep "
        "3.10 support though: fall back to the offset parsing from the first attempt there."
    )
    c.run(
        ws.write(
            "src/logslice/timeparse.py",
            """
            \"\"\"Timestamps found at the start of log lines.\"\"\"

            from __future__ import annotations

            import re
            import sys
            from datetime import datetime, timedelta, timezone

            # date, time, fraction (dot or comma: logging and log4j write "10:15:30,123"), offset
            _TIMESTAMP = re.compile(
                r"^(\\d{4}-\\d{2}-\\d{2})[ T](\\d{2}:\\d{2}:\\d{2})(?:[.,](\\d+))?"
                r"(Z|[+-]\\d{2}:?\\d{2})?"
            )


            def parse_timestamp(line: str) -> datetime | None:
                \"\"\"The timestamp a log line starts with; naive stamps are local time.\"\"\"
                match = _TIMESTAMP.match(line)
                if match is None:
                    return None
                date, time, fraction, offset = match.groups()
                text = f"{date}T{time}" + (f".{fraction[:6]:0<6}" if fraction else "")
                stamp = datetime.fromisoformat(text)
                if offset is None:
                    return stamp.astimezone()
                return stamp.replace(tzinfo=_offset(offset))


            def _offset(text: str) -> timezone:
                if text == "Z":
                    return timezone.utc
                if sys.version_info >= (3, 11):
                    zone = datetime.fromisoformat(f"2000-01-01T00:00:00{text}").tzinfo
                    assert isinstance(zone, timezone)
                    return zone
                sign = 1 if text[0] == "+" else -1
                return timezone(sign * timedelta(hours=int(text[1:3]), minutes=int(text[-2:])))
            """,
        )
    )
    c.run(
        ws.edit(
            "tests/test_timeparse.py",
            """
                    ("2025-03-04T10:15:30.250 x", datetime(2025, 3, 4, 10, 15, 30, 250000)),
            """,
            """
                    ("2025-03-04T10:15:30.250 x", datetime(2025, 3, 4, 10, 15, 30, 250000)),
                    ("2025-03-04 10:15:30,123 INFO", datetime(2025, 3, 4, 10, 15, 30, 123000)),
            """,
        ),
        text="And a test for the comma format (naive, so compared in local time by the test):",
    )
    c.run(
        bash(
            "python -m pytest && uvx --python 3.10 --with-editable . pytest -q",
            _pytest_ok(9, 51) + "\n" + _pytest_ok(9, 63),
        )
    )
    final = c.say(
        """
        Final version, 9 tests on both 3.10 and 3.12:

        - One regex finds date, time, fraction (`.` or `,`) and offset.
        - The fraction is padded/cut to microseconds, so `,123` and `.250` both work.
        - Offsets use `fromisoformat` on 3.11+ and the manual parse on 3.10.
        - Naive stamps are local time, aware ones keep their offset: all comparable.
        """
    )
    c.label(final, "final")
    c.label(go, None)  # "wip" is done
    c.name("timezone parsing (3 attempts)")
    return b.save(c), marks, iso_files


def _cli_timezones_py311(b: _Builder, source: str, leaf: str, files: dict[str, str]) -> str:
    """A /fork of the fromisoformat branch (``files``: the workspace there), for the
    3.11-only 2.0 line."""
    c = b.branch(source, leaf, ago=8 * DAY + 2 * HOUR, model=SONNET, files=files)
    ws = c.ws
    c.name("timezone parsing: 3.11-only variant")
    c.user(
        "I'm keeping this fromisoformat version for the 2.0 branch, where we drop 3.10. Bump "
        "requires-python, and note in the README that an offset after a space isn't "
        "recognised."
    )
    c.run(
        ws.edit(
            "pyproject.toml",
            """
            requires-python = ">=3.10"
            """,
            """
            requires-python = ">=3.11"
            """,
        ),
        ws.write(
            "README.md",
            """
            # logslice

            Cut time ranges out of log files: `logslice app.log --since 10m`.

            ## Known limitations

            - A UTC offset after a space (`2025-03-04 10:15:30 +0100`) is not part of the
              stamp: such lines are read as local time.
            """,
        ),
    )
    c.run(bash("python -m pytest", _pytest_ok(7, 37)))
    c.say('`requires-python = ">=3.11"`, and the README lists the limitation.')
    return b.save(c)


def _cli_markup(b: _Builder) -> str:
    """Text that looks like Rich markup and an ANSI escape, in a message and in tool output:
    pitui must show both literally."""
    c = b.start(CLI, ago=3 * HOUR + 10 * MINUTE, files=_cli_files())
    ws = c.ws
    c.user(
        "Two weird bugs with --color. (1) This line from our nginx log:\n\n"
        "    2025-03-04 10:15:31 [warn] [/api/projects] upstream slow\n\n"
        "crashes logslice with `rich.errors.MarkupError: closing tag '[/api/projects]' at "
        "position 31 doesn't match any open tag`. (2) A line that literally contains "
        "[bold red]DROP TABLE[/bold red] comes out bold red, and when I pipe a log that "
        "already has colours in it, I see raw codes like \x1b[31mERROR\x1b[0m instead of red."
    )
    c.run(ws.read("src/logslice/cli.py"))
    c.run(
        bash(
            "printf '2025-03-04 10:15:31 [warn] [/api/projects] upstream slow\\n' | "
            "python -m logslice --color",
            """
            Traceback (most recent call last):
              ...
              File ".../rich/markup.py", line 167, in render
                raise MarkupError(
            rich.errors.MarkupError: closing tag '[/api/projects]' at position 31 doesn't \\
            match any open tag
            """,
            1,
        ),
        text="Reproducing the first one:",
    )
    c.say(
        """
        Both bugs have the same root: `console.print()` parses its argument as **Rich
        markup**, and we hand it raw log text.

        1. `[/api/projects]` looks like a closing tag → `MarkupError`.
        2. `[bold red]DROP TABLE[/bold red]` in the log is markup too → it's rendered bold
           red instead of printed as is.
        3. ANSI codes in the input (`\\x1b[31m`) are not markup; Rich escapes control codes
           by default, so you see them as text.

        The fix is to never let log text be markup: build a `rich.text.Text` from the line
        (turning existing ANSI colours into styles with `Text.from_ansi`), then style the
        level words on that object with `highlight_words`.
        """
    )
    c.run(
        ws.edit(
            "src/logslice/cli.py",
            """
                for line in between(path, start, end):
                    console.print(colorize(line.rstrip("\\n")))


            def colorize(line: str) -> str:
                for level, style in (("ERROR", "bold red"), ("WARN", "yellow")):
                    line = line.replace(level, f"[{style}]{level}[/{style}]")
                return line
            """,
            """
                for line in between(path, start, end):
                    console.print(colorize(line.rstrip("\\n")))


            def colorize(line: str) -> Text:
                \"\"\"The line as Rich text: never parsed as markup; ANSI codes become styles.\"\"\"
                text = Text.from_ansi(line)
                text.highlight_words(["ERROR"], "bold red")
                text.highlight_words(["WARN", "[warn]"], "yellow")
                return text
            """,
        ),
        ws.edit(
            "src/logslice/cli.py",
            """
            from rich.console import Console
            """,
            """
            from rich.console import Console
            from rich.text import Text
            """,
        ),
    )
    c.run(
        ws.write(
            "tests/test_color.py",
            """
            from logslice.cli import colorize


            def test_brackets_are_not_markup():
                line = "2025-03-04 10:15:31 [warn] [/api/projects] upstream slow"
                assert colorize(line).plain == line


            def test_markup_in_the_log_is_printed_as_is():
                line = "x [bold red]DROP TABLE[/bold red]"
                assert colorize(line).plain == line


            def test_ansi_colours_become_styles():
                text = colorize("\\x1b[31mERROR\\x1b[0m disk full")
                assert text.plain == "ERROR disk full"
                assert any("red" in str(span.style) for span in text.spans)
            """,
        )
    )
    c.run(
        bash(
            "python -m pytest --color=yes tests/test_color.py",
            "\x1b[32m.\x1b[0m\x1b[32m.\x1b[0m\x1b[32m.\x1b[0m\x1b[32m"
            "                                                                      [100%]"
            "\x1b[0m\n\x1b[32m\x1b[1m3 passed\x1b[0m\x1b[32m in 0.08s\x1b[0m",
        )
    )
    c.run(
        bash(
            "printf '2025-03-04 10:15:31 [warn] [/api/projects] upstream slow\\n"
            "\\033[31mERROR\\033[0m [bold red]DROP TABLE[/bold red]\\n' | python -m logslice "
            "--color | cat -v",
            "2025-03-04 10:15:31 ^[[33m[warn]^[[0m [/api/projects] upstream slow\n"
            "^[[1;31mERROR^[[0m [bold red]DROP TABLE[/bold red]",
        )
    )
    c.say(
        """
        Fixed, all three cases:

        - `[/api/projects]` prints as text, no crash.
        - `[bold red]DROP TABLE[/bold red]` in a log line prints literally.
        - ANSI colours in the input are turned into Rich styles (`Text.from_ansi`), so they
          render as colours — or are dropped with `--no-color` — instead of showing as
          escape codes.

        `colorize()` now returns a `Text` object, so no string from the log is ever parsed
        as markup. Three regression tests in `tests/test_color.py`.
        """
    )
    c.user("Nice. Does the same problem exist anywhere else? e.g. error messages")
    c.run(ws.grep("console\\.print|rprint|\\[/", "src"))
    c.say(
        "Only the one `console.print(colorize(...))` call, which now gets a `Text`. Click "
        "prints errors itself (plain text, no markup), so those were never affected."
    )
    return b.save(c)


def _cli_since_until(b: _Builder) -> str:
    c = b.start(CLI, ago=24 * DAY + 2 * HOUR, files=_cli_files())
    ws = c.ws
    c.user(
        "--since and --until only take absolute times. I want durations too: --since 10m, "
        "--since 2h, --until 30s, relative to now."
    )
    c.run(ws.read("src/logslice/cli.py", 18, 12))
    c.run(
        ws.write(
            "src/logslice/durations.py",
            """
            \"\"\"Relative times: 30s, 10m, 2h, 3d (before now).\"\"\"

            from __future__ import annotations

            import re
            from datetime import datetime, timedelta

            _DURATION = re.compile(r"^(\\d+)([smhd])$")
            _UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days"}


            def parse_moment(text: str, now: datetime) -> datetime | None:
                \"\"\"`now` minus a duration like "10m", or None if `text` is not a duration.\"\"\"
                match = _DURATION.match(text.strip())
                if match is None:
                    return None
                amount, unit = match.groups()
                return now - timedelta(**{_UNITS[unit]: int(amount)})
            """,
        )
    )
    c.run(
        ws.edit(
            "src/logslice/cli.py",
            """
                start = parse_timestamp(since) if since else None
                end = parse_timestamp(until) if until else None
            """,
            """
                now = datetime.now().astimezone()
                start = _moment(since, now, "--since")
                end = _moment(until, now, "--until")
            """,
        ),
        ws.edit(
            "src/logslice/cli.py",
            """
            def colorize(line: str) -> str:
            """,
            """
            def _moment(text: str | None, now: datetime, option: str) -> datetime | None:
                if not text:
                    return None
                moment = parse_moment(text, now) or parse_timestamp(text)
                if moment is None:
                    message = f"not a time or a duration: {text!r}"
                    raise click.BadParameter(message, param_hint=option)
                return moment


            def colorize(line: str) -> str:
            """,
        ),
        ws.edit(
            "src/logslice/cli.py",
            """
            import sys
            """,
            """
            import sys
            from datetime import datetime
            """,
        ),
        ws.edit(
            "src/logslice/cli.py",
            """
            from logslice.slicer import between
            """,
            """
            from logslice.durations import parse_moment
            from logslice.slicer import between
            """,
        ),
    )
    c.run(
        ws.write(
            "tests/test_durations.py",
            """
            from datetime import datetime, timezone

            import pytest

            from logslice.durations import parse_moment

            NOW = datetime(2025, 3, 4, 12, 0, tzinfo=timezone.utc)


            @pytest.mark.parametrize(
                ("text", "hour", "minute"), [("10m", 11, 50), ("2h", 10, 0), ("90s", 11, 58)]
            )
            def test_durations(text, hour, minute):
                assert parse_moment(text, NOW) == NOW.replace(hour=hour, minute=minute)


            @pytest.mark.parametrize("text", ["", "10", "m", "10 m", "-5m", "1w"])
            def test_not_durations(text):
                assert parse_moment(text, NOW) is None
            """,
        )
    )
    c.run(
        bash(
            "python -m pytest",
            """
            .........F....                                                           [100%]
            ___________________________ test_durations[90s-11-58] ___________________________
            >   assert parse_moment(text, NOW) == NOW.replace(hour=hour, minute=minute)
            E   AssertionError: assert datetime.datetime(2025, 3, 4, 11, 58, 30, tzinfo=…)
            E    +  where … == datetime.datetime(2025, 3, 4, 11, 58, tzinfo=…)
            1 failed, 13 passed in 0.06s
            """,
            1,
        )
    )
    c.run(
        ws.edit(
            "tests/test_durations.py",
            """
                ("text", "hour", "minute"), [("10m", 11, 50), ("2h", 10, 0), ("90s", 11, 58)]
            """,
            """
                ("text", "hour", "minute"), [("10m", 11, 50), ("2h", 10, 0), ("120s", 11, 58)]
            """,
        ),
        text="The test was wrong, not the code: 90 s before 12:00 is 11:58:30. Using 120s:",
    )
    c.run(bash("python -m pytest", _pytest_ok(14, 44)))
    c.say(
        """
        `--since`/`--until` now accept durations (`30s`, `10m`, `2h`, `3d`, relative to now)
        as well as absolute times; anything else is a clean usage error:

        ```
        Error: Invalid value for --since: not a time or a duration: '10 minutes'
        ```

        14 tests pass.
        """
    )
    c.name("--since/--until durations")
    return b.save(c)


def _cli_release(b: _Builder) -> str:
    """User shell commands: one in the context (``!``), one kept out of it (``!!``)."""
    c = b.start(CLI, ago=16 * DAY + 1 * HOUR, files=_cli_files())
    ws = c.ws
    c.shell(
        "git log --oneline v0.3.2..HEAD",
        _text(
            """
            e4a1c02 durations for --since/--until
            9b7f3d1 color: keep brackets literal
            51c0e8a slicer: continuation lines follow their stamp
            """
        ),
    )
    c.user("Prepare the 0.4.0 release: bump the version, write the changelog from these commits.")
    c.run(ws.grep("0\\.3\\.2", "."))
    c.run(
        ws.edit("pyproject.toml", 'version = "0.3.2"', 'version = "0.4.0"'),
        ws.edit("src/logslice/__init__.py", '__version__ = "0.3.2"', '__version__ = "0.4.0"'),
        ws.write(
            "CHANGELOG.md",
            """
            # Changelog

            ## 0.4.0

            - `--since` and `--until` accept durations: `30s`, `10m`, `2h`, `3d`.
            - Log lines containing brackets (`[warn]`, `[/api]`) are printed literally with
              `--color` instead of being parsed as markup.
            - Unstamped lines (tracebacks) stay with the stamped line before them.
            """,
        ),
    )
    c.say("Version 0.4.0 in `pyproject.toml` and `__init__.py`, and a CHANGELOG entry.")
    c.shell(
        "python -m build",
        _text(
            """
            * Creating isolated environment: venv+pip...
            * Installing packages in isolated environment:
              - hatchling
            * Getting build dependencies for sdist...
            * Building sdist...
            * Building wheel from sdist
            * Creating isolated environment: venv+pip...
            * Getting build dependencies for wheel...
            * Building wheel...
            Successfully built logslice-0.4.0.tar.gz and logslice-0.4.0-py3-none-any.whl
            """
        ),
        exclude=True,
    )
    c.user("Built it. Tag and push? Don't publish to PyPI, CI does that on tags.")
    c.run(
        bash(
            "git commit -qam 'release 0.4.0' && git tag -a v0.4.0 -m 'logslice 0.4.0' && git "
            "push -q --follow-tags && git describe",
            "v0.4.0",
        )
    )
    c.say("Committed, tagged `v0.4.0` and pushed; the tag will trigger the PyPI workflow.")
    return b.save(c)


def _cli_tail_cpu(b: _Builder) -> str:
    files = dict(_cli_files())
    files["src/logslice/follow.py"] = """
        \"\"\"--follow: keep printing lines as they are appended.\"\"\"

        from __future__ import annotations

        from collections.abc import Iterator
        from typing import TextIO


        def follow(handle: TextIO) -> Iterator[str]:
            \"\"\"Lines of `handle`, then new lines as they arrive (like tail -f).\"\"\"
            while True:
                line = handle.readline()
                if line:
                    yield line
    """
    c = b.start(CLI, ago=52 * DAY + 6 * HOUR, model=GPT5, thinking="high", files=files)
    ws = c.ws
    c.user("`logslice --follow` uses 100% of a CPU core while waiting for new lines. Why?")
    c.run(ws.read("src/logslice/follow.py"))
    c.say(
        """
        `follow()` busy-waits: at the end of the file `readline()` returns `""` immediately,
        the `if` is false, and the `while True` spins again at once — millions of `readline()`
        calls per second.

        The simple fix is to sleep briefly when there's nothing new (what `tail -f` does
        without inotify). 0.2 s keeps latency unnoticeable and CPU at ~0%.
        """,
        thinking="""
        readline at EOF returns '' without blocking for regular files. Busy loop. Options:
        sleep-polling (simple), inotify via watchdog (dependency), or select() (doesn't work
        on regular files — always readable). Also handle truncation/rotation: if the file
        shrinks, seek to 0. Keep it simple but mention rotation.
        """,
    )
    c.run(
        ws.edit(
            "src/logslice/follow.py",
            """
                while True:
                    line = handle.readline()
                    if line:
                        yield line
            """,
            """
                while True:
                    line = handle.readline()
                    if line:
                        yield line
                    else:
                        time.sleep(poll)  # at the end of the file: wait, don't spin
            """,
        ),
        ws.edit(
            "src/logslice/follow.py",
            """
            def follow(handle: TextIO) -> Iterator[str]:
            """,
            """
            def follow(handle: TextIO, poll: float = 0.2) -> Iterator[str]:
            """,
        ),
        ws.edit(
            "src/logslice/follow.py",
            """
            from collections.abc import Iterator
            """,
            """
            import time
            from collections.abc import Iterator
            """,
        ),
    )
    c.run(
        bash(
            "timeout 5 python -m logslice --follow /var/log/syslog >/dev/null & sleep 4; ps -o "
            "%cpu= -p $!",
            " 0.3",
        )
    )
    c.say(
        "CPU is at 0.3% now while idle. Note that log *rotation* (file renamed and recreated) "
        "still isn't handled — `tail -F` reopens the path; I can add that if you need it."
    )
    c.user("Not now, thanks.")
    return b.save(c)


def _cli_completions(b: _Builder) -> str:
    c = b.start(CLI, ago=85 * DAY + 2 * HOUR, model=HAIKU, thinking="off", files=_cli_files())
    c.user("How do users get shell completions for logslice? It's a click app.")
    c.say(
        """
        Click generates them; nothing to add to the code. Users put one line in their shell's
        startup file:

        ```sh
        # bash (~/.bashrc)
        eval "$(_LOGSLICE_COMPLETE=bash_source logslice)"
        # zsh (~/.zshrc)
        eval "$(_LOGSLICE_COMPLETE=zsh_source logslice)"
        # fish (~/.config/fish/completions/logslice.fish)
        _LOGSLICE_COMPLETE=fish_source logslice | source
        ```

        The variable name is `_<PROG>_COMPLETE` with the program name upper-cased and `-`
        replaced by `_`. I'd add this block to the README.
        """
    )
    c.user("thx")
    return b.save(c)


def _infra_compose(b: _Builder, source: str) -> str:
    """``forkFrom``: the Dockerfile session of the webapp, continued in the infra repository."""
    c = b.fork(source, INFRA, ago=29 * DAY + 3 * HOUR, model=SONNET)
    ws = c.ws
    c.pending += 6000  # the copied history is new to this conversation's cache
    c.user(
        "I've moved deployment stuff to the infra repo, so continuing here. Add a "
        "docker-compose.yml for a prod-like local stack: the api image from above, postgres "
        "16, and migrations as a one-off service that runs before the api starts."
    )
    c.run(
        ws.write(
            "docker-compose.yml",
            """
            services:
              db:
                image: postgres:16-alpine
                environment:
                  POSTGRES_DB: orbit
                  POSTGRES_USER: orbit
                  POSTGRES_PASSWORD: orbit
                volumes: [db-data:/var/lib/postgresql/data]
                healthcheck:
                  test: ["CMD-SHELL", "pg_isready -U orbit"]
                  interval: 2s
                  retries: 30

              migrate:
                image: orbit-api
                entrypoint: ["/nodejs/bin/node", "node_modules/prisma/build/index.js"]
                command: ["migrate", "deploy"]
                environment:
                  DATABASE_URL: postgres://orbit:orbit@db:5432/orbit
                depends_on:
                  db: { condition: service_healthy }

              api:
                image: orbit-api
                environment:
                  DATABASE_URL: postgres://orbit:orbit@db:5432/orbit
                  PORT: "3000"
                ports: ["3000:3000"]
                depends_on:
                  migrate: { condition: service_completed_successfully }

            volumes:
              db-data:
            """,
        ),
        thinking="""
        The runtime image is distroless: no shell, so `npx prisma migrate deploy` won't work as
        a command. Call node on prisma's CLI entry directly. depends_on with
        service_completed_successfully orders migrate before api.
        """,
    )
    c.run(
        bash(
            "docker compose up -d && docker compose ps --format '{{.Service}}\\t{{.Status}}'",
            """
            db        Up 9 seconds (healthy)
            migrate   Exited (0) 3 seconds ago
            api       Up 2 seconds
            """,
            timeout=300,
        )
    )
    c.say(
        """
        `docker-compose.yml` brings up `db` (postgres 16, health-checked), then `migrate`
        (`prisma migrate deploy`, exits), then `api` on :3000. The api image is distroless —
        no shell, no `npx` — so the migrate service calls node on Prisma's CLI directly.
        """
    )
    c.name("compose stack for orbit")
    return b.save(c)


def _infra_nginx(b: _Builder) -> str:
    files = {
        "nginx/orbit.conf": """
            upstream orbit_api {
                server 10.0.1.11:3000;
                server 10.0.1.12:3000;
            }

            server {
                listen 443 ssl;
                server_name app.orbit.example;

                location /api/ {
                    proxy_pass http://orbit_api;
                    proxy_set_header Host $host;
                    proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
                }

                location / {
                    root /srv/orbit/client;
                    try_files $uri /index.html;
                }
            }
        """,
    }
    c = b.start(INFRA, ago=6 * DAY + 5 * HOUR, files=files)
    ws = c.ws
    c.user(
        "Live updates don't work in prod: the browser console says the WebSocket to "
        "wss://app.orbit.example/live fails with 404. Works locally."
    )
    c.run(ws.read("nginx/orbit.conf"))
    c.say(
        """
        Two things in `nginx/orbit.conf`:

        1. There's no `location /live` — only `/api/` goes to the API, so `/live` falls through
           to the static files and `try_files` answers... well, `index.html` for a GET, but the
           upgrade request gets a 404.
        2. Even with a location, nginx doesn't forward the `Upgrade`/`Connection` headers
           unless told to, and it needs HTTP/1.1 to the upstream.

        Also, with two API instances the socket can land on either; that's fine for us because
        events go through the shared bus, so no sticky sessions needed.
        """
    )
    c.run(
        ws.edit(
            "nginx/orbit.conf",
            """
                location / {
            """,
            """
                location /live {
                    proxy_pass http://orbit_api;
                    proxy_http_version 1.1;
                    proxy_set_header Upgrade $http_upgrade;
                    proxy_set_header Connection "upgrade";
                    proxy_set_header Host $host;
                    proxy_read_timeout 1h;  # idle sockets stay open between events
                }

                location / {
            """,
        )
    )
    c.run(
        bash(
            "docker run --rm -v $PWD/nginx:/etc/nginx/conf.d:ro nginx:1.27 nginx -t",
            """
        nginx: the configuration file /etc/nginx/nginx.conf syntax is ok
        nginx: configuration file /etc/nginx/nginx.conf test is successful
        """,
        )
    )
    c.say(
        "Added `location /live` with HTTP/1.1, the upgrade headers and a 1 h read timeout "
        "(the default 60 s would cut idle sockets). `nginx -t` passes."
    )
    return b.save(c)


def _infra_terraform(b: _Builder) -> str:
    """An answer the user interrupted (stop reason ``aborted``)."""
    c = b.start(INFRA, ago=36 * DAY + 4 * HOUR, model=OPUS, thinking="high")
    c.user(
        "terraform plan wants to REPLACE the production database?! Nobody touched rds.tf as "
        "far as I know. Help me understand before anyone runs apply."
    )
    c.run(
        bash(
            "cd terraform && terraform plan -no-color 2>&1 | grep -B2 -A8 'must be replaced'",
            """
              # aws_db_instance.orbit must be replaced
            -/+ resource "aws_db_instance" "orbit" {
                  ~ arn                 = "arn:aws:rds:eu-central-1:…:db:orbit-prod" -> (known…)
                  ~ engine_version      = "16.4" -> "16.3" # forces replacement
                    identifier          = "orbit-prod"
                  ~ storage_encrypted   = true -> (known after apply)
            """,
        )
    )
    c.reply(
        "The plan says `engine_version` goes from 16.4 to 16.3 and that **forces replacement**: "
        "RDS can't downgrade in place. 16.4 is what AWS has on the instance because minor "
        "upgrades are applied automatically in the maintenance window, while the code still "
        "pins",
        stop="aborted",
    )
    c.user(
        "Stop, I get it — auto minor version upgrade bumped it. What's the right fix so this "
        "doesn't happen again?"
    )
    c.say(
        """
        Right. Two changes to `rds.tf`:

        ```hcl
        resource "aws_db_instance" "orbit" {
          engine_version = "16"   # major only; AWS picks the minor

          lifecycle {
            prevent_destroy = true
          }
        }
        ```

        - With `engine_version = "16"` Terraform compares the major version only, so the
          automatic minor upgrades no longer show as a diff.
        - `prevent_destroy` makes any plan that would destroy the database fail instead of
          proceeding — a guard against exactly this scare.

        Run `terraform plan` again afterwards; it should show no changes for the instance.
        """
    )
    return b.save(c)


def _infra_ci_cache(b: _Builder) -> str:
    files = {
        ".github/workflows/deploy.yml": """
            name: deploy
            on:
              push:
                branches: [main]
            jobs:
              build:
                runs-on: ubuntu-latest
                steps:
                  - uses: actions/checkout@v4
                  - uses: actions/cache@v4
                    with:
                      path: ~/.npm
                      key: npm-${{ hashFiles('package-lock.json') }}-${{ github.sha }}
                  - run: npm ci
                  - run: docker build -t orbit-api .
        """,
    }
    c = b.start(INFRA, ago=70 * DAY + 1 * HOUR, model=GEMINI, files=files)
    ws = c.ws
    c.user("The deploy workflow never gets a cache hit for npm. Every run downloads everything.")
    c.run(ws.read(".github/workflows/deploy.yml"))
    c.say(
        """
        The cache key ends with `${{ github.sha }}`, which is different for every commit, so
        the exact key never matches and there's no `restore-keys` to fall back on. Every run
        misses and then saves a new entry (which also fills the 10 GB cache quota).

        Simplest fix: let `setup-node` handle it — it keys on the lockfile only.
        """
    )
    c.run(
        ws.edit(
            ".github/workflows/deploy.yml",
            """
                  - uses: actions/cache@v4
                    with:
                      path: ~/.npm
                      key: npm-${{ hashFiles('package-lock.json') }}-${{ github.sha }}
            """,
            """
                  - uses: actions/setup-node@v4
                    with:
                      node-version: 22
                      cache: npm
            """,
        )
    )
    c.say("Replaced the hand-made cache step with `setup-node`'s built-in npm cache.")
    c.user("And the docker build, can that be cached too?")
    c.say(
        """
        Yes, with BuildKit's GitHub Actions cache backend:

        ```yaml
        - uses: docker/setup-buildx-action@v3
        - uses: docker/build-push-action@v6
          with:
            tags: orbit-api
            cache-from: type=gha
            cache-to: type=gha,mode=max
        ```

        Together with the `--mount=type=cache` in the Dockerfile's `npm ci` step, an unchanged
        lockfile skips dependency installation entirely.
        """
    )
    c.name("CI cache never hits")
    return b.save(c)


def _notes_files() -> dict[str, str]:
    return {
        "meetings/standup-raw.md": """
            - dana: pagination PR merged, changelog PR open. next: cursor pagination spike?
            - sam: fixing lint on ProjectCard (any from the owner include), then task comments
              client
            - maria: reviewing comments PR, found XSS in CommentThread (dangerouslySetInnerHTML)
              -> blocking
            - me: nginx websocket config for /live, deploying today
            - blockers: staging DB disk 91% full, who owns cleanup?? (nobody answered)
            - reminder: retro thursday, bring 1 thing that went well
        """,
        "reading-list.md": """
            # Reading list

            - [ ] Designing Data-Intensive Applications, ch. 5 (replication)
            - [x] "Use the index, Luke" — pagination chapter
            - [ ] The Rust book, ch. 16 (concurrency)
            - [ ] "Falsehoods programmers believe about time"
            - [ ] OAuth 2.0 Device Authorization Grant, RFC 8628
            - [x] Postgres docs: EXPLAIN
            - [ ] Crafting Interpreters, part II
            - [ ] "How to do distributed locking" (Kleppmann)
            - [ ] Refactoring UI
            - [ ] The Rust book, ch. 16
        """,
        "weekly-review.md": """
            # Weekly review

            ## Wins

            ## Misses

            ## Next week
        """,
    }


def _notes_standup(b: _Builder) -> str:
    files = _notes_files()
    c = b.start(NOTES, ago=5 * HOUR + 20 * MINUTE, model=HAIKU, thinking="off", files=files)
    ws = c.ws
    c.user("Turn my raw standup notes into something I can paste into the team channel.")
    c.run(ws.read("meetings/standup-raw.md"))
    c.say(
        """
        **Standup**

        - **Dana** — pagination PR merged ✅; changelog PR open. Next: maybe a cursor
          pagination spike.
        - **Sam** — fixing the `ProjectCard` lint error, then the task comments client.
        - **Maria** — reviewing the comments PR; found an XSS in `CommentThread`
          (`dangerouslySetInnerHTML`) → **blocking**.
        - **Me** — nginx WebSocket config for `/live`, deploying today.

        **Blocker:** staging DB disk at 91 %. Needs an owner for the cleanup — who takes it?

        *Retro on Thursday: bring one thing that went well.*
        """
    )
    c.user("Perfect. Save it next to the raw notes as standup.md")
    c.run(
        ws.write(
            "meetings/standup.md",
            """
            **Standup**

            - **Dana** — pagination PR merged ✅; changelog PR open. Next: maybe a cursor
              pagination spike.
            - **Sam** — fixing the `ProjectCard` lint error, then the task comments client.
            - **Maria** — reviewing the comments PR; found an XSS in `CommentThread`
              (`dangerouslySetInnerHTML`) → **blocking**.
            - **Me** — nginx WebSocket config for `/live`, deploying today.

            **Blocker:** staging DB disk at 91 %. Needs an owner for the cleanup — who takes it?

            *Retro on Thursday: bring one thing that went well.*
            """,
        )
    )
    c.say("Saved as `meetings/standup.md`.")
    return b.save(c)


def _notes_blog(b: _Builder) -> str:
    c = b.start(NOTES, ago=11 * DAY + 8 * HOUR, model=OPUS, files=_notes_files())
    ws = c.ws
    c.user(
        "Help me draft a blog post: 'Logging in on a TV: the OAuth device flow in 10 minutes'. "
        "Audience: web devs who know OAuth's redirect flow. ~600 words, friendly, one diagram "
        "as ASCII. Put it in drafts/."
    )
    c.run(
        ws.write(
            "drafts/oauth-device-flow.md",
            """
            # Logging in on a TV: the OAuth device flow in 10 minutes

            You know the redirect flow: your app sends the user to the provider, the provider
            sends them back with a code. That works because your app *is* a browser, or has
            one. Now picture a smart TV, a CLI on a server, or a game console: no browser, and
            typing a password with a remote is torture. That's what the **device
            authorization grant** (RFC 8628) is for.

            ## The idea

            The device asks the provider for two codes, shows one to the user, and waits. The
            user finishes the login on their phone or laptop, where they have a browser and a
            password manager. The device finds out by polling.

            ```
             TV / CLI                    Provider                    Phone
                |-- POST /device/code ---->|                           |
                |<-- device_code,          |                           |
                |    user_code "WDJB-MJHT",|                           |
                |    verification_uri -----|                           |
                |  shows code + URL        |<---- opens URL, logs in --|
                |-- POST /token (poll) --->|      types WDJB-MJHT      |
                |<-- authorization_pending |                           |
                |-- POST /token (poll) --->|                           |
                |<-- access_token ---------|                           |
            ```

            ## Step by step

            1. **Ask for codes.** `POST /device/code` with your `client_id` and scopes. You get
               a `device_code` (secret, for you), a short `user_code` (for the human), a
               `verification_uri`, an `expires_in` and an `interval`.
            2. **Show the code.** "Go to example.com/activate and enter WDJB-MJHT". Many
               providers also return `verification_uri_complete` with the code built in —
               perfect for a QR code.
            3. **Poll.** `POST /token` with the `device_code` and
               `grant_type=urn:ietf:params:oauth:grant-type:device_code`, every `interval`
               seconds. You'll get
               `authorization_pending` until the user is done.
            4. **Done.** The response becomes a normal token response.

            ## The details that bite

            - **Respect `slow_down`.** If the provider answers `slow_down`, add 5 seconds to
              your interval — for the rest of the flow, not just once.
            - **Codes expire.** After `expires_in`, start over with a fresh code instead of
              polling forever.
            - **Don't show the `device_code`.** Only the `user_code` is meant for humans.
            - **Phishing.** An attacker can start a flow and send *you* the code. Show the
              device's name on the approval page, and keep codes short-lived.

            ## When to use it

            Whenever the device can't show a browser, or typing is painful: TVs, consoles,
            CLIs over SSH, IoT. For a normal web or mobile app, stick with the authorization
            code flow with PKCE.
            """,
        ),
        text="Here's a first draft.",
    )
    c.say(
        "Draft saved to `drafts/oauth-device-flow.md` (~560 words): the idea, an ASCII sequence "
        "diagram, the four steps, the pitfalls (`slow_down`, expiry, phishing) and when to use "
        "it. Want a code sample in it, e.g. polling in 15 lines of TypeScript?"
    )
    c.user("The intro is too long. Make the first paragraph two sentences max.")
    c.run(
        ws.edit(
            "drafts/oauth-device-flow.md",
            """
            You know the redirect flow: your app sends the user to the provider, the provider
            sends them back with a code. That works because your app *is* a browser, or has
            one. Now picture a smart TV, a CLI on a server, or a game console: no browser, and
            typing a password with a remote is torture. That's what the **device
            authorization grant** (RFC 8628) is for.
            """,
            """
            The OAuth redirect flow needs a browser, and a smart TV, a game console or a CLI
            over SSH doesn't have one. The **device authorization grant** (RFC 8628) lets the
            user log in on their phone instead.
            """,
        )
    )
    c.say("Shortened the intro to two sentences.")
    c.name("Blog: OAuth device flow")
    return b.save(c)


def _notes_weekly(b: _Builder) -> str:
    c = b.start(NOTES, ago=2 * DAY + 3 * HOUR, files=_notes_files())
    ws = c.ws
    c.user(
        "Fill in my weekly review from my sessions this week: pagination PR merged, flaky e2e "
        "fixed, login rate limiting shipped, nginx websocket fix. Miss: didn't get to the "
        "staging disk issue. Next week: cursor pagination decision, comments XSS fix review."
    )
    c.run(ws.read("weekly-review.md"))
    c.run(
        ws.write(
            "weekly-review.md",
            """
            # Weekly review

            ## Wins
            - Projects pagination (PR #142) merged: first page 39 ms → 0.1 ms in the DB
            - The flaky "dashboard shows projects" e2e test is fixed (100/100 runs)
            - Login rate limiting shipped (per IP and per email, Redis-backed)
            - Live updates work in prod again (nginx `/live` upgrade headers)

            ## Misses
            - Staging DB disk (91 %) still has no owner

            ## Next week
            - Decide: keep offset pagination or move to cursors (comparison table in the
              cursor experiment session)
            - Review Maria's fix for the comments XSS
            - Find an owner for the staging disk, or just do it
            """,
        )
    )
    c.say(
        "Done. I turned the staging disk miss into a concrete next-week item so it doesn't slip "
        "again."
    )
    return b.save(c)


def _notes_reading_list(b: _Builder) -> str:
    c = b.start(NOTES, ago=88 * DAY + 5 * HOUR, model=GEMINI, files=_notes_files())
    ws = c.ws
    c.user("Clean up my reading list: remove duplicates, move done items to the bottom.")
    c.run(ws.read("reading-list.md"))
    c.run(
        ws.write(
            "reading-list.md",
            """
            # Reading list

            - [ ] Designing Data-Intensive Applications, ch. 5 (replication)
            - [ ] The Rust book, ch. 16 (concurrency)
            - [ ] "Falsehoods programmers believe about time"
            - [ ] OAuth 2.0 Device Authorization Grant, RFC 8628
            - [ ] Crafting Interpreters, part II
            - [ ] "How to do distributed locking" (Kleppmann)
            - [ ] Refactoring UI

            ## Done

            - [x] "Use the index, Luke" — pagination chapter
            - [x] Postgres docs: EXPLAIN
            """,
        )
    )
    c.say(
        "Removed the duplicate *Rust book, ch. 16* (kept the entry with the topic) and moved the "
        "two finished items under a *Done* heading. 7 to read."
    )
    return b.save(c)


def _pipeline_files() -> dict[str, str]:
    return {
        "pyproject.toml": """
            [project]
            name = "orbit-pipeline"
            version = "0.1.0"
            requires-python = ">=3.11"
            dependencies = ["duckdb>=1.1", "pyarrow>=17", "httpx>=0.27"]
        """,
        "pipeline/__init__.py": "",
        "pipeline/extract.py": """
            \"\"\"Fetch one day of events from the Orbit API as Arrow record batches.\"\"\"

            from __future__ import annotations

            from datetime import date

            import httpx
            import pyarrow as pa

            SCHEMA = pa.schema(
                [("id", pa.string()), ("team_id", pa.string()), ("kind", pa.string()),
                 ("at", pa.timestamp("ms", tz="UTC")), ("payload", pa.string())]
            )


            def fetch_day(client: httpx.Client, day: date) -> pa.Table:
                rows = client.get("/api/events", params={"day": day.isoformat()}).json()["events"]
                return pa.Table.from_pylist(rows, schema=SCHEMA)
        """,
        "pipeline/load.py": """
            \"\"\"Load a day of events into the warehouse (DuckDB).\"\"\"

            from __future__ import annotations

            import duckdb
            import pyarrow as pa


            def load_events(con: duckdb.DuckDBPyConnection, table: pa.Table) -> int:
                rows = table.to_pylist()
                for row in rows:
                    con.execute(
                        "INSERT INTO events VALUES (?, ?, ?, ?, ?)",
                        [row["id"], row["team_id"], row["kind"], row["at"], row["payload"]],
                    )
                return len(rows)
        """,
        "pipeline/daily.py": """
            \"\"\"The daily job: extract yesterday, load it, run the checks.\"\"\"

            from __future__ import annotations

            from datetime import date, timedelta

            import duckdb
            import httpx

            from pipeline.extract import fetch_day
            from pipeline.load import load_events


            def run(day: date | None = None) -> None:
                day = day or date.today() - timedelta(days=1)
                with httpx.Client(base_url="https://app.orbit.example") as client:
                    table = fetch_day(client, day)
                con = duckdb.connect("warehouse.duckdb")
                load_events(con, table)
        """,
        "sql/schema.sql": """
            CREATE TABLE IF NOT EXISTS events (
                id VARCHAR PRIMARY KEY,
                team_id VARCHAR NOT NULL,
                kind VARCHAR NOT NULL,
                at TIMESTAMPTZ NOT NULL,
                payload JSON
            );
        """,
        "tests/test_load.py": """
            import duckdb
            import pyarrow as pa

            from pipeline.load import load_events


            def test_load_events(tmp_path):
                con = duckdb.connect(str(tmp_path / "w.duckdb"))
                con.execute(open("sql/schema.sql").read())
                table = pa.Table.from_pylist([{"id": "e1", "team_id": "t", "kind": "k",
                                               "at": 0, "payload": "{}"}])
                assert load_events(con, table) == 1
        """,
    }


def _pipeline_slow_load(b: _Builder) -> str:
    c = b.start(PIPELINE, ago=27 * HOUR, files=_pipeline_files())
    ws = c.ws
    c.user(
        "The daily job got slow: loading ~400k events takes 25 minutes now. Extract is fast. "
        "Find where the time goes."
    )
    c.run(ws.find("**/*.py"), text="Let me find the loading code.")
    c.run(ws.grep("INSERT|executemany|execute\\(", "pipeline"))
    c.run(ws.read("pipeline/load.py"))
    c.say(
        """
        There it is: `load_events` converts the Arrow table to Python dicts and runs **one
        `INSERT` per row** — 400k round trips through the Python/DuckDB boundary, each with
        parameter binding and a primary-key check. DuckDB is columnar and wants data in bulk.

        DuckDB can read an Arrow table directly (zero-copy), so the whole load becomes one
        statement.
        """
    )
    c.run(
        ws.edit(
            "pipeline/load.py",
            """
                rows = table.to_pylist()
                for row in rows:
                    con.execute(
                        "INSERT INTO events VALUES (?, ?, ?, ?, ?)",
                        [row["id"], row["team_id"], row["kind"], row["at"], row["payload"]],
                    )
                return len(rows)
            """,
            """
                # DuckDB scans the Arrow table in place: one statement instead of one per row.
                con.register("incoming", table)
                try:
                    con.execute("INSERT OR REPLACE INTO events SELECT * FROM incoming")
                finally:
                    con.unregister("incoming")
                return table.num_rows
            """,
        )
    )
    c.run(
        bash(
            "python -m pytest -q && python scripts/bench_load.py --rows 400000",
            """
            .                                                                        [100%]
            1 passed in 0.31s
            load 400,000 events: 1.84 s
            """,
        )
    )
    c.say(
        """
        **25 min → 1.8 s** for 400k events. `load_events` registers the Arrow table as a view
        and runs a single `INSERT OR REPLACE … SELECT`. `OR REPLACE` also makes re-running a
        day idempotent (the old loop would have failed on the primary key).
        """
    )
    c.user("wow. ok, what about memory? Some days have 2M events.")
    c.run(
        bash(
            "/usr/bin/time -v python scripts/bench_load.py --rows 2000000 2>&1 | grep -E "
            "'load|Maximum'",
            """
        load 2,000,000 events: 8.97 s
        Maximum resident set size (kbytes): 1184312
        """,
        )
    )
    c.say(
        "2M events: 9 s and 1.2 GB peak, most of it the Arrow table from extract (the load "
        "itself is zero-copy). If that's too much for the worker, fetch and load in batches "
        "of ~250k; the code wouldn't change much."
    )
    return b.save(c)


def _pipeline_backfill(b: _Builder) -> str:
    c = b.start(PIPELINE, ago=47 * DAY + 2 * HOUR, files=_pipeline_files())
    ws = c.ws
    c.user(
        "We lost the events of March 1–7 (the job was disabled by mistake). Backfill them. "
        "Keep a todo list, I'll check in between meetings."
    )
    c.todos(*[(f"backfill 2025-03-0{d}", False, ["backfill"]) for d in range(1, 8)])
    c.run(ws.read("pipeline/daily.py"))
    c.run(
        bash(
            'for d in 01 02 03; do python -c "from datetime import date; from pipeline.daily '
            'import run; run(date(2025, 3, int(\'$d\')))" && echo "2025-03-$d ok"; done',
            "2025-03-01 ok\n2025-03-02 ok\n2025-03-03 ok",
            timeout=1800,
        )
    )
    c.todos(*[(f"backfill 2025-03-0{d}", d <= 3, ["backfill"]) for d in range(1, 8)])
    c.run(
        bash(
            'for d in 04 05 06 07; do python -c "from datetime import date; from pipeline.daily '
            'import run; run(date(2025, 3, int(\'$d\')))" && echo "2025-03-$d ok"; done',
            """
            2025-03-04 ok
            2025-03-05 ok
            Traceback (most recent call last):
              File "pipeline/extract.py", line 19, in fetch_day
            httpx.HTTPStatusError: Server error '503 Service Unavailable' for url
            'https://app.orbit.example/api/events?day=2025-03-06'
            """,
            1,
            timeout=1800,
        )
    )
    c.todos(*[(f"backfill 2025-03-0{d}", d <= 5, ["backfill"]) for d in range(1, 8)])
    c.say(
        "March 1–5 are loaded. March 6 failed with a 503 from the API (the events endpoint "
        "was probably deploying); I'll retry 6 and 7 in a few minutes."
    )
    c.pause(8)
    c.user("go ahead")
    c.run(
        bash(
            'for d in 06 07; do python -c "from datetime import date; from pipeline.daily '
            'import run; run(date(2025, 3, int(\'$d\')))" && echo "2025-03-$d ok"; done',
            "2025-03-06 ok\n2025-03-07 ok",
            timeout=1800,
        )
    )
    c.run(
        bash(
            'duckdb warehouse.duckdb "SELECT at::DATE AS day, count(*) FROM events WHERE at >= '
            "'2025-03-01' AND at < '2025-03-08' GROUP BY 1 ORDER BY 1\"",
            """
        ┌────────────┬──────────────┐
        │    day     │ count_star() │
        ├────────────┼──────────────┤
        │ 2025-03-01 │       312544 │
        │ 2025-03-02 │       287901 │
        │ 2025-03-03 │       401287 │
        │ 2025-03-04 │       412930 │
        │ 2025-03-05 │       398114 │
        │ 2025-03-06 │       405873 │
        │ 2025-03-07 │       377240 │
        └────────────┴──────────────┘
        """,
        )
    )
    c.todos(*[(f"backfill 2025-03-0{d}", True, ["backfill"]) for d in range(1, 8)])
    c.say(
        "All seven days are loaded; the counts look normal (weekend dip on the 1st and 2nd). "
        "The job is re-enabled? It isn't in this repo, so please check the scheduler."
    )
    return b.save(c)


def _pipeline_quality(b: _Builder) -> str:
    c = b.start(PIPELINE, ago=80 * DAY + 6 * HOUR, model=GEMINI, files=_pipeline_files())
    ws = c.ws
    c.user("List data quality checks we should run after each daily load, as SQL. Be thorough.")
    c.run(ws.read("sql/schema.sql"))
    c.say(
        """
        Here's a thorough set, grouped by what they catch. Each query returns rows only when
        something is wrong, so "no rows" means pass.

        ### 1. Volume

        ```sql
        -- today's count vs. the 28-day median; fail below 50 % or above 200 %
        WITH daily AS (
          SELECT at::DATE AS day, count(*) AS n FROM events
          WHERE at >= current_date - 29 GROUP BY 1
        )
        SELECT * FROM daily
        WHERE day = current_date - 1
          AND (n < 0.5 * (SELECT median(n) FROM daily WHERE day < current_date - 1)
            OR n > 2.0 * (SELECT median(n) FROM daily WHERE day < current_date - 1));
        ```

        ### 2. Freshness

        ```sql
        SELECT max(at) AS newest FROM events HAVING max(at) < now() - INTERVAL 26 HOURS;
        ```

        ### 3. Completeness

        ```sql
        SELECT kind, count(*) FILTER (WHERE payload IS NULL) AS null_payloads
        FROM events WHERE at::DATE = current_date - 1
        GROUP BY kind HAVING null_payloads > 0;
        ```

        ### 4. Validity

        ```sql
        -- kinds we have never seen before
        SELECT DISTINCT kind FROM events WHERE at::DATE = current_date - 1
        EXCEPT SELECT kind FROM known_kinds;

        -- payloads that are not valid JSON objects
        SELECT id FROM events
        WHERE at::DATE = current_date - 1 AND json_type(payload) <> 'OBJECT';

        -- timestamps in the future
        SELECT id, at FROM events WHERE at > now() + INTERVAL 5 MINUTES;
        ```

        ### 5. Consistency

        ```sql
        -- events of teams that do not exist in the teams dimension
        SELECT DISTINCT e.team_id FROM events e
        LEFT JOIN teams t ON t.id = e.team_id
        WHERE e.at::DATE = current_date - 1 AND t.id IS NULL;

        -- a day's events spread over more than one load
        SELECT at::DATE, count(DISTINCT loaded_at) FROM events
        GROUP BY 1 HAVING count(DISTINCT loaded_at) > 1 AND at::DATE >= current_date - 7
        """,
        stop="length",
    )
    c.user("Cut off at the end, but this is plenty. Put 1–4 into sql/checks/ as one file each.")
    c.run(
        ws.write(
            "sql/checks/volume.sql",
            """
            -- yesterday's count vs. the 28-day median; rows = failure
            WITH daily AS (
              SELECT at::DATE AS day, count(*) AS n FROM events
              WHERE at >= current_date - 29 GROUP BY 1
            )
            SELECT * FROM daily
            WHERE day = current_date - 1
              AND (n < 0.5 * (SELECT median(n) FROM daily WHERE day < current_date - 1)
                OR n > 2.0 * (SELECT median(n) FROM daily WHERE day < current_date - 1));
            """,
        ),
        ws.write(
            "sql/checks/freshness.sql",
            """
            -- the newest event is older than 26 hours; rows = failure
            SELECT max(at) AS newest FROM events HAVING max(at) < now() - INTERVAL 26 HOURS;
            """,
        ),
        ws.write(
            "sql/checks/completeness.sql",
            """
            -- events without payload, per kind; rows = failure
            SELECT kind, count(*) FILTER (WHERE payload IS NULL) AS null_payloads
            FROM events WHERE at::DATE = current_date - 1
            GROUP BY kind HAVING null_payloads > 0;
            """,
        ),
        ws.write(
            "sql/checks/validity.sql",
            """
            -- payloads that are not JSON objects, and timestamps in the future; rows = failure
            SELECT id, 'payload' AS problem FROM events
            WHERE at::DATE = current_date - 1 AND json_type(payload) <> 'OBJECT'
            UNION ALL
            SELECT id, 'future timestamp' FROM events WHERE at > now() + INTERVAL 5 MINUTES;
            """,
        ),
    )
    c.run(
        bash(
            "for f in sql/checks/*.sql; do printf '%s: ' $f; duckdb warehouse.duckdb < $f | wc -l; "
            "done",
            """
        sql/checks/completeness.sql: 0
        sql/checks/freshness.sql: 0
        sql/checks/validity.sql: 0
        sql/checks/volume.sql: 0
        """,
        )
    )
    c.say(
        "Four check files in `sql/checks/`, all passing on the current warehouse (no rows). "
        "The *new kind* check needs a `known_kinds` table first, so I left it out."
    )
    c.name("data quality checks")
    return b.save(c)


def _pipeline_cron(b: _Builder) -> str:
    c = b.start(PIPELINE, ago=18 * DAY + 7 * HOUR, model=HAIKU, thinking="off")
    c.user("cron expression for 06:15 on weekdays, Europe/Berlin time, the server runs UTC")
    c.say(
        """
        Plain cron has no time zones, so it depends on your scheduler:

        - **Scheduler supports `CRON_TZ`** (cronie, Kubernetes CronJob with `timeZone:`):
          ```
          CRON_TZ=Europe/Berlin
          15 6 * * 1-5
          ```
        - **UTC only:** 06:15 Berlin is 05:15 UTC in winter and 04:15 UTC in summer, so a
          single UTC expression is off by an hour half of the year. Either run at both times
          and let the job exit early when it's not 06:15 in Berlin, or accept the drift.

        Kubernetes (1.27+):
        ```yaml
        spec:
          schedule: "15 6 * * 1-5"
          timeZone: "Europe/Berlin"
        ```
        """
    )
    return b.save(c)


def _write_all(b: _Builder) -> None:
    """Every session, sources before their forks."""
    long_path, marks, server_files = _webapp_pagination(b)
    cursor = _webapp_cursor(b, long_path, marks["server"], server_files)
    with Session.open(cursor, final=True) as session:
        leaf = session.leaf_id
    assert leaf is not None
    _webapp_cursor_prisma(b, cursor, leaf)
    _webapp_lint_now(b)
    _webapp_favicon(b)
    _webapp_rate_limit(b)
    _webapp_openapi(b)
    _webapp_review_reminders(b)
    docker = _webapp_dockerfile(b)
    _webapp_websocket_leak(b)
    zones, zone_marks, zone_files = _cli_timezones(b)
    _cli_timezones_py311(b, zones, zone_marks["iso"], zone_files)
    _cli_markup(b)
    _cli_since_until(b)
    _cli_release(b)
    _cli_tail_cpu(b)
    _cli_completions(b)
    _infra_compose(b, docker)
    _infra_nginx(b)
    _infra_terraform(b)
    _infra_ci_cache(b)
    _notes_standup(b)
    _notes_blog(b)
    _notes_weekly(b)
    _notes_reading_list(b)
    _pipeline_slow_load(b)
    _pipeline_backfill(b)
    _pipeline_quality(b)
    _pipeline_cron(b)
    b.latest(_webapp_quick_question, gap=20)
