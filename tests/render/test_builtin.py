"""The built-in renderers: every fixture entry drawn, snapshots per type and role, plug-ins, limits.

Snapshots live in ``tests/render/snapshots/`` as the plain text of a recording console 80 cells
wide. After an intended change, regenerate them with ``PITUI_UPDATE_SNAPSHOTS=1`` and review the
diff.
"""

from __future__ import annotations

import base64
import importlib
import importlib.metadata
import io
import os
import re
import struct
import sys
import time
import tomllib
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console, Group, RenderableType
from rich.text import Text

from pitui.core.context import build_session_context
from pitui.core.models import EntryType, Role
from pitui.core.session import Session
from pitui.render import (
    BUILTIN_ENTRY_POINT,
    BUILTIN_TIME_BUDGET,
    ENTRY_POINT_GROUP,
    RenderContext,
    RenderEntry,
    RendererRegistry,
    default_registry,
    message_entry,
    register_builtins,
    render_messages,
    tool_calls_by_id,
)
from pitui.render.images import image_info, image_placeholder
from pitui.render.parts import (
    COMMON_LEXERS,
    OutputBlock,
    cut_text,
    fold_cells,
    markdown_block,
    warm_up,
)
from tests.conftest import CORPORA, FIXTURES, REPO, fixture_by_scenario, fixture_sessions
from tests.render.test_safe_text import assert_clean, render

SNAPSHOTS = Path(__file__).resolve().parent / "snapshots"
UPDATE = os.environ.get("PITUI_UPDATE_SNAPSHOTS") == "1"
EXAMPLE = REPO / "examples" / "pitui-todo-renderer"

# Any escape sequence in coloured output must be a plain SGR (colour/attribute) sequence.
ESCAPE = re.compile(r"\x1b(\[[0-9;]*m)?")


# Times are shown in local time: the zone is pinned so snapshots do not depend on the machine.
pytestmark = pytest.mark.usefixtures("utc")


def registry() -> RendererRegistry:
    return default_registry(discover=False)


def draw(renderable: RenderableType, width: int = 100) -> str:
    return render(renderable, width=width)


def snapshot_text(renderable: RenderableType, width: int = 80) -> str:
    console = Console(record=True, width=width, file=io.StringIO(), color_system=None)
    console.print(renderable)
    return console.export_text()


def row_text(row: Text, width: int = 80) -> str:
    """A one-line form as a list widget draws it (``Console.print`` would re-wrap it)."""
    console = Console(width=width, file=io.StringIO(), color_system=None)
    lines = console.render_lines(row, console.options, pad=False)
    assert len(lines) == 1
    return "".join(segment.text for segment in lines[0])


def check_snapshot(name: str, text: str) -> None:
    path = SNAPSHOTS / f"builtin-{name}.txt"
    if UPDATE:
        SNAPSHOTS.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return
    assert path.exists(), f"no snapshot {path.name}: run with PITUI_UPDATE_SNAPSHOTS=1"
    assert text == path.read_text(encoding="utf-8"), f"snapshot {path.name} differs"


def is_known(entry: RenderEntry) -> bool:
    if entry.type not in EntryType.ALL:
        return False
    return entry.type != "message" or entry.role in Role.ALL


# --- every fixture entry ----------------------------------------------------------------------


def _session_files() -> list[Any]:
    params = [
        pytest.param(path, id=f"{corpus}/{record['scenario']}")
        for corpus in CORPORA
        for path, record in fixture_sessions(corpus)
    ]
    params += [
        pytest.param(path, id=f"pi-legacy/{path.stem}")
        for path in sorted((FIXTURES / "pi-legacy").glob("*.jsonl"))
    ]
    return params


def drawn_text(console: Console, renderable: RenderableType) -> str:
    """All the text a renderable sends to the terminal (quicker than printing it)."""
    return "".join(segment.text for segment in console.render(renderable, console.options))


