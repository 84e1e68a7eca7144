"""The renderer registry: lookup, plug-ins from entry points, and isolation of bad renderers."""

from __future__ import annotations

import importlib
import importlib.metadata
import re
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.control import Control
from rich.style import Style
from rich.table import Table
from rich.text import Text

from pitui.render import (
    RenderContext,
    RenderEntry,
    RendererRegistry,
    safe_line,
    safe_text,
)
from tests.conftest import fixture_by_scenario
from tests.render.test_safe_text import assert_clean, fixture_strings, read_jsonl, render

CTX = RenderContext(width=100)

USER = {"type": "message", "id": "u1", "message": {"role": "user", "content": "hello"}}
ASSISTANT = {"type": "message", "id": "a1", "message": {"role": "assistant", "content": []}}
CUSTOM = {"type": "custom", "id": "c1", "customType": "todo", "data": {"items": ["a", "b"]}}
CUSTOM_MSG = {"type": "custom_message", "id": "m1", "customType": "todo", "content": "do it"}
CUSTOM_ROLE = {
    "type": "message",
    "id": "r1",
    "message": {"role": "custom", "customType": "todo", "content": "x"},
}
UNKNOWN = {"type": "mystery_type", "id": "q1", "payload": "[bold red]x[/]"}


def registry(**kwargs: Any) -> RendererRegistry:
    return RendererRegistry(discover=False, **kwargs)


def labelled(label: str) -> Callable[[RenderEntry, RenderContext], RenderableType]:
    def draw(entry: RenderEntry, ctx: RenderContext) -> RenderableType:
        return Text(f"<{label}>")

    draw.__qualname__ = label
    return draw


def drawn(reg: RendererRegistry, raw: dict[str, Any], ctx: RenderContext = CTX) -> str:
    return render(reg.render(reg.entry(raw), ctx), width=100)


# --- entries and lookup --------------------------------------------------------------------


def test_entry_key() -> None:
    assert RenderEntry(USER).key == ("message", "user", None)
    assert RenderEntry(CUSTOM).key == ("custom", None, "todo")
    assert RenderEntry(CUSTOM_MSG).key == ("custom_message", None, "todo")
    assert RenderEntry(CUSTOM_ROLE).key == ("message", "custom", "todo")
    # untrusted shapes never raise
    assert RenderEntry({"type": 5, "message": "x", "customType": []}).key == (None, None, None)
    assert RenderEntry({"type": "custom", "message": {"role": "user"}}).role is None


def test_most_specific_wins() -> None:
    reg = registry()
    reg.register(labelled("type"), type="message")
    reg.register(labelled("role"), role="user")
    reg.register(labelled("type+role"), type="message", role="assistant")
    reg.register(labelled("custom"), custom_type="todo")
    reg.register(labelled("custom+type"), type="custom_message", custom_type="todo")
    reg.register(labelled("type custom"), type="custom")

    def chosen(raw: dict[str, Any]) -> str | None:
        found = reg.lookup(reg.entry(raw))
        return found.name.rpartition(".")[2] if found else None

    assert chosen(USER) == "role"
    assert chosen(ASSISTANT) == "type+role"
    assert chosen({"type": "message", "message": {"role": "toolResult"}}) == "type"
    assert chosen(CUSTOM) == "custom"  # customType beats type
    assert chosen(CUSTOM_MSG) == "custom+type"  # more fields named, same level
    assert chosen(CUSTOM_ROLE) == "custom"  # customType beats type and role
    assert chosen({"type": "custom", "customType": "other"}) == "type custom"
    assert chosen(UNKNOWN) is None


def test_later_registration_wins_and_cache_is_refreshed() -> None:
    reg = registry()
    reg.register(labelled("first"), type="custom")
    assert "<first>" in drawn(reg, CUSTOM)
    reg.register(labelled("second"), type="custom")
    assert "<second>" in drawn(reg, CUSTOM)


