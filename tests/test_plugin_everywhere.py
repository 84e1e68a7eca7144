"""What a plug-in draws appears wherever its entry is shown (issue 21 §3).

The example plug-in (``examples/pitui-todo-renderer``) is made installed here as pip leaves a
package: its module on ``sys.path`` and a ``dist-info`` with its entry point, so pitui discovers it
as it would in a user's environment.
"""

from __future__ import annotations

import html
import importlib
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pitui.core.session import Session
from pitui.export import ExportFormat, build_document, export_session
from pitui.render import default_registry
from tests.conftest import local_zone
from tests.core.sessiondata import assistant, entry, jsonl, user

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "pitui-todo-renderer"
TODOS = {
    "version": 1,
    "todos": [
        {"id": 1, "text": "Idempotent loads", "done": True},
        {"id": 2, "text": "Retry the flaky upload", "done": False},
    ],
}


@pytest.fixture
def example_installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    site = tmp_path / "site"
    info = site / "pitui_todo_renderer-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: pitui-todo-renderer\nVersion: 0.1.0\n"
    )
    entry_points = (EXAMPLE / "pyproject.toml").read_text()
    value = re.search(r'^([\w-]+)\s*=\s*"(pitui_todo_renderer:\w+)"', entry_points, re.MULTILINE)
    assert value is not None, "the example declares its entry point"
    name, target = value.groups()
    (info / "entry_points.txt").write_text(f"[pitui.renderers]\n{name} = {target}\n")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.syspath_prepend(str(EXAMPLE / "src"))
    importlib.invalidate_caches()
    yield
    sys.modules.pop("pitui_todo_renderer", None)


def session_with_todos() -> Session:
    todo = entry("custom", "t1", "a1", 3, customType="todo-tracker", data=TODOS)
    return Session.from_bytes(
        jsonl(user("u1", None, "plan it"), assistant("a1", "u1", "planned"), todo,
              user("u2", "t1", "go on", 4), assistant("a2", "u2", "on it", 5))
    )  # fmt: skip


def test_the_example_is_discovered(example_installed: None) -> None:
    registry = default_registry()
    found = registry.lookup(registry.entry({"type": "custom", "customType": "todo-tracker"}))
    assert found is not None and found.name == "todo checklist"


@pytest.mark.parametrize("fmt", ["md", "html"])
def test_the_checklist_is_in_the_export_where_the_entry_stands(
    example_installed: None, fmt: ExportFormat
) -> None:
    session = session_with_todos()
    assert [before for before, _ in build_document(session).extensions] == [2]
    text = export_session(session, fmt).decode()  # (the registry the command line uses)
    if fmt == "html":
        text = html.unescape(re.sub(r"<[^>]+>", "", text))  # (its spans split the styles)
    assert "☑ todo list · 1/2 done" in text
    assert "☐ Retry the flaky upload" in text
    # after the first exchange, before the second
    assert text.index("planned") < text.index("☑ todo list") < text.index("go on")


# ------------------------------------------------------------------------------ session view


@pytest.fixture
def fresh_app_registry() -> Iterator[None]:
    """The app's registry made anew (it lists plug-ins once), and again after the test."""
    from pitui.ui.rendering import app_registry

    app_registry.cache_clear()
    yield
    app_registry.cache_clear()


def todo_file(tmp_path: Path) -> Path:
    from tests.ui.sessionview import write_session

    todo = entry("custom", "t1", "a1", 3, customType="todo-tracker", data=TODOS)
    return write_session(
        jsonl(user("u1", None, "plan it"), assistant("a1", "u1", "planned"), todo,
              user("u2", "t1", "go on", 4), assistant("a2", "u2", "on it", 5)),
        tmp_path,
    )  # fmt: skip


async def context_at(app: Any, pilot: Any, uid: str) -> list[str]:
    from tests.ui.sessionview import settle

    assert app.branch_tree.select_uid(uid)
    await settle(app, pilot)
    shown = app.session_screen.context_pane.shown
    assert shown is not None and shown.uid == uid
    return [line.rstrip() for line in app.session_screen.context_lines.plain_lines]