@pytest.mark.parametrize("path", _session_files())
def test_every_entry_and_context_message_renders(path: Path) -> None:
    session = Session.open(path)
    reg = registry()
    ctx = RenderContext(width=100, session=session)
    console = Console(width=100, file=io.StringIO(), color_system=None)
    raws = [session.raw(meta) for meta in session.entries]
    for raw, drawn in zip(raws, render_messages(reg, raws, ctx), strict=True):
        entry = reg.entry(raw)
        output = drawn_text(console, drawn)
        assert_clean(output)
        if is_known(entry):
            found = reg.lookup(entry)
            assert found is not None and found.name.startswith("builtin"), entry
            assert " raw entry" not in output and "⚠ not a valid" not in output, output
        line = reg.render_compact(entry, ctx).plain
        assert line.strip() and "\n" not in line
    context = build_session_context(session)
    for drawn in render_messages(reg, context.messages, ctx, ids=context.sources):
        output = drawn_text(console, drawn)
        assert_clean(output)
        assert " raw entry" not in output
    assert reg.failures == []


# --- snapshots --------------------------------------------------------------------------------

Pick = Callable[[dict[str, Any]], bool]


def role(name: str, test: Callable[[dict[str, Any]], bool] = lambda m: True) -> Pick:
    def pick(raw: dict[str, Any]) -> bool:
        message = raw.get("message")
        return (
            raw.get("type") == "message"
            and isinstance(message, dict)
            and message.get("role") == name
            and test(message)
        )

    return pick


def of_type(name: str, test: Callable[[dict[str, Any]], bool] = lambda r: True) -> Pick:
    return lambda raw: raw.get("type") == name and test(raw)