def test_decorator_form() -> None:
    reg = registry()

    @reg.register(role="user", name="users")
    def draw_user(entry: RenderEntry, ctx: RenderContext) -> RenderableType:
        assert entry.message is not None
        return Text.assemble(("User: ", "bold"), safe_line(entry.message["content"]))

    assert callable(draw_user)
    found = reg.lookup(reg.entry(USER))
    assert found is not None and found.renderer is draw_user and found.name == "users"
    assert "User: hello" in drawn(reg, USER)


def test_register_needs_a_key() -> None:
    reg = registry()
    with pytest.raises(ValueError, match="at least one"):
        reg.register(labelled("x"))
    with pytest.raises(TypeError):
        reg.register(labelled("x"), type=3)  # type: ignore[call-overload]


def test_default_name_is_the_qualified_name() -> None:
    reg = registry()
    registration = reg.register(labelled("draw_it"), type="x")
    assert registration.name == f"{__name__}.draw_it"


# --- the fallback ----------------------------------------------------------------------------


def test_unknown_entries_get_the_fallback_with_raw_json() -> None:
    output = drawn(registry(), UNKNOWN)
    assert output.startswith("[mystery_type] raw entry\n")
    assert '"payload": "[bold red]x[/]"' in output
    assert "[toolResult]" in drawn(
        registry(), {"type": "message", "message": {"role": "toolResult"}}
    )
    assert drawn(registry(), CUSTOM).startswith("[custom] todo raw entry")
    assert drawn(registry(), {"id": "x"}).startswith("[no type] raw entry")


def test_fallback_folds_long_json_unless_expanded() -> None:
    raw = {"type": "custom", "customType": "big", "data": list(range(100))}
    folded = drawn(registry(), raw)
    assert folded.rstrip("\n").endswith("… (66 more lines)")  # 106 lines of JSON, 40 shown
    full = drawn(registry(), raw, RenderContext(expanded=True))
    assert "    99\n" in full and "more lines" not in full
    huge = {"type": "custom", "data": "x" * 100_000}
    assert "more characters)" in drawn(registry(), huge)


def test_fallback_shows_lone_surrogates_and_controls_visibly() -> None:
    raw = {"type": "custom", "data": "bad \ud83d and \x1b[31m and \u202e"}
    output = drawn(registry(), raw)
    assert_clean(output)
    assert "<U+D83D>" in output and "\\u001b[31m" in output and "<RLO>" in output


def test_compact_forms() -> None:
    reg = registry()
    reg.register(labelled("full"), type="custom", compact=lambda e, c: Text("row\nwith [b]x[/]"))
    reg.register(labelled("plain"), role="user", compact=lambda e, c: "str [bold]row[/] \x1b")
    row = reg.render_compact(reg.entry(CUSTOM), CTX)
    assert row.plain == "row⏎with [b]x[/]" and row.no_wrap and row.end == ""
    assert reg.render_compact(reg.entry(USER), CTX).plain == "str [bold]row[/] ␛"
    fallback = reg.render_compact(reg.entry(UNKNOWN), CTX)
    assert fallback.plain == "[mystery_type]"
    assert reg.render_compact(reg.entry(CUSTOM_MSG), CTX).plain == "[custom_message] todo do it"


# --- plug-ins from entry points --------------------------------------------------------------


def make_distribution(
    root: Path, dist: str, entry_points: dict[str, str], modules: dict[str, str]
) -> None:
    """A distribution as pip would leave it: NAME-VERSION.dist-info beside its modules."""
    info = root / f"{dist}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n")
    lines = "".join(f"{name} = {value}\n" for name, value in entry_points.items())
    (info / "entry_points.txt").write_text(f"[pitui.renderers]\n{lines}")
    for module, source in modules.items():
        (root / f"{module}.py").write_text(source)


@pytest.fixture
def plugin_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    root = tmp_path / "site"
    root.mkdir()
    monkeypatch.syspath_prepend(str(root))
    before = set(sys.modules)
    yield root
    for name in set(sys.modules) - before:
        if name.startswith("pitui_test_"):
            del sys.modules[name]


GOOD_PLUGIN = """
from rich.text import Text
from pitui.render import safe_line

IMPORTED = True

def draw(entry, ctx):
    return Text.assemble(("TODO ", "bold"), safe_line(str(entry.raw["data"]["items"])))

def register(registry):
    registry.register(draw, custom_type="todo", name="todo-list")
"""


