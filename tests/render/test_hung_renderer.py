"""A renderer that never returns is abandoned: the fallback is drawn, its plug-in is switched
off for the run, and nothing waits on it (issue 24.10: `pitui export` never finished, the session
view's context pane stopped and quitting hung)."""

from __future__ import annotations

import importlib.metadata
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.console import Console, ConsoleOptions, RenderResult
from rich.text import Text

from pitui.cli import main
from pitui.render import RenderContext, RenderEntry, RendererRegistry
from pitui.render.isolation import Abandoned, call_with_deadline
from tests.core.sessiondata import jsonl, user
from tests.render.test_safe_text import render

CTX = RenderContext(width=80)
TODO = {"type": "custom", "id": "c1", "customType": "todo", "data": {"items": ["a"]}}
NOTE = {"type": "custom", "id": "c2", "customType": "note", "data": {}}


def spin(entry: RenderEntry, ctx: RenderContext) -> Text:
    while True:
        pass


def plugin_calls_alive() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "pitui-plugin-call"]


def wait_until_no_plugin_call(seconds: float = 5.0) -> None:
    deadline = time.monotonic() + seconds
    while plugin_calls_alive() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not plugin_calls_alive(), "an abandoned call is still running"


@pytest.fixture(autouse=True)
def no_leftover_calls() -> Iterator[None]:
    yield
    wait_until_no_plugin_call()


def test_call_with_deadline_returns_raises_or_abandons() -> None:
    assert call_with_deadline(lambda: 42, 1.0) == 42
    with pytest.raises(ZeroDivisionError):
        call_with_deadline(lambda: 1 // 0, 1.0)
    start = time.monotonic()
    with pytest.raises(Abandoned):
        call_with_deadline(lambda: spin(RenderEntry(TODO), CTX), 0.2)
    assert time.monotonic() - start < 2.0
    wait_until_no_plugin_call()  # the busy loop was stopped, not left spinning


def test_a_renderer_that_never_returns_gets_the_fallback_and_is_switched_off() -> None:
    reg = RendererRegistry(discover=False, deadline=0.2)
    registration = reg.register(spin, custom_type="todo", name="spinner")
    start = time.monotonic()
    first = render(reg.render(reg.entry(TODO), CTX), width=80)
    assert time.monotonic() - start < 2.0
    assert "switched off" in first and "spinner" in first
    assert reg.is_slow(registration)
    assert [f.when for f in reg.failures] == ["hung"]
    start = time.monotonic()
    again = render(reg.render(reg.entry(TODO), CTX), width=80)
    assert time.monotonic() - start < 0.2  # not called again
    assert "switched off" in again


class EndlessDrawing:
    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        while True:
            yield from ()


def test_a_drawing_that_never_ends_is_abandoned_too() -> None:
    reg = RendererRegistry(discover=False, deadline=0.2)
    reg.register(lambda entry, ctx: EndlessDrawing(), custom_type="todo", name="endless")
    drawn = render(reg.render(reg.entry(TODO), CTX), width=80)
    assert "switched off" in drawn


def test_a_compact_form_that_never_returns_is_abandoned() -> None:
    reg = RendererRegistry(discover=False, deadline=0.2)
    reg.register(lambda entry, ctx: Text("full"), custom_type="todo", compact=spin)
    line = reg.render_compact(reg.entry(TODO), CTX)
    assert "spin" not in line.plain and [f.when for f in reg.failures] == ["hung"]


HANGING_PLUGIN = """
from rich.text import Text

def spin(entry, ctx):
    while True:
        pass

def register(registry):
    registry.register(spin, custom_type="todo", name="todo-list")
    registry.register(lambda entry, ctx: Text("NOTE"), custom_type="note", name="note")
"""


def test_the_whole_plugin_is_switched_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "pitui_test_hanging.py").write_text(HANGING_PLUGIN)
    monkeypatch.syspath_prepend(str(tmp_path))
    ep = importlib.metadata.EntryPoint(
        name="hanging", value="pitui_test_hanging:register", group="pitui.renderers"
    )
    reg = RendererRegistry(entry_points=[ep], deadline=0.2)
    assert render(reg.render(reg.entry(NOTE), CTX), width=80) == "NOTE\n"
    render(reg.render(reg.entry(TODO), CTX), width=80)
    note = render(reg.render(reg.entry(NOTE), CTX), width=80)
    assert note != "NOTE\n" and "switched off" in note and "hanging" in note


def test_pitui_own_renderers_run_in_the_callers_thread() -> None:
    from pitui.render import default_registry

    registrations = default_registry(discover=False).registrations()
    assert registrations and not [reg.name for reg in registrations if reg.isolated]


def test_export_finishes_with_a_plugin_that_never_returns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    import pitui.render as render_package

    made = render_package.default_registry

    def with_spinner(**kwargs: object) -> RendererRegistry:
        reg = made(discover=False)
        reg.deadline = 0.2
        reg.register(spin, custom_type="todo", name="spinner")
        return reg

    monkeypatch.setattr(render_package, "default_registry", with_spinner)
    path = tmp_path / "s.jsonl"
    todo = {**TODO, "parentId": "u1", "timestamp": "2025-01-01T00:00:02.000Z"}
    path.write_bytes(jsonl(user("u1", None), todo))
    for fmt in ("md", "html"):
        start = time.monotonic()
        assert main(["export", str(path), "-f", fmt]) == 0
        assert time.monotonic() - start < 10
        capsysbinary.readouterr()
