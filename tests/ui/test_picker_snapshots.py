"""SVG snapshots of the picker (pytest-textual-snapshot): what a user sees, pinned.

Deterministic: fixed terminal size and theme, a frozen clock, $HOME / agent dir / XDG dirs in
tmp (paths are shown shortened to ``~``), TZ=UTC for the preview's dates, no file watching, and
every worker plus the preview finished before the picture is taken.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from pitui.config import Settings
from pitui.core.pins import Pins
from pitui.core.store import Store
from pitui.ui.app import AppOptions, PituiApp, make_app
from pitui.ui.catalog import StoreCatalog
from tests.conftest import fixture_by_scenario
from tests.core.sessiondata import assistant, entry, jsonl, user
from tests.ui.picker_kit import copy_fixture, picker, press, ready, write_session

SIZE = (120, 36)
DAY_START = 1735689600.0  # 2025-01-01T00:00:00Z: the sessions' timestamps count from here
CLOCK = DAY_START + 23 * 3600 + 59 * 60  # 23:59 that day: ages from "now" to "23h"

Snap = Callable[..., bool]


@pytest.fixture
def home(home: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The UI tests' temp $HOME (``home`` of tests/ui/conftest.py), moved to a path of a fixed
    length: a fork's header holds its parent's absolute path, so the sizes the preview shows
    would otherwise depend on where pytest keeps its temp files (``/tmp`` is hard-coded: the
    system's temp dir may be anywhere)."""
    root = Path(tempfile.mkdtemp(prefix="pitui-snapshots-", dir="/tmp"))  # (8 random letters)
    folder = root / "home"
    (folder / ".pi" / "agent").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(folder))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(folder / ".pi" / "agent"))
    yield folder
    shutil.rmtree(root, ignore_errors=True)


def agent(home: Path) -> Path:
    return home / ".pi" / "agent"


def talk(prefix: str, texts: Sequence[str], start: int) -> list[dict[str, Any]]:
    """Alternating user/assistant messages, a minute apart from ``start`` seconds."""
    out: list[dict[str, Any]] = []
    parent: str | None = None
    for i, text in enumerate(texts):
        eid = f"{prefix}{i}"
        make = user if i % 2 == 0 else assistant
        out.append(make(eid, parent, text, t=start + 60 * i))
        parent = eid
    return out


def project(home: Path, name: str) -> str:
    """A session's folder: outside the temp $HOME on purpose, so that the session folder names
    (``--home-ana-code-webapp--``) and every path shown are the same on every run."""
    return f"/home/ana/code/{name}"


def populate(home: Path) -> dict[str, Path]:
    """A small store: webapp (named, labelled, a fork), api, and notes in another folder."""
    webapp, api = project(home, "webapp"), project(home, "api")
    files: dict[str, Path] = {}
    main_entries = [
        *talk("a", ["Add a dark mode toggle to the settings page", "Done: a toggle in "
                    "settings.tsx, persisted in localStorage.", "Also respect prefers-color-"
                    "scheme", "Added a media query fallback."], 3 * 3600),
        entry("session_info", "ai", "a3", t=3 * 3600 + 300, name="Dark mode"),
        entry("label", "al", "ai", t=3 * 3600 + 320, targetId="a1", label="shipped"),
    ]  # fmt: skip
    files["main"] = write_session(agent(home), webapp, "0195aaaa-0000-7000-8000-00000000000a",
                                  main_entries, name="main.jsonl")  # fmt: skip
    files["fork"] = write_session(
        agent(home), webapp, "0195aaaa-0000-7000-8000-00000000000b",
        talk("b", ["Try the toggle with a CSS variable approach instead", "Switched to CSS "
                   "variables on :root."], 20 * 3600),
        parent=str(files["main"]), name="fork.jsonl",
    )  # fmt: skip
    files["fork2"] = write_session(
        agent(home), webapp, "0195aaaa-0000-7000-8000-00000000000c",
        talk("c", ["Write tests for the toggle", "Added three tests."], 22 * 3600),
        parent=str(files["fork"]), name="fork2.jsonl",
    )  # fmt: skip
    files["bug"] = write_session(
        agent(home), webapp, "0195aaaa-0000-7000-8000-00000000000d",
        talk("d", ["Why does the login form submit twice?", "The handler is bound in two "
                   "places; removed the second."], 1 * 3600),
        name="bug.jsonl",
    )  # fmt: skip
    files["api"] = write_session(
        agent(home), api, "0195aaaa-0000-7000-8000-00000000000e",
        talk("e", ["Paginate the /users endpoint", "Added cursor pagination."], 85800),
        name="api.jsonl",
    )  # fmt: skip
    return files


def app_for(home: Path, cwd: str, **options: Any) -> PituiApp:
    store = Store(cwd=cwd, agent=agent(home), workers=1)
    return make_app(
        StoreCatalog(store),
        AppOptions(
            settings=Settings(theme="pi-dark"),
            cwd=cwd,
            clock=lambda: CLOCK,
            watch=False,
            **options,
        ),
    )


