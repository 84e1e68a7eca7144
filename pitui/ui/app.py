"""The Textual app: themes, keymap, the command palette, and which screen starts.

Built through :func:`make_app` with everything it depends on (settings, catalog, paths), so tests
inject fixture stores. The app's return value says what to do after it closes (resume pi, print a
path) — the terminal hand-off itself happens in :mod:`pitui.launch`, after Textual let go of it.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import Any

from rich.text import Text
from textual import events
from textual.app import App
from textual.binding import Binding
from textual.geometry import Size
from textual.notifications import SeverityLevel

from pitui.config import Settings
from pitui.core.memory import release_collector
from pitui.core.paths import shorten_home
from pitui.launch import ResumeRequest, resume_argv
from pitui.render.safe_text import one_line, safe_line, sanitize_plain
from pitui.ui.catalog import Catalog, PickerItem, Scope
from pitui.ui.commands import bindings_for
from pitui.ui.hangup import HangupWatch
from pitui.ui.messages import FirstFrameShown
from pitui.ui.modals.confirm import ConfirmModal
from pitui.ui.palette import PituiCommands
from pitui.ui.screens.help import HelpScreen
from pitui.ui.screens.picker import PickerScreen
from pitui.ui.themes import THEMES


def stylesheets() -> list[str | PurePath]:
    """``styles/*.tcss``: inside the installed package, or at the repository root in a checkout."""
    here = Path(__file__).resolve().parent.parent
    for folder in (here / "styles", here.parent / "styles"):
        if folder.is_dir():
            names = ("base.tcss", "picker.tcss", "session.tcss", "modals.tcss", "diff.tcss")
            return [folder / name for name in names if (folder / name).exists()]
    return []


@dataclass(frozen=True, slots=True)
class PrintRequest:
    """``pitui --print``: print the chosen session's path and exit."""

    path: str


AppResult = ResumeRequest | PrintRequest | None


@dataclass(frozen=True, slots=True)
class AppOptions:
    settings: Settings = field(default_factory=Settings)
    cwd: str = field(default_factory=os.getcwd)
    scope: Scope | None = None  # None: the settings' default
    open_path: str | None = None  # start on this session's tree instead of the picker
    open_entry: str | None = None
    print_only: bool = False
    current_session: str | None = None
    watch: bool = True
    clock: Callable[[], float] = time.time


class PituiApp(App[AppResult]):
    TITLE = "pitui"
    CSS_PATH = stylesheets()
    COMMAND_PALETTE_BINDING = "ctrl+x"
    COMMAND_PALETTE_DISPLAY = "^x"
    COMMANDS = {PituiCommands}
    BINDINGS = [
        *bindings_for("app"),
        Binding("ctrl+q", "quit", "Quit", show=False, priority=True, id="app.quit"),
    ]

    def __init__(self, catalog: Catalog, options: AppOptions) -> None:
        super().__init__()
        self.catalog = catalog
        self.options = options
        self.keymap_overrides = dict(options.settings.keymap)
        self._hangup_watch: HangupWatch | None = None
        self._first_frame_done = False
        self._start_size: Size | None = None  # the size of the last resize before it
        for theme in THEMES:
            self.register_theme(theme)
        self.theme = (
            options.settings.theme if options.settings.theme in self.available_themes else "pi-dark"
        )
        if self.keymap_overrides:
            self.set_keymap(self.keymap_overrides)

    def on_mount(self) -> None:
        self._watch_for_hangup()
        options = self.options
        settings = options.settings
        if options.open_path is not None:
            self.open_session(options.open_path, options.open_entry, standalone=True)
            return
        self.push_screen(
            PickerScreen(
                self.catalog,
                settings=settings,
                keymap=self.keymap_overrides,
                cwd=options.cwd,
                scope=options.scope or settings.default_scope,
                sort=settings.default_sort,
                named_only=settings.named_only,
                show_path=settings.show_path,
                current_session=options.current_session,
                clock=options.clock,
                on_resume=self.resume,
                on_open=lambda item, entry: self.open_session(item.path, entry),
                watch=options.watch,
            )
        )

    async def _on_resize(self, event: events.Resize) -> None:
        # Until the first frame: Textual keeps a resize to the size it has already (the
        # terminal's first size report, just after the start) and hands it to the screen once
        # idle, which lays the whole screen out and draws it again before the first frame.
        # (Runs before Textual's handler, which the default prevented here skips.)
        if not self._first_frame_done:
            if event.size == self._start_size:
                event.prevent_default()
            self._start_size = event.size

    def on_ready(self) -> None:
        # (Ready comes after the first layout; what is called after the next refresh runs once
        # that frame has been written to the terminal)
        self.call_after_refresh(self._first_frame_shown)

    def _first_frame_shown(self) -> None:
        self._first_frame_done = True
        release_collector()  # (paused by the command line for the start-up)
        self.screen.post_message(FirstFrameShown())

    def _watch_for_hangup(self) -> None:
        """Leave when the terminal goes away, even with SIGHUP ignored (see ``ui.hangup``)."""
        if self.is_headless:
            return
        fds = [
            stream.fileno()
            for stream in (sys.__stdin__, sys.__stdout__)
            if stream is not None and stream.isatty()
        ]
        if not fds:
            return
        loop = asyncio.get_running_loop()
        self._hangup_watch = HangupWatch(fds, lambda: loop.call_soon_threadsafe(self.exit))
        self._hangup_watch.start()

    def run(self, *args: Any, **kwargs: Any) -> AppResult | None:
        try:
            return super().run(*args, **kwargs)
        finally:  # the app has let go of the terminal: nothing left for the watch to end
            if self._hangup_watch is not None:
                self._hangup_watch.stop()

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Every notification as plain text, its controls shown: they name ids, labels, paths
        and problems read from session files (a parent id of ``[/bold]`` was taken for markup
        and the session view crashed on its "Read with problems" notice)."""
        super().notify(
            sanitize_plain(message),
            title=one_line(title),
            severity=severity,
            timeout=timeout,
            markup=False,
        )

    # ------------------------------------------------------------------------------ actions
    def action_show_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            first = getattr(self.screen, "HELP_FIRST", ())  # the keys of where the user is
            self.push_screen(HelpScreen(self.keymap_overrides, first=first))

    def open_session(
        self, path: str, entry_id: str | None = None, *, standalone: bool = False
    ) -> None:
        from pitui.ui.screens.session import SessionScreen

        self.push_screen(
            SessionScreen(
                path,
                settings=self.options.settings,
                select=entry_id,
                standalone=standalone,
                on_resume=self.resume_path,
                watch=self.options.watch,
                clock=self.options.clock,
            )
        )

    def resume(self, item: PickerItem) -> None:
        self.resume_path(item.path, item.cwd, item.id)

    def _exit_resume(self, ok: bool | None, path: str, cwd: str, session_id: str) -> None:
        if ok:
            template = self.options.settings.resume_command
            self.exit(
                ResumeRequest(
                    path, cwd, resume_argv(template, path=path, session_id=session_id, cwd=cwd)
                )
            )

    def resume_path(self, path: str, cwd: str, session_id: str) -> None:
        """Leave pitui and start pi on ``path`` in its own folder (asks if the folder is gone)."""
        if self.options.print_only:
            self.exit(PrintRequest(path))
            return
        template = self.options.settings.resume_command
        if cwd and os.path.isdir(cwd):
            self.exit(
                ResumeRequest(
                    path, cwd, resume_argv(template, path=path, session_id=session_id, cwd=cwd)
                )
            )
            return
        here = os.getcwd()  # where pitui was started (the listing cwd may be the demo's)
        body = Text("The session's folder ")
        body.append_text(safe_line(shorten_home(cwd) or "(none)"))
        body.append(" does not exist any more.\n\nResume it in the current folder, ")
        body.append_text(safe_line(shorten_home(here)))
        body.append("?")
        self.push_screen(
            ConfirmModal("Folder not found", body, confirm_label="Resume here", danger=False),
            callback=lambda ok: self._exit_resume(ok, path, here, session_id),
        )


def make_app(catalog: Catalog, options: AppOptions | None = None) -> PituiApp:
    return PituiApp(catalog, options or AppOptions())