def test_entry_point_plugin_is_listed_without_importing_then_used(plugin_root: Path) -> None:
    make_distribution(
        plugin_root,
        "pitui_test_todo",
        {"todo": "pitui_test_todo_mod:register"},
        {"pitui_test_todo_mod": GOOD_PLUGIN},
    )
    importlib.invalidate_caches()
    reg = RendererRegistry()
    listed = [p for p in reg.plugins if p.name == "todo"]
    assert len(listed) == 1
    assert listed[0].value == "pitui_test_todo_mod:register"
    assert listed[0].distribution == "pitui_test_todo"
    assert "pitui_test_todo_mod" not in sys.modules  # listed, not imported

    output = drawn(reg, CUSTOM)
    assert "pitui_test_todo_mod" in sys.modules
    assert output.startswith("TODO ['a', 'b']")
    found = reg.lookup(reg.entry(CUSTOM))
    assert found is not None and found.plugin == "todo" and found.name == "todo-list"
    assert not [w for w in reg.warnings if w.plugin == "todo"]


def test_broken_plugins_become_warnings(plugin_root: Path) -> None:
    make_distribution(
        plugin_root,
        "pitui_test_broken",
        {
            "raises-on-import": "pitui_test_broken_a:register",
            "missing-attr": "pitui_test_broken_b:nothing_here",
            "missing-module": "pitui_test_no_such_module:register",
            "not-callable": "pitui_test_broken_b:VALUE",
            "register-raises": "pitui_test_broken_c:register",
            "exits": "pitui_test_broken_d:register",
            "fine": "pitui_test_broken_e:register",
        },
        {
            "pitui_test_broken_a": "raise RuntimeError('no \\x1b[31m way')\n",
            "pitui_test_broken_b": "VALUE = 42\n",
            "pitui_test_broken_c": (
                "def draw(entry, ctx):\n    return 'partial'\n"
                "def register(registry):\n"
                "    registry.register(draw, type='custom')\n"
                "    raise KeyError('half way')\n"
            ),
            "pitui_test_broken_d": "import sys\ndef register(registry):\n    sys.exit(3)\n",
            "pitui_test_broken_e": (
                "def register(registry):\n"
                "    registry.register(lambda e, c: 'fine plug-in', role='user', name='fine')\n"
            ),
        },
    )
    importlib.invalidate_caches()
    # only this test's distribution: an installed pitui lists its own built-ins too
    eps = [
        ep
        for ep in importlib.metadata.entry_points(group="pitui.renderers")
        if ep.dist is not None and ep.dist.name == "pitui_test_broken"
    ]
    reg = RendererRegistry(entry_points=eps)
    assert "fine plug-in" in drawn(reg, USER)  # loading never raised
    warnings = {w.plugin: w.message for w in reg.warnings}
    assert warnings["raises-on-import"] == "import failed: RuntimeError: no ␛[31m way"
    assert warnings["missing-attr"].startswith("import failed: AttributeError")
    assert warnings["missing-module"].startswith("import failed: ModuleNotFoundError")
    assert warnings["not-callable"] == "int object is not callable"
    assert warnings["register-raises"] == "register() raised KeyError: 'half way'"
    assert warnings["exits"] == "register() raised SystemExit: 3"
    assert "fine" not in warnings
    # the half-registered renderer of the plug-in whose register() raised is dropped
    assert drawn(reg, CUSTOM).startswith("[custom] todo raw entry")
    described = "renderer plug-in 'not-callable' (pitui_test_broken_b:VALUE): int object"
    assert f"{described} is not callable" in [str(w) for w in reg.warnings]


