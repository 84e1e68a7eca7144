"""A hostile value in any field of any entry never raises, never hides a session (issue 24).

Each example takes a session with one entry of every kind pi writes, every field filled as pi
fills it, and puts one hostile value somewhere: a number too big for a float (``1e400``), ``-0``,
an integer past 2⁶⁴, a lone surrogate, nested arrays and objects, ``null``, a value of the wrong
type. The file then goes through the library (``Session``, the context, ``SessionManager``) and
every command that reads (``list``, ``inspect``, ``doctor``, ``export``, ``stats``): each must
answer (exit 0, or 1 with a one-line message), and ``pitui list`` must still list the session.
``-m slow`` runs 10,000 examples.
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pitui.cli import main
from pitui.core.context import build_session_context
from pitui.core.manager import SessionManager
from pitui.core.session import Session
from tests.core.sessiondata import HEADER, assistant, entry, user

CWD = "/home/ana/hostile"


TOOL_RESULT = {
    "role": "toolResult",
    "toolCallId": "call1",
    "toolName": "read",
    "content": [{"type": "text", "text": "x = 1"}],
    "isError": False,
    "timestamp": 1735689603000,
}
COMPACTION = {"summary": "the story so far", "firstKeptEntryId": "a1", "tokensBefore": 12345}
CUSTOM_MESSAGE = {"customType": "note", "content": "remember", "display": True, "details": {"k": 1}}


def template() -> list[dict[str, Any]]:
    """One entry of every kind pi writes, every field as pi fills it (a fresh copy each time)."""
    tool_call = {"type": "toolCall", "id": "call1", "name": "read", "arguments": {"path": "a.py"}}
    return copy.deepcopy(
        [
            {**HEADER, "cwd": CWD},
            user("u1", None, "fix the parser"),
            assistant(
                "a1",
                "u1",
                content=[
                    {"type": "thinking", "thinking": "hmm"},
                    {"type": "text", "text": "reading"},
                    tool_call,
                ],
            ),
            entry("message", "r1", "a1", 3, message=TOOL_RESULT),
            entry("model_change", "m1", "r1", 4, provider="openai", modelId="gpt-5"),
            entry("thinking_level_change", "t1", "m1", 5, thinkingLevel="high"),
            entry("compaction", "c1", "t1", 6, **COMPACTION),
            entry("label", "l1", "c1", 7, targetId="u1", label="start here"),
            entry("session_info", "s1", "l1", 8, name="Hostile session"),
            entry("custom", "x1", "s1", 9, customType="todo", data={"items": ["a", "b"]}),
            entry("custom_message", "x2", "x1", 10, **CUSTOM_MESSAGE),
            entry("branch_summary", "b1", "x2", 11, fromId="u1", summary="tried another way"),
            user("u2", "b1", "and now?", 12),
            assistant("a2", "u2", "done", 13),
        ]
    )


# Raw JSON text put where a value goes (some are not expressible as Python values: orjson
# would refuse to write them).
RAW_HOSTILE = ["1e400", "-1e400", "-0", "-0.0", "18446744073709551617", '"\\ud800"', '"\\udfff x"']
HOSTILE_VALUES: list[Any] = [
    None, True, 0, -1, 2**53 + 1, 1.5, "", " ", "x" * 3000, "\u202e\x1b[31m", [], [None],
    [[[[[]]]]], {}, {"a": {"b": {"c": [1, {"d": None}]}}}, ["\ud800"], {"v": "\udfff"},
]  # fmt: skip
RAW_MARK = "\x00RAW{}\x00"


def paths_of(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every place in ``value`` where a value sits (keys of objects, indexes of arrays)."""
    if isinstance(value, dict):
        for key, inner in value.items():
            yield (*prefix, key)
            yield from paths_of(inner, (*prefix, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            yield (*prefix, index)
            yield from paths_of(inner, (*prefix, index))


def put(value: Any, path: tuple[Any, ...], new: Any) -> None:
    for step in path[:-1]:
        value = value[step]
    value[path[-1]] = new


def dumps(obj: Any) -> str:
    """JSON as pi writes it (compact), with raw tokens spliced in and lone surrogates escaped."""
    text = json.dumps(obj, ensure_ascii=True, separators=(",", ":"))
    for index, raw in enumerate(RAW_HOSTILE):
        text = text.replace(json.dumps(RAW_MARK.format(index)), raw)
    return text


@st.composite
def hostile_session(draw: st.DrawFn) -> bytes:
    lines = template()
    # (entries, not the header: a header pi cannot read is the file-shape question of issue 20)
    index = draw(st.integers(min_value=1, max_value=len(lines) - 1))
    places = list(paths_of(lines[index]))
    path = draw(st.sampled_from(places))
    if draw(st.booleans()):
        new: Any = RAW_MARK.format(draw(st.integers(0, len(RAW_HOSTILE) - 1)))
    else:
        new = draw(st.sampled_from(HOSTILE_VALUES))
    put(lines[index], path, new)
    return "".join(dumps(line) + "\n" for line in lines).encode("ascii")


@contextlib.contextmanager
def store_with(data: bytes) -> Iterator[Path]:
    """An agent dir holding the session, its own cache and config (the environment set)."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        folder = root / "agent" / "sessions" / "--home-ana-hostile--"
        folder.mkdir(parents=True)
        path = folder / "2025-01-01T00-00-00-000Z_0195aaaa-0000-7000-8000-000000000001.jsonl"
        path.write_bytes(data)
        saved = {key: os.environ.get(key) for key in ENV_KEYS}
        os.environ.update(
            PI_CODING_AGENT_DIR=str(root / "agent"),
            XDG_CACHE_HOME=str(root / "cache"),
            XDG_CONFIG_HOME=str(root / "config"),
        )
        try:
            yield path
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value


ENV_KEYS = ("PI_CODING_AGENT_DIR", "XDG_CACHE_HOME", "XDG_CONFIG_HOME")
COMMANDS = [
    ["inspect", "{path}"],
    ["inspect", "--json", "{path}"],
    ["doctor", "{path}"],
    ["doctor", "--json", "{path}"],
    ["export", "{path}", "-f", "md"],
    ["export", "{path}", "-f", "html"],
    ["export", "{path}", "-f", "jsonl"],
    ["stats", "--all"],
]


def through_the_library(path: Path) -> None:
    with Session.open(str(path)) as session:
        build_session_context(session)
        session.stats()
        for meta in session.branch():
            session.raw(meta)
    manager = SessionManager.open(str(path))
    manager.get_branch()
    manager.get_tree()
    manager.get_leaf_id()
    manager.build_session_context()
    manager.get_entries()


def check(data: bytes, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    with store_with(data) as path:
        through_the_library(path)
        assert main(["list", "--all", "--json"]) == 0
        listed = json.loads(capsysbinary.readouterr().out)
        assert [Path(item["path"]).name for item in listed] == [path.name], "the session is hidden"
        for argv in COMMANDS:
            code = main([part.format(path=path) for part in argv])
            err = capsysbinary.readouterr().err
            assert code in (0, 1), (argv, code, err)
            assert b"Traceback" not in err and err.count(b"\n") <= 1, (argv, err)


@settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(data=hostile_session())
def test_a_hostile_value_anywhere_never_raises_nor_hides(
    data: bytes, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    check(data, capsysbinary)


@pytest.mark.slow
@settings(
    max_examples=10_000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(data=hostile_session())
def test_a_hostile_value_anywhere_many_times(
    data: bytes, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    check(data, capsysbinary)


def test_the_template_is_a_session_pi_would_write(
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    data = "".join(dumps(line) + "\n" for line in template()).encode()
    check(data, capsysbinary)
    with store_with(data) as path, Session.open(str(path)) as session:
        assert not session.problems and len(session.entries) == len(template()) - 1