async def test_the_checklist_is_in_the_session_views_context_and_tree(
    example_installed: None, fresh_app_registry: None, tmp_path: Path
) -> None:
    from tests.ui.sessionview import ScreenApp, opened, settle

    app = ScreenApp(todo_file(tmp_path))
    async with app.run_test(size=(160, 45)) as pilot:
        await opened(app, pilot)
        await pilot.press("ctrl+a")  # (custom entries are rows in the "all" filter)
        # the selected extension entry itself: the plug-in's checklist, not "(nothing: …)"
        lines = await context_at(app, pilot, "t1")
        assert any("☑ todo list · 1/2 done" in line for line in lines), lines
        assert any("☐ Retry the flaky upload" in line for line in lines)
        # further down the branch: where it stands, between the two exchanges
        text = "\n".join(await context_at(app, pilot, "a2"))
        assert text.index("planned") < text.index("☑ todo list") < text.index("go on")
        title = app.session_screen.context_pane.border_title
        assert "4 messages + 1 extension entry" in str(title)
        # the tree's row: the plug-in's one-line form
        tree = app.branch_tree
        assert tree.select_uid("t1")
        await settle(app, pilot)
        row = tree.render_line(tree.model.selected_index - round(tree.scroll_offset.y)).text
        assert "[todo-tracker] 1/2 done · next: Retry the flaky upload" in row, row


async def test_without_the_plugin_the_entry_is_drawn_only_when_selected(
    fresh_app_registry: None, tmp_path: Path
) -> None:
    from tests.ui.sessionview import ScreenApp, opened, settle

    app = ScreenApp(todo_file(tmp_path))
    async with app.run_test(size=(160, 45)) as pilot:
        await opened(app, pilot)
        await pilot.press("ctrl+a")
        lines = await context_at(app, pilot, "t1")
        assert any("[todo-tracker]" in line and "extension data" in line for line in lines)
        assert not any("nothing: the model sees no messages" in line for line in lines)
        assert not any("[todo-tracker]" in line for line in await context_at(app, pilot, "a2"))
        tree = app.branch_tree
        assert tree.select_uid("t1")
        await settle(app, pilot)
        row = tree.render_line(tree.model.selected_index - round(tree.scroll_offset.y)).text
        assert "[custom: todo-tracker]" in row  # pi's row text


def test_session_view_snapshot_with_the_plugin(
    example_installed: None,
    fresh_app_registry: None,
    tmp_path: Path,
    snap_compare: Any,
) -> None:
    """The tree row in the plug-in's compact form, the checklist in the context pane."""
    from tests.ui.sessionview import ScreenApp, opened, settle

    app = ScreenApp(todo_file(tmp_path))

    async def run_before(pilot: Any) -> None:
        await opened(app, pilot)
        await pilot.press("ctrl+a")
        assert app.branch_tree.select_uid("a2")
        await settle(app, pilot)

    with local_zone("UTC"):
        assert snap_compare(app, terminal_size=(120, 30), run_before=run_before)


async def test_the_checklist_is_in_the_picker_preview_where_the_entry_stands(
    example_installed: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pitui.ui.rendering import app_registry
    from pitui.ui.widgets.preview import SessionPreview
    from tests.ui.picker_kit import preview_loaded, settle, store_app, write_session

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    agent, cwd = tmp_path / "agent", str(tmp_path / "proj")
    todo = entry("custom", "t1", "a1", 3, customType="todo-tracker", data=TODOS)
    write_session(agent, cwd, "todo1", [
        user("u1", None, "plan it"), assistant("a1", "u1", "planned"), todo,
        user("u2", "t1", "go on", 4), assistant("a2", "u2", "on it", 5),
    ])  # fmt: skip
    app_registry.cache_clear()  # (the app's registry is made once: this one sees the plug-in)
    try:
        app = store_app(agent, cwd)
        async with app.run_test(size=(160, 45)) as pilot:
            await settle(pilot)
            await preview_loaded(pilot)
            text = app.screen.query_one(SessionPreview).text
    finally:
        app_registry.cache_clear()
    assert "☑ todo list · 1/2 done" in text and "☐ Retry the flaky upload" in text
    assert text.index("planned") < text.index("☑ todo list") < text.index("go on")