def test_pitui_entry_points_are_loaded_first(plugin_root: Path) -> None:
    make_distribution(
        plugin_root,
        "pitui_test_order",
        {
            "aaa-third-party": "pitui_test_order_third:register",
            "zzz-builtin": "pitui.render.registry_test_builtin_does_not_exist:register",
        },
        {
            "pitui_test_order_third": (
                "def register(registry):\n"
                "    registry.register(lambda e, c: 'third', type='custom')\n"
            )
        },
    )
    importlib.invalidate_caches()
    reg = RendererRegistry()
    names = [p.name for p in reg.plugins if p.name in ("aaa-third-party", "zzz-builtin")]
    assert names == ["zzz-builtin", "aaa-third-party"]


# --- isolation -------------------------------------------------------------------------------


def test_renderer_that_raises_gets_fallback_and_error_line() -> None:
    reg = registry()

    def explode(entry: RenderEntry, ctx: RenderContext) -> RenderableType:
        raise ValueError("kaboom \x1b[2J [bold]x[/]")

    reg.register(explode, custom_type="todo", name="exploder")
    output = drawn(reg, CUSTOM)
    lines = output.splitlines()
    assert lines[0] == "⚠ renderer 'exploder' failed: ValueError: kaboom ␛[2J [bold]x[/]"
    assert lines[1] == "[custom] todo raw entry"
    assert '"customType": "todo"' in output
    assert_clean(output)
    failure = reg.failures[-1]
    assert (failure.renderer, failure.entry_id, failure.when) == ("exploder", "c1", "call")
    # other entries are unaffected
    assert drawn(reg, USER).startswith("[user] raw entry")


def test_plugin_renderer_error_names_the_plugin(plugin_root: Path) -> None:
    make_distribution(
        plugin_root,
        "pitui_test_raiser",
        {"raiser": "pitui_test_raiser_mod:register"},
        {
            "pitui_test_raiser_mod": (
                "def draw(entry, ctx):\n    return 1 / 0\n"
                "def register(registry):\n"
                "    registry.register(draw, custom_type='todo', name='todo-view')\n"
            )
        },
    )
    importlib.invalidate_caches()
    output = drawn(RendererRegistry(), CUSTOM)
    assert output.splitlines()[0] == (
        "⚠ renderer 'todo-view' from plug-in 'raiser' failed: ZeroDivisionError: division by zero"
    )


class Explodes:
    """A renderable whose drawing (not construction) fails."""

    def __init__(self) -> None:
        self.drawn = 0

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        self.drawn += 1
        yield Text("half")
        raise RuntimeError("while drawing")


def test_renderable_that_raises_while_drawing() -> None:
    reg = registry()
    explodes = Explodes()
    reg.register(lambda e, c: Group(Text("ok"), explodes), type="custom", name="late")
    result = reg.render(reg.entry(CUSTOM), CTX)
    output = render(result)
    assert output.splitlines()[0] == "⚠ renderer 'late' failed: RuntimeError: while drawing"
    assert "half" not in output
    assert reg.failures[-1].when == "draw"
    # a repaint shows the same fallback without running the failing code again
    assert render(result, width=60).splitlines()[0] == output.splitlines()[0]
    assert explodes.drawn == 1 and len(reg.failures) == 1


@pytest.mark.parametrize(
    ("result", "described"),
    [(None, "None"), (42, "a int"), ({"a": 1}, "a dict")],
)
def test_non_renderable_results(result: object, described: str) -> None:
    reg = registry()
    reg.register(lambda e, c: result, type="custom", name="wrong")  # type: ignore[arg-type,return-value]
    output = drawn(reg, CUSTOM)
    assert (
        output.splitlines()[0] == f"⚠ renderer 'wrong' returned {described}, not a Rich renderable"
    )
    assert "[custom] todo raw entry" in output


def test_str_results_are_never_markup() -> None:
    reg = registry()
    reg.register(lambda e, c: "[bold red]x[/] \x1b[31m", type="custom")
    assert drawn(reg, CUSTOM) == "[bold red]x[/] ␛[31m\n"


class CastsToMarkup:
    def __rich__(self) -> str:
        return "[link=https://evil]click[/link] \x07"