def text_of(message: Mapping[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    return " ".join(block.get("text", "") for block in content or [] if isinstance(block, dict))


def has_block(kind: str) -> Callable[[dict[str, Any]], bool]:
    return lambda m: any(
        isinstance(b, dict) and b.get("type") == kind for b in m.get("content") or []
    )


# name: (corpus, scenario, which entry, expanded)
FIXTURE_CASES: dict[str, tuple[str, str, Pick, bool]] = {
    "user": ("pi-written", "real-tools", role("user"), False),
    "user-image": ("pi-written-1.6.0", "images", role("user", has_block("text")), False),
    "assistant": ("pi-written", "real-tools", role("assistant", has_block("thinking")), False),
    "assistant-thinking-expanded": (
        "pi-written", "real-tools", role("assistant", has_block("thinking")), True,
    ),
    "assistant-markdown": (
        "pi-written", "real-tools", role("assistant", lambda m: "## Summary" in text_of(m)), False,
    ),
    "assistant-error": (
        "pi-written", "stop-reasons", role("assistant", lambda m: m.get("stopReason") == "error"),
        False,
    ),
    "assistant-aborted": (
        "pi-written", "stop-reasons",
        role("assistant", lambda m: m.get("stopReason") == "aborted"), False,
    ),
    "assistant-length": (
        "pi-written", "stop-reasons", role("assistant", lambda m: m.get("stopReason") == "length"),
        False,
    ),
    "toolResult-edit": (
        "pi-written", "real-tools",
        role("toolResult", lambda m: isinstance(m.get("details"), dict) and "diff" in m["details"]),
        False,
    ),
    "toolResult-error": (
        "pi-written", "real-tools",
        role("toolResult", lambda m: m.get("isError") is True and m.get("toolName") == "bash"),
        False,
    ),
    "toolResult-truncated": (
        "pi-written", "large-content",
        role("toolResult", lambda m: "truncation" in (m.get("details") or {})), False,
    ),
    "toolResult-image": ("pi-written-1.6.0", "images", role("toolResult"), False),
    "bashExecution": (
        "pi-written", "bash-execution", role("bashExecution", lambda m: bool(m.get("truncated"))),
        False,
    ),
    "bashExecution-excluded": (
        "pi-written", "bash-execution",
        role("bashExecution", lambda m: bool(m.get("excludeFromContext"))), False,
    ),
    "bashExecution-cancelled": (
        "pi-written", "bash-execution", role("bashExecution", lambda m: bool(m.get("cancelled"))),
        False,
    ),
    "system": (
        "pi-written-1.6.0", "v1-features", role("system", lambda m: "toolsRemoved" in m), False,
    ),
    "system-expanded": (
        "pi-written-1.6.0", "v1-features", role("system", lambda m: "toolsRemoved" in m), True,
    ),
    "model_change": ("pi-written", "model-thinking-changes", of_type("model_change"), False),
    "thinking_level_change": (
        "pi-written", "model-thinking-changes", of_type("thinking_level_change"), False,
    ),
    "compaction": ("pi-written-1.6.0", "v1-compaction-checkpoint", of_type("compaction"), False),
    "branch_summary": (
        "pi-written", "branch-summaries",
        of_type("branch_summary", lambda r: r.get("fromHook") is True), False,
    ),
    "custom": (
        "pi-written", "extensions",
        of_type("custom", lambda r: "numbers" in (r.get("data") or {})), False,
    ),
    "custom_message": (
        "pi-written", "extensions",
        of_type("custom_message", lambda r: r.get("display") is False), False,
    ),
    "label": ("pi-written", "labels", of_type("label", lambda r: "ansi" in str(r.get("label"))),
              False),
    "label-cleared": ("pi-written", "labels", of_type("label", lambda r: "label" not in r), False),
    "session_info": ("pi-written", "terminal-hostile", of_type("session_info"), False),
    "context_edit": (
        "pi-written-1.6.0", "v1-features",
        of_type("context_edit", lambda r: r.get("replacement") is not None), False,
    ),
    "context_edit-remove": (
        "pi-written-1.6.0", "v1-features",
        of_type("context_edit", lambda r: r.get("replacement") is None), False,
    ),
    "usage": ("pi-written-1.6.0", "v1-features", of_type("usage"), False),
}  # fmt: skip


Found = tuple[Session, list[dict[str, Any]], dict[str, Any]]


def fixture_entry(corpus: str, scenario: str, pick: Pick) -> Found:
    session = Session.open(fixture_by_scenario(corpus, scenario))
    raws = [session.raw(meta) for meta in session.entries]
    for raw in raws:
        if pick(raw):
            return session, raws, raw
    raise LookupError(f"no such entry in {corpus}/{scenario}")


@pytest.mark.parametrize("name", sorted(FIXTURE_CASES))
def test_snapshot_of_fixture_entry(name: str) -> None:
    corpus, scenario, pick, expanded = FIXTURE_CASES[name]
    session, raws, raw = fixture_entry(corpus, scenario, pick)
    reg = registry()
    ctx = RenderContext(width=80, session=session, expanded=expanded)
    message = raw.get("message")
    if isinstance(message, dict) and message.get("role") == "toolResult":
        ctx = RenderContext(
            width=80, session=session, tool_call=tool_calls_by_id(raws)[message["toolCallId"]]
        )
    text = snapshot_text(reg.render(reg.entry(raw), ctx))
    assert reg.failures == []
    check_snapshot(name, text)


# Message-only roles exist in built contexts, not in entries.
CONTEXT_CASES: dict[str, tuple[str, str, str]] = {
    "context-custom": ("pi-written", "extensions", "custom"),
    "context-branchSummary": ("pi-written", "branch-summaries", "branchSummary"),
    "context-compactionSummary": ("pi-written", "compaction", "compactionSummary"),
}


@pytest.mark.parametrize("name", sorted(CONTEXT_CASES))
def test_snapshot_of_context_message(name: str) -> None:
    corpus, scenario, wanted = CONTEXT_CASES[name]
    session = Session.open(fixture_by_scenario(corpus, scenario))
    messages = build_session_context(session).messages
    message = next(m for m in messages if m.get("role") == wanted)
    reg = registry()
    [drawn] = render_messages(reg, [message], RenderContext(width=80))
    check_snapshot(name, snapshot_text(drawn))


RETAINED_COMPACTION = {
    "type": "compaction", "id": "c0ffee01", "parentId": "a1",
    "timestamp": "2025-03-01T10:00:00.000Z", "summary": "## Goal\nShip it.", "tokensBefore": 12500,
    "retainedTail": [
        {"role": "user", "content": "latest request"},
        {"role": "assistant", "content": [{"type": "text", "text": "latest reply"}]},
    ],
    "details": {"readFiles": ["a.py"], "modifiedFiles": []},
}  # fmt: skip
SYNTHETIC_CASES: dict[str, dict[str, Any]] = {
    "compaction-retained": RETAINED_COMPACTION,
    "hookMessage": message_entry(
        {
            "role": "hookMessage",
            "customType": "old-ext",
            "content": "from a v2 file",
            "display": True,
            "timestamp": 1735689600000,
        },
    ),
    "fallback-unknown-type": {"type": "mystery", "id": "m1", "payload": "[bold red]x[/] \x1b[2J"},
    "fallback-unknown-role": message_entry({"role": "narrator", "content": "Once upon a time"}),
    "fallback-invalid-fields": {
        "type": "model_change",
        "id": "m2",
        "provider": 5,
        "modelId": "x",
    },
    "unknown-block-and-extras": message_entry(
        {
            "role": "assistant",
            "content": [{"type": "audio", "data": "AAAA"}],
            "stopReason": "deferred",
            "responseModel": "model-b",
            "model": "model-a",
            "provider": "p",
            "extraField": {"nested": True},
        },
    ),
}


@pytest.mark.parametrize("name", sorted(SYNTHETIC_CASES))
def test_snapshot_of_synthetic_entry(name: str) -> None:
    reg = registry()
    text = snapshot_text(reg.render(reg.entry(SYNTHETIC_CASES[name]), RenderContext(width=80)))
    assert reg.failures == []
    check_snapshot(name, text)


@pytest.mark.parametrize("corpus", CORPORA)
def test_snapshot_of_terminal_hostile_preview(corpus: str) -> None:
    """What the picker's preview shows: the built context, nothing interpreted, all visible."""
    session = Session.open(fixture_by_scenario(corpus, "terminal-hostile"))
    context = build_session_context(session)
    reg = registry()
    drawn = Group(*render_messages(reg, context.messages, RenderContext(width=80)))
    text = snapshot_text(drawn)
    assert_clean(text)
    literals = ("[bold red]x[/]", "[link=https://example.com/phish]click me[/link]",
                "␛[31mred text␛[0m", "<RLO>", "<script>alert('xss')</script>", "␇")  # fmt: skip
    for literal in literals:
        assert literal in text, literal
    coloured = render(drawn, color_system="truecolor", width=80)
    assert {m.group() for m in ESCAPE.finditer(coloured)} <= {
        m.group() for m in re.finditer(r"\x1b\[[0-9;]*m", coloured)
    }, "an escape sequence other than SGR reached the output"
    assert "\x1b]" not in coloured  # no OSC (title, hyperlink)
    check_snapshot(f"preview-terminal-hostile-{corpus}", text)


def test_snapshot_of_compact_forms() -> None:
    reg = registry()
    lines: list[str] = []
    for corpus, scenario in (
        ("pi-written", "real-tools"),
        ("pi-written-1.6.0", "v1-features"),
        ("pi-written", "extensions"),
        ("pi-written", "labels"),
        ("pi-written", "compaction"),
        ("pi-written", "bash-execution"),
        ("pi-written", "stop-reasons"),
    ):
        session = Session.open(fixture_by_scenario(corpus, scenario))
        raws = [session.raw(meta) for meta in session.entries]
        calls = tool_calls_by_id(raws)
        lines.append(f"== {corpus}/{scenario}")
        for raw in raws:
            ctx = RenderContext(width=80)
            message = raw.get("message")
            if isinstance(message, dict) and message.get("toolCallId") in calls:
                ctx = RenderContext(width=80, tool_call=calls[message["toolCallId"]])
            row = reg.render_compact(reg.entry(raw), ctx)
            assert "\n" not in row.plain
            lines.append(row_text(row))
    check_snapshot("compact-forms", "\n".join(lines) + "\n")


# --- the example plug-in ----------------------------------------------------------------------


@pytest.fixture
def example_plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The example installed as pip would leave it: a dist-info with the entry points declared
    in its pyproject.toml, and its package importable."""
    project = tomllib.loads((EXAMPLE / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    entry_points = project["entry-points"][ENTRY_POINT_GROUP]
    site = tmp_path / "site"
    info = site / f"{project['name'].replace('-', '_')}-{project['version']}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n"
    )
    lines = "".join(f"{name} = {value}\n" for name, value in entry_points.items())
    (info / "entry_points.txt").write_text(f"[{ENTRY_POINT_GROUP}]\n{lines}")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.syspath_prepend(str(EXAMPLE / "src"))
    importlib.invalidate_caches()
    yield project["name"]
    sys.modules.pop("pitui_todo_renderer", None)
    importlib.invalidate_caches()


def test_example_plugin_draws_todo_tracker_entries(example_plugin: str) -> None:
    reg = default_registry()
    listed = [p for p in reg.plugins if p.distribution == example_plugin]
    assert [(p.name, p.value) for p in listed] == [("todo-tracker", "pitui_todo_renderer:register")]
    assert "pitui_todo_renderer" not in sys.modules  # listed, not imported yet

    session = Session.open(fixture_by_scenario("pi-written", "extensions"))
    raws = [session.raw(meta) for meta in session.entries]
    todos = [raw for raw in raws if raw["type"] == "custom" and raw["customType"] == "todo-tracker"]
    ctx = RenderContext(width=80, session=session)
    drawn = [snapshot_text(reg.render(reg.entry(raw), ctx)) for raw in todos]
    assert drawn[0] == "☑ todo list · 0/0 done\n  (no items)\n"
    assert drawn[1].splitlines() == [
        "☑ todo list · 0/3 done",
        "  ☐ Split extract/transform/load  #refactor",
        "  ☐ Idempotent loads  due 2025-04-01",
        "  ☐ Alerting → PagerDuty  severity: high  owners: alice, bob",
    ]
    assert drawn[2].splitlines() == ["☑ todo list · 1/3 done", "  ☑ #1", "  ☐ #2", "  ☐ #3"]
    found = reg.lookup(reg.entry(todos[0]))
    assert found is not None and found.plugin == "todo-tracker" and found.name == "todo checklist"
    assert (
        reg.render_compact(reg.entry(todos[2]), ctx).plain == "[todo-tracker] 1/3 done · next: #2"
    )

    # other shapes of the same customType are still drawn by the built-ins
    message = next(raw for raw in raws if raw["type"] == "custom_message")
    found = reg.lookup(reg.entry(message))
    # a built-in: registered directly from a source tree, through its entry point when installed
    assert found is not None and found.plugin in (None, "builtin")
    # and another extension's custom entries too
    other = next(raw for raw in raws if raw.get("customType") == "git-checkpoint")
    assert "extension data" in snapshot_text(reg.render(reg.entry(other), ctx))
    assert reg.failures == [] and reg.warnings == []


def test_example_plugin_hands_unknown_shapes_to_the_fallback(example_plugin: str) -> None:
    reg = default_registry()
    raw = {"type": "custom", "id": "t1", "customType": "todo-tracker", "data": "not a list"}
    text = snapshot_text(reg.render(reg.entry(raw), RenderContext(width=80)))
    assert text.startswith(
        "todo-tracker entry without a todo list\n[custom] todo-tracker raw entry"
    )


# --- isolation, registration -----------------------------------------------------------------


def test_raising_renderer_yields_fallback_and_error_line() -> None:
    reg = registry()

    def explode(entry: RenderEntry, ctx: RenderContext) -> RenderableType:
        raise RuntimeError("boom \x1b[2J")

    reg.register(explode, type="message", role="user", name="exploder")
    user = {"type": "message", "id": "u1", "message": {"role": "user", "content": "hello"}}
    lines = draw(reg.render(reg.entry(user), RenderContext())).splitlines()
    assert lines[0] == "⚠ renderer 'exploder' failed: RuntimeError: boom ␛[2J"
    assert lines[1] == "[user] raw entry"
    failure = reg.failures[-1]
    assert (failure.renderer, failure.entry_id, failure.when) == ("exploder", "u1", "call")
    # the other built-ins are unaffected
    reply = message_entry({"role": "assistant", "content": [{"type": "text", "text": "hi"}]})
    assert draw(reg.render(reg.entry(reply), RenderContext())).startswith("assistant\n  hi")


def builtin_names(reg: RendererRegistry) -> list[str]:
    return [r.name for r in reg.registrations() if r.name.startswith("builtin ")]


def test_builtins_are_registered_once() -> None:
    alone = builtin_names(registry())
    assert len(alone) == len(set(alone)) == 19
    own = importlib.metadata.EntryPoint(
        name="builtin", value=BUILTIN_ENTRY_POINT, group=ENTRY_POINT_GROUP
    )
    via_entry_point = default_registry(entry_points=[own])
    assert [p.value for p in via_entry_point.plugins] == [BUILTIN_ENTRY_POINT]
    assert sorted(builtin_names(via_entry_point)) == sorted(alone)
    # and the pyproject declares exactly that entry point
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["entry-points"][ENTRY_POINT_GROUP] == {"builtin": BUILTIN_ENTRY_POINT}


def test_builtins_work_without_a_model_factory() -> None:
    reg = RendererRegistry(discover=False)
    register_builtins(reg)
    user = message_entry({"role": "user", "content": "plain registry"})
    assert draw(reg.render(reg.entry(user), RenderContext())).startswith("user\n  plain registry")


def test_every_builtin_has_a_one_line_compact_form() -> None:
    reg = registry()
    samples: list[dict[str, Any]] = [
        SYNTHETIC_CASES["compaction-retained"],
        SYNTHETIC_CASES["hookMessage"],
        message_entry({"role": "custom", "customType": "x", "content": "c", "display": True}),
        message_entry({"role": "branchSummary", "summary": "b", "fromId": "root"}),
        message_entry({"role": "compactionSummary", "summary": "c", "tokensBefore": 1500}),
    ]
    for corpus, scenario, pick, _ in FIXTURE_CASES.values():
        samples.append(fixture_entry(corpus, scenario, pick)[2])
    covered = set()
    for raw in samples:
        entry = reg.entry(raw)
        found = reg.lookup_compact(entry)
        assert found is not None and found.name.startswith("builtin")
        covered.add(found.name)
        row = reg.render_compact(entry, RenderContext(width=40))
        assert row.plain and "\n" not in row.plain and row.no_wrap
    assert covered == set(builtin_names(reg))


# --- context messages and tool calls ---------------------------------------------------------


def test_tool_results_are_paired_with_their_calls() -> None:
    call = {"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "src/a.py"}}
    messages: list[dict[str, Any]] = [
        {"role": "assistant", "content": [call], "stopReason": "toolUse"},
        {"role": "toolResult", "toolCallId": "c1", "toolName": "read",
         "content": [{"type": "text", "text": "x = 1\n"}], "isError": False},
        {"role": "toolResult", "toolCallId": "c9", "toolName": "bash",
         "content": [{"type": "text", "text": "oops"}], "isError": True},
    ]  # fmt: skip
    reg = registry()
    assert tool_calls_by_id(messages) == {"c1": call}
    drawn = render_messages(reg, messages, RenderContext(width=80), ids=["a", "b", "c"])
    assert draw(drawn[0]).splitlines()[1] == "  → read src/a.py"
    assert draw(drawn[1]).splitlines()[:2] == ["✓ read src/a.py", "  x = 1"]
    assert draw(drawn[2]).splitlines()[:2] == ["✗ bash · failed · c9", "  oops"]
    # a call from outside the list, e.g. an earlier part of the session
    make = {"type": "toolCall", "id": "c9", "name": "bash", "arguments": {"command": "make"}}
    drawn = render_messages(reg, messages[2:], RenderContext(), tool_calls={"c9": make})
    assert draw(drawn[0]).startswith("✗ bash $ make · failed\n")


def test_message_entry_wraps_a_context_message() -> None:
    message = {"role": "branchSummary", "summary": "s", "fromId": "root"}
    assert message_entry(message) == {"type": "message", "message": message}
    assert message_entry(message, entry_id="u#3")["id"] == "u#3"


# --- folding and "show all" -------------------------------------------------------------------


def test_thinking_is_one_line_until_expanded() -> None:
    thought = "first line of thought\n" + "\n".join(f"step {i}" for i in range(30))
    raw = message_entry(
        {"role": "assistant", "content": [{"type": "thinking", "thinking": thought}]}
    )
    reg = registry()
    folded = draw(reg.render(reg.entry(raw), RenderContext(width=80))).splitlines()
    assert len(folded) == 2
    assert folded[1].startswith(f"  ∴ thinking · {len(thought):,} characters · first line of")
    expanded = draw(reg.render(reg.entry(raw), RenderContext(width=80, expanded=True)))
    assert "step 29" in expanded and len(expanded.splitlines()) > 30


def big_output(size: int) -> str:
    line = "2025-03-10 12:00:01 \x1b[31mINFO\x1b[0m handled in 12 ms — 日本語 ✓\n"
    return (line * (size // len(line) + 1))[:size]


def test_five_megabyte_tool_output_is_folded_fast_and_shown_whole_on_request() -> None:
    output = big_output(5_000_000)
    messages: list[dict[str, Any]] = [
        {"role": "toolResult", "toolCallId": "c1", "toolName": "bash",
         "content": [{"type": "text", "text": output + "the end"}], "isError": False},
    ]  # fmt: skip
    reg = registry()
    console = Console(width=100, file=io.StringIO())
    start = time.process_time()
    [folded] = render_messages(reg, messages, RenderContext(width=100))
    lines = console.render_lines(folded, console.options, pad=False)
    assert time.process_time() - start < 0.5
    text = "\n".join("".join(seg.text for seg in line) for line in lines)
    assert len(lines) < 30 and "earlier lines (show all)" in text and "the end" in text
    assert_clean(text)

    start = time.process_time()
    [whole] = render_messages(reg, messages, RenderContext(width=100, expanded=True))
    lines = console.render_lines(whole, console.options, pad=False)
    assert time.process_time() - start < BUILTIN_TIME_BUDGET / 2
    assert len(lines) > output.count("\n")
    assert reg.failures == []  # in particular, not marked slow


def test_long_line_and_long_text_are_cut_before_parsing() -> None:
    reg = registry()
    line = "word " * 12_000  # a 60,000-character line
    raw = message_entry({"role": "user", "content": line})
    folded = draw(reg.render(reg.entry(raw), RenderContext(width=100)))
    assert "54,000 more characters (show all)" in folded
    assert len(folded.splitlines()) < 80
    whole = draw(reg.render(reg.entry(raw), RenderContext(width=100, expanded=True)))
    assert whole.count("word") == 12_000
    # past MARKDOWN_MAX_CHARS, even "show all" draws plain text instead of parsing Markdown
    huge = message_entry({"role": "user", "content": "*x* " * 50_000})
    shown = draw(reg.render(reg.entry(huge), RenderContext(expanded=True)))
    assert "too long for Markdown" in shown and "*x* *x*" in shown


@pytest.mark.parametrize("text", [">" * 25 + " deep quote", "- " * 30 + "deep quote"])
def test_markdown_nested_past_the_parsers_limit_is_shown_as_plain_text(text: str) -> None:
    # markdown-it stops at 20 levels and drops what is deeper: the message drew nothing at all
    reg = registry()
    raw = message_entry({"role": "user", "content": text})
    shown = draw(reg.render(reg.entry(raw), RenderContext(width=100)))
    assert "deep quote" in shown and "nested too deeply for Markdown" in shown
    shallow = message_entry({"role": "user", "content": "> > quote"})
    assert "nested too deeply" not in draw(reg.render(reg.entry(shallow), RenderContext()))


@pytest.mark.parametrize("corpus", CORPORA)
@pytest.mark.parametrize("scenario", ["terminal-hostile", "large-content", "lone-surrogates"])
def test_hostile_and_large_fixtures_render_quickly_and_cleanly(corpus: str, scenario: str) -> None:
    session = Session.open(fixture_by_scenario(corpus, scenario))
    raws = [session.raw(meta) for meta in session.entries]
    reg = registry()
    start = time.process_time()
    for ctx in (RenderContext(width=100, session=session),
                RenderContext(width=100, session=session, expanded=True)):  # fmt: skip
        for drawn in render_messages(reg, raws, ctx):
            assert_clean(draw(drawn))
        for drawn in render_messages(reg, build_session_context(session).messages, ctx):
            assert_clean(draw(drawn))
    assert time.process_time() - start < 5.0
    assert reg.failures == []


# --- pieces -----------------------------------------------------------------------------------


def test_markdown_is_parsed_but_never_markup_html_or_hidden_links() -> None:
    text = (
        "[bold red]x[/] <script>alert(1)</script> \u202eevil\n"
        "[click](https://example.com/phish)\n\n```python\ndef f():\n    return 1\n```\n"
    )
    plain = draw(markdown_block(text), width=80)
    assert "[bold red]x[/] <script>alert(1)</script> <RLO>evil" in plain
    assert "click (https://example.com/phish)" in plain
    assert "def f():" in plain
    coloured = render(markdown_block(text), color_system="truecolor", width=80)
    assert "\x1b]8;" not in coloured
    code_line = next(line for line in coloured.splitlines() if "def" in line)
    assert "\x1b[" in code_line  # highlighted


def test_warm_up_prepares_the_common_lexers() -> None:
    parts_module = importlib.import_module("pitui.render.parts")
    parts_module._LEXER_CACHE.clear()
    warm_up()
    cache = parts_module._LEXER_CACHE
    assert set(COMMON_LEXERS) <= set(cache) and all(cache[name] for name in COMMON_LEXERS)
    warm_up(["no-such-language"])
    assert cache["no-such-language"] is None  # unknown names are remembered as plain text


def test_cut_text_marks_what_is_hidden() -> None:
    assert cut_text("abc", 10) == ("abc", None)
    assert cut_text("abcdef", 4) == ("abcd", "… 2 more characters (show all)")
    assert cut_text("a\nb\nc\n", None, 2) == ("a\nb", "… 1 more line (show all)")
    assert cut_text("a\nb\nc\nd", None, 2, tail=True) == ("c\nd", "… 2 earlier lines (show all)")
    assert cut_text("abcdef", 4, tail=True) == ("cdef", "… 2 earlier characters (show all)")


def test_output_block_folds_at_the_width_and_shows_symbols() -> None:
    console = Console(width=10, file=io.StringIO(), color_system=None)
    block = OutputBlock("0123456789abcdef\n日本語日本語\r\nbell\x07\tend\n\n")
    rows = ["".join(s.text for s in line) for line in console.render_lines(block, pad=False)]
    assert rows == ["0123456789", "abcdef", "日本語日本", "語", "bell␇   en", "d", ""]
    assert fold_cells("日本語ab", 3) == ["日", "本", "語a", "b"]
    assert fold_cells("x", 0) == ["x"]


# A JPEG whose frame header comes after a 20 kB APP1 segment (an EXIF thumbnail, say).
def _jpeg(width: int, height: int, padding: int = 20_000) -> bytes:
    app1 = b"\xff\xe1" + struct.pack(">H", padding + 2) + b"\0" * padding
    sof = b"\xff\xc0" + struct.pack(">HBHHB", 11, 8, height, width, 1) + b"\x01\x11\x00"
    return b"\xff\xd8" + app1 + sof + b"\xff\xda\x00\x02" + b"\0" * 100 + b"\xff\xd9"


IMAGES: dict[str, tuple[bytes, str, tuple[int, int]]] = {
    "png": (b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR" + struct.pack(">II", 640, 480) + b"\x08\x06\0\0\0",
            "PNG", (640, 480)),
    "gif": (b"GIF89a" + struct.pack("<HH", 32, 16) + b"\0" * 20, "GIF", (32, 16)),
    "jpeg": (_jpeg(1920, 1080), "JPEG", (1920, 1080)),
    "webp-vp8x": (b"RIFF\0\0\0\0WEBPVP8X" + b"\0" * 8 + (299).to_bytes(3, "little")
                  + (199).to_bytes(3, "little"), "WebP", (300, 200)),
    "webp-vp8l": (b"RIFF\0\0\0\0WEBPVP8L\0\0\0\0\x2f"
                  + ((99) | (49 << 14)).to_bytes(4, "little"), "WebP", (100, 50)),
    "webp-vp8": (b"RIFF\0\0\0\0WEBPVP8 \0\0\0\0\0\0\0\x9d\x01\x2a"
                 + struct.pack("<HH", 64, 48), "WebP", (64, 48)),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(IMAGES))
def test_image_dimensions_from_the_first_bytes(name: str) -> None:
    data, fmt, (width, height) = IMAGES[name]
    encoded = base64.b64encode(data).decode()
    info = image_info(encoded, "image/whatever")
    assert (info.format, info.width, info.height, info.byte_size) == (fmt, width, height, len(data))
    assert info.mismatch
    line = image_placeholder({"type": "image", "data": encoded, "mimeType": "image/png"}).plain
    assert f"{width}×{height} px" in line and encoded[:16] not in line


def test_image_placeholder_for_odd_data() -> None:
    png = base64.b64encode(IMAGES["png"][0]).decode()
    assert image_info("data:image/png;base64," + png, "image/png").width == 640
    assert image_placeholder({"data": png, "mimeType": "image/png"}).plain == (
        "[image image/png · 640×480 px · 29 B]"
    )
    assert image_placeholder({"data": "", "mimeType": "image/png"}).plain.endswith("no data")
    assert image_placeholder({"data": "héllo", "mimeType": "x"}).plain.endswith("not base64")
    hostile = image_placeholder({"data": png, "mimeType": "image/\x1b[31mpng"})
    assert hostile.plain.startswith("[image image/␛[31mpng")
    assert image_info("////", "image/png").problem == "unknown format"


def test_plain_str_and_text_pieces_are_safe() -> None:
    # a compact form of a hostile custom type never breaks the line or the terminal
    raw = {"type": "custom", "id": "c", "customType": "evil\n\x1b[2Jtype", "data": {}}
    row = registry().render_compact(RenderEntry(raw), RenderContext())
    assert "\n" not in row.plain and "␛[2J" in row.plain
    assert isinstance(row, Text)
