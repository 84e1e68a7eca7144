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

import pytest

from pitui.core.session import Session
from pitui.export import ExportFormat, build_document, export_session
from pitui.render import default_registry
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