def test_output_of_careless_renderers_is_sanitized() -> None:
    """Whatever a renderer builds, no control sequence reaches the terminal."""
    hostile = "\x1b]0;pwned\x07\x1b[2J\x9b31m \u202eevil [bold red]x[/]"

    def careless(entry: RenderEntry, ctx: RenderContext) -> RenderableType:
        table = Table("col")
        table.add_row(hostile)  # a str cell: markup is parsed (the plug-in's fault)
        return Group(
            Text(hostile),
            Text.from_ansi("\x1b[31mred\x1b[0m " + hostile),
            Control.clear(),
            Text("link", style=Style(link="https://e.com/\x1b]0;x\x07")),
            CastsToMarkup(),
            table,
        )

    reg = registry()
    reg.register(careless, type="custom")
    for colours in (None, "truecolor"):
        output = render(reg.render(reg.entry(CUSTOM), CTX), color_system=colours)
        # Rich's own SGR codes and hyperlinks (OSC 8, with a URL free of controls) may remain
        ours = re.sub(r"\x1b\[[0-9;]*m|\x1b\]8;[^\x00-\x1f]*\x1b\\", "", output)
        assert_clean(ours)
        assert "https://e.com" not in output  # a link whose URL holds an escape is dropped
    # (Text() itself drops BEL; the ESC is ours to show)
    assert "␛]0;pwned␛[2J" in render(reg.render(reg.entry(CUSTOM), CTX), width=200)


def test_text_results_are_sanitized_without_wrapping() -> None:
    reg = registry()
    reg.register(lambda e, c: Text("a\x1bb", style="bold"), type="custom")
    result = reg.render(reg.entry(CUSTOM), CTX)
    assert isinstance(result, Text) and result.plain == "a␛b"


# --- time budget ---------------------------------------------------------------------------


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_slow_renderer_is_replaced_by_the_fallback_after_the_budget() -> None:
    clock = FakeClock()
    reg = registry(clock=clock, time_budget=0.5)
    calls: list[str] = []

    def slow(entry: RenderEntry, ctx: RenderContext) -> RenderableType:
        calls.append(entry.id or "")
        clock.now += 0.8
        return Text("slow output")

    def quick(entry: RenderEntry, ctx: RenderContext) -> RenderableType:
        clock.now += 0.1
        return Text("quick output")

    slow_reg = reg.register(slow, type="custom", name="sloth")
    reg.register(quick, role="user", name="hare")
    assert drawn(reg, CUSTOM) == "slow output\n"  # the first result is still shown
    assert reg.is_slow(slow_reg)
    output = drawn(reg, CUSTOM)
    assert output.splitlines()[0] == (
        "⚠ renderer 'sloth' is disabled for this run: it took 0.80 s (budget 0.50 s)"
    )
    assert "[custom] todo raw entry" in output
    assert calls == ["c1"]  # not called again
    for _ in range(3):
        assert drawn(reg, USER) == "quick output\n"
    assert [f.when for f in reg.failures] == ["slow"]
    reg.reset_slow()
    assert drawn(reg, CUSTOM) == "slow output\n"


def test_slow_drawing_counts_too() -> None:
    clock = FakeClock()
    reg = registry(clock=clock)

    class SlowToDraw:
        def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
            clock.now += 2.0
            yield Text("drawn slowly")

    registration = reg.register(lambda e, c: SlowToDraw(), type="custom", name="painter")
    assert "drawn slowly" in drawn(reg, CUSTOM)
    assert reg.is_slow(registration)
    assert "is disabled for this run" in drawn(reg, CUSTOM)


def test_budget_can_be_lifted_per_renderer_and_per_registry() -> None:
    clock = FakeClock()

    def slow(entry: RenderEntry, ctx: RenderContext) -> RenderableType:
        clock.now += 5
        return Text("done")

    reg = registry(clock=clock)
    registration = reg.register(slow, type="custom", time_budget=None)
    drawn(reg, CUSTOM)
    assert not reg.is_slow(registration)
    unlimited = registry(clock=clock, time_budget=None)
    registration = unlimited.register(slow, type="custom")
    drawn(unlimited, CUSTOM)
    assert not unlimited.is_slow(registration)