def test_list_with_preview(snap_compare: Snap, home: Path) -> None:
    populate(home)
    app = app_for(home, project(home, "webapp"))
    assert snap_compare(app, terminal_size=SIZE, run_before=ready(press("down")))


def test_all_scope(snap_compare: Snap, home: Path) -> None:
    populate(home)
    app = app_for(home, project(home, "webapp"), scope="all")
    assert snap_compare(app, terminal_size=SIZE, run_before=ready())


def test_threaded_forks_and_path_display(snap_compare: Snap, home: Path) -> None:
    files = populate(home)
    for i in range(2):  # two more forks of the main session: siblings in the forest
        write_session(
            agent(home), project(home, "webapp"), f"0195aaaa-0000-7000-8000-00000000010{i}",
            talk(f"f{i}", [f"Fork {i}: try another colour palette", "ok"], 5 * 3600 + i * 600),
            parent=str(files["main"]), name=f"f{i}.jsonl",
        )  # fmt: skip
    app = app_for(home, project(home, "webapp"))
    assert snap_compare(app, terminal_size=SIZE, run_before=ready(press("ctrl+p")))


def test_search(snap_compare: Snap, home: Path) -> None:
    populate(home)
    app = app_for(home, project(home, "webapp"))
    assert snap_compare(app, terminal_size=SIZE, run_before=ready(press(*"toggle")))


def test_delete_confirmation(snap_compare: Snap, home: Path) -> None:
    populate(home)
    app = app_for(home, project(home, "webapp"))
    assert snap_compare(app, terminal_size=SIZE, run_before=ready(press("ctrl+d")))


def test_rename(snap_compare: Snap, home: Path) -> None:
    populate(home)
    app = app_for(home, project(home, "webapp"))

    async def to_named(pilot: Pilot[Any]) -> None:
        screen = picker(pilot.app)  # type: ignore[arg-type]
        names = [item.name for item in screen.listed]
        screen.session_list.selected = names.index("Dark mode")

    assert snap_compare(
        app, terminal_size=SIZE, run_before=ready(to_named, press("ctrl+r", *" v2"))
    )


def test_empty_current_folder(snap_compare: Snap, home: Path) -> None:
    populate(home)
    app = app_for(home, project(home, "nothing-here"))
    assert snap_compare(app, terminal_size=SIZE, run_before=ready())


def test_empty_named_all_scope(snap_compare: Snap, home: Path) -> None:
    app = app_for(home, project(home, "webapp"), scope="all")
    assert snap_compare(app, terminal_size=SIZE, run_before=ready(press("ctrl+n")))


def test_terminal_hostile_session(snap_compare: Snap, home: Path) -> None:
    """Markup and escape sequences in titles, names and messages show as text, never act."""
    populate(home)
    source = fixture_by_scenario("pi-written", "terminal-hostile")
    copy_fixture(source, agent(home), project(home, "webapp"))

    async def select_hostile(pilot: Pilot[Any]) -> None:
        screen = picker(pilot.app)  # type: ignore[arg-type]
        paths = [os.path.basename(item.path) for item in screen.listed]
        screen.session_list.selected = paths.index(source.name)

    assert snap_compare(app_for(home, project(home, "webapp")), terminal_size=SIZE,
                        run_before=ready(select_hostile))  # fmt: skip


def test_label_mode(snap_compare: Snap, home: Path) -> None:
    """``label:``: every label of every folder's sessions, newest first, with its session."""
    files = populate(home)
    with files["bug"].open("ab") as grown:  # two more labels, one set then cleared
        grown.write(
            jsonl(
                entry("label", "dl1", "d1", t=1 * 3600 + 200, targetId="d0", label="repro"),
                entry("label", "dl2", "dl1", t=1 * 3600 + 300, targetId="d1", label="root cause"),
                entry("label", "dl3", "dl2", t=1 * 3600 + 400, targetId="d0"),
                entry("label", "dl4", "dl3", t=1 * 3600 + 500, targetId="d0", label="bug report"),
                header=None,
            )
        )
    with files["api"].open("ab") as grown:
        grown.write(
            jsonl(entry("label", "el", "e1", t=86000, targetId="e1", label="v2 API"), header=None)
        )
    os.utime(files["bug"], (CLOCK - 3600, CLOCK - 3600))
    os.utime(files["api"], (CLOCK - 3600, CLOCK - 3600))
    app = app_for(home, project(home, "webapp"), scope="all")
    assert snap_compare(app, terminal_size=SIZE, run_before=ready(press(*"label:")))


def test_pinned_session(snap_compare: Snap, home: Path) -> None:
    """A pinned session (``alt+t``; here pinned by an earlier run) is first in its scope,
    marked."""
    files = populate(home)
    Pins().toggle(str(files["bug"]))
    app = app_for(home, project(home, "webapp"))
    assert snap_compare(app, terminal_size=SIZE, run_before=ready())
