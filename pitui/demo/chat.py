"""One demo session being written: messages with believable timing, token usage and cost.

:class:`Chat` turns what a scenario says happens (the user asks, the model answers and calls
tools, time passes) into the entries pi would have written, through
:class:`pitui.core.manager.SessionManager` with the builder's clock and random source.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from pitui.core.manager import SessionManager
from pitui.demo.workspace import Op, Workspace, prose

MINUTE = 60.0


@dataclass(frozen=True, slots=True)
class Model:
    provider: str
    api: str
    id: str
    # US$ per million tokens: input, output, cache read, cache write (as pi's model registry)
    prices: tuple[float, float, float, float]


# The models a scenario names, by id.
MODELS: Mapping[str, Model] = {
    model.id: model
    for model in (
        Model("anthropic", "anthropic-messages", "claude-sonnet-4-5", (3, 15, 0.3, 3.75)),
        Model("anthropic", "anthropic-messages", "claude-opus-4-1", (15, 75, 1.5, 18.75)),
        Model("anthropic", "anthropic-messages", "claude-haiku-4-5", (1, 5, 0.1, 1.25)),
        Model("openai", "openai-responses", "gpt-5", (1.25, 10, 0.125, 0)),
        Model("google", "google-generative-ai", "gemini-2.5-pro", (1.25, 10, 0.31, 0)),
    )
}


class Clock:
    """Simulated time in whole milliseconds; the SessionManager reads it for every timestamp."""

    def __init__(self, ms: int) -> None:
        self.ms = ms

    def __call__(self) -> float:
        return self.ms / 1000

    def advance(self, seconds: float) -> None:
        self.ms += max(1, round(seconds * 1000))


_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


class Chat:
    """One session being written: messages with believable timing, token usage and cost."""

    def __init__(
        self,
        sm: SessionManager,
        clock: Clock,
        rng: random.Random,
        model: Model,
        files: Mapping[str, str] | None = None,
    ) -> None:
        self.sm = sm
        self.clock = clock
        self.rng = rng
        self.model = model
        self.ws = Workspace(files or {})
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

    def user(self, content: str | list[dict[str, Any]]) -> str:
        """The user thinks, types and sends a message (a longer one takes longer)."""
        text = content if isinstance(content, str) else ""
        self.wait(6 + len(text) / 12, 18 + len(text) / 6)
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
            content.append({"type": "thinking", "thinking": prose(thinking)})
        if text:
            content.append({"type": "text", "text": prose(text)})
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

    def run(self, *ops: Op, text: str | None = None, thinking: str | None = None) -> str:
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
            last = self._result(call_id, op)
        return last

    def _result(self, call_id: str, op: Op) -> str:
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

    def switch_model(self, model: Model) -> str:
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

    def todos(self, items: Iterable[Mapping[str, Any]]) -> str:
        """The ``todo-tracker`` extension's state (the example renderer plug-in draws it):
        ``items`` have a ``text``, ``done`` and optional ``tags``."""
        todos: list[dict[str, Any]] = []
        for number, item in enumerate(items, 1):
            todo: dict[str, Any] = {"id": number, "text": item["text"], "done": item["done"]}
            if "tags" in item:
                todo["tags"] = item["tags"]
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
        text = prose(summary)
        text += "\n\n<read-files>\n" + "\n".join(self.read_files) + "\n</read-files>"
        text += "\n\n<modified-files>\n" + "\n".join(self.modified_files) + "\n</modified-files>"
        entry = self.sm.append_compaction(text, kept, before, details, False, retained_tail=tail)
        kept_tokens = sum(m.length for m in metas[start:]) // 4
        self.context = 0
        self.pending = self.rng.randint(4200, 5200) + len(text) // 4 + kept_tokens
        return entry

    def back_to(self, target: str, summary: str | None = None, details: Any = None) -> str:
        """The user goes back in ``/tree`` to ``target``; the next entry starts a new branch
        there. With a ``summary``, pi's ``branch_summary`` of the branch left behind is
        appended there (its id is returned)."""
        if summary is None:
            self.sm.branch(target)
            return ""
        return self.sm.branch_with_summary(target, prose(summary), details, False)

    def note(self, custom_type: str, content: str, *, display: bool, details: Any = None) -> str:
        """An extension's ``custom_message`` (in context; shown in the chat when ``display``)."""
        self.clock.advance(self.rng.uniform(0.05, 0.4))
        self.pending += len(content) // 4
        return self.sm.append_custom_message_entry(custom_type, content, display, details)