def test_slow_renderer_with_the_real_clock() -> None:
    reg = registry(time_budget=0.02)

    def sleepy(entry: RenderEntry, ctx: RenderContext) -> RenderableType:
        time.sleep(0.05)
        return Text("zzz")

    registration = reg.register(sleepy, type="custom", name="sleepy")
    drawn(reg, CUSTOM)
    assert reg.is_slow(registration)
    assert "is disabled for this run" in drawn(reg, CUSTOM)


# --- the model factory ---------------------------------------------------------------------


def test_model_is_validated_lazily_once() -> None:
    made: list[object] = []

    def factory(raw: Any) -> object:
        made.append(raw)
        return ("model", raw["id"])

    reg = registry(model_factory=factory)
    seen: list[object] = []

    def draw(entry: RenderEntry, ctx: RenderContext) -> RenderableType:
        seen.append(entry.model)
        return Text("m")

    reg.register(draw, type="custom")
    entry = reg.entry(CUSTOM)
    assert made == []
    render(reg.render(entry, CTX))
    render(reg.render(entry, CTX))
    assert made == [CUSTOM] and seen == [("model", "c1"), ("model", "c1")]
    assert RenderEntry(CUSTOM).model is None  # no factory


def test_entry_that_does_not_validate_gets_the_fallback() -> None:
    def factory(raw: Any) -> object:
        raise ValueError("missing field 'data'")

    reg = registry(model_factory=factory)
    reg.register(
        lambda e, c: Text("never"), type="custom", name="strict", compact=lambda e, c: "no"
    )
    output = drawn(reg, CUSTOM)
    assert output.splitlines()[0] == "⚠ entry could not be read: ValueError: missing field 'data'"
    assert "never" not in output
    assert reg.render_compact(reg.entry(CUSTOM), CTX).plain.startswith("⚠ [custom] todo")


# --- the terminal-hostile fixture through the registry ---------------------------------------


@pytest.mark.parametrize("corpus", ["pi-written", "pi-written-1.6.0"])
def test_hostile_fixture_entries_render_inert(corpus: str) -> None:
    reg = registry()

    def echo(entry: RenderEntry, ctx: RenderContext) -> RenderableType:
        # a plug-in doing the right thing: untrusted text through safe_text
        message = entry.message or {}
        content = message.get("content", entry.raw.get("content", ""))
        return safe_text(content if isinstance(content, str) else repr(content))

    reg.register(echo, role="user")
    reg.register(echo, type="custom_message")
    entries = read_jsonl(fixture_by_scenario(corpus, "terminal-hostile"))
    outputs = []
    for raw in entries:
        for ctx in (CTX, RenderContext(expanded=True, selected=True)):
            output = render(reg.render(reg.entry(raw), ctx), width=120)
            assert_clean(output)
            outputs.append(output)
        assert_clean(render(reg.render_compact(reg.entry(raw), CTX), width=120))
    joined = "".join(outputs)
    assert "[bold red]x[/]" in joined and "␛[31m" in joined
    assert len(fixture_strings(corpus, "terminal-hostile")) > len(entries)


def test_prevalidated_model_is_used_as_is() -> None:
    def factory(raw: Any) -> object:
        raise AssertionError("not called")

    entry = RenderEntry(CUSTOM, factory, model="ready")
    assert entry.model == "ready" and entry.model_error is None


def test_plugin_that_looks_up_while_registering(plugin_root: Path) -> None:
    (plugin_root / "pitui_test_reentrant.py").write_text(
        "from pitui.render import RenderEntry\n"
        "def register(registry):\n"
        "    registry.register(lambda e, c: 'first', type='custom')\n"
        "    found = registry.lookup(RenderEntry({'type': 'custom'}))\n"
        "    registry.register(lambda e, c: 'saw ' + found.name, type='custom', name='second')\n"
    )
    ep = importlib.metadata.EntryPoint(
        name="reentrant", value="pitui_test_reentrant:register", group="pitui.renderers"
    )
    reg = RendererRegistry(entry_points=[ep])
    assert [p.name for p in reg.plugins] == ["reentrant"]
    assert drawn(reg, CUSTOM) == "saw pitui_test_reentrant.register.<locals>.<lambda>\n"
    assert reg.warnings == []
