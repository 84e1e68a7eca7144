"""Starting the full-screen app: ``pitui`` (the picker), ``pitui open PATH|ID`` (one session)."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NoReturn

import click

from pitui.cli.common import (
    CONTEXT_SETTINGS,
    CommandError,
    arguments,
    session_argument,
    session_dir_option,
)


@click.command(
    "open",
    context_settings=CONTEXT_SETTINGS,
    short_help="open one session's branch tree and context",
)
@session_argument
@session_dir_option
@click.option("--entry", metavar="ID", help="select this entry first")
@click.option("--no-watch", is_flag=True, help="do not follow the file")
@click.option("--print", "print_only", is_flag=True, hidden=True)
def command(**params: Any) -> int:
    """Show the session's tree; switch branch, label entries, then resume pi there."""
    return run_open(arguments(**params))


def _settings() -> Any:
    """The config file, with pi's own keybindings.json under it (the user's [keymap] wins)."""
    from pitui.config import ConfigError, load_settings

    try:
        settings = load_settings(check=settings_problems)
    except ConfigError as exc:
        _config_failed(exc.problems)
    keymap, _ = keymap_in_force(settings.keymap)
    return dataclasses.replace(settings, keymap=keymap)


def keymap_in_force(user_keymap: dict[str, str]) -> tuple[dict[str, str], dict[str, str]]:
    """The overrides in force: pi's keybindings.json under the user's ``[keymap]``, less pi's
    keys that pitui gives to another command; and the overrides taken from pi's file."""
    from pitui.config import load_pi_keybindings, merge_keymaps
    from pitui.core.paths import agent_dir

    pi_keymap = load_pi_keybindings(agent_dir())
    if not pi_keymap:
        return dict(user_keymap), {}
    kept = _without_taken_keys(pi_keymap, merge_keymaps(pi_keymap, user_keymap))
    return merge_keymaps(kept, user_keymap), kept


def _without_taken_keys(pi_keymap: dict[str, str], keymap: dict[str, str]) -> dict[str, str]:
    """pi's keys, less those pitui gives to another command at the same time (pitui's win; a
    pi default such as the fold key alt+left, pitui's Back, is left out without a word)."""
    from pitui.config import pi_default_keys
    from pitui.ui.commands import drop_taken_keys

    kept, dropped = drop_taken_keys(pi_keymap, keymap)
    for command_id, key, other in dropped:
        if key not in pi_default_keys(command_id):
            sys.stderr.write(
                f"pitui: warning: pi's keybindings.json gives {key!a} to {command_id}, but it is "
                f"pitui's key for {other}; not taken (set keys in pitui's [keymap])\n"
            )
    return kept


def settings_problems(data: dict[str, Any]) -> list[str]:
    """What validation cannot know about the config (its parsed table): an unknown theme,
    keymap ids, keys and collisions (a key that two commands answer to at the same time)."""
    from pitui.ui.commands import keymap_problems
    from pitui.ui.themes import theme_problem

    problems = []
    theme = data.get("theme")
    reason = theme_problem(theme) if isinstance(theme, str) else None
    if reason is not None:
        problems.append(f"theme: {reason}")
    keymap = data.get("keymap")
    if isinstance(keymap, dict):
        valid = {k: v for k, v in keymap.items() if isinstance(v, str)}  # (others: validation)
        for command_id, reasons in keymap_problems(valid).items():
            problems.extend(f"keymap.{command_id}: {reason}" for reason in reasons)
    return problems


def _config_failed(problems: list[str]) -> NoReturn:
    """Every problem of the config on its own line; the last one as the command's error."""
    from pitui.render.safe_text import sanitize_plain

    for problem in problems[:-1]:
        sys.stderr.write(f"pitui: {sanitize_plain(problem, reveal_invisible=False)}\n")
    raise CommandError(problems[-1])


def _has_sessions(agent: Path) -> bool:
    root = agent / "sessions"
    try:
        with os.scandir(root) as folders:
            for folder in folders:
                if folder.is_dir() and any(n.endswith(".jsonl") for n in os.listdir(folder.path)):
                    return True
    except OSError:
        return False
    return False


def _demo_or_none(args: argparse.Namespace, agent: Path) -> tuple[Path, str] | None:
    """The demo store's (agent dir, cwd): asked for, or offered because there are no sessions."""
    from pitui.core.paths import shorten_home

    wanted = args.demo
    if not wanted and getattr(args, "session_dir", None) is None and not _has_sessions(agent):
        sys.stderr.write(f"pitui: no pi sessions in {shorten_home(str(agent / 'sessions'))} yet.\n")
        if not sys.stdin.isatty():
            sys.stderr.write("Try the built-in demo store: pitui --demo\n")
            raise SystemExit(1)
        answer = input("Browse the built-in demo store instead? [Y/n] ").strip().lower()
        wanted = answer in ("", "y", "yes")
        if not wanted:
            raise SystemExit(0)
    if not wanted:
        return None
    from pitui.demo import ensure_demo_store

    demo = ensure_demo_store()
    return demo.agent_dir, demo.cwd


def _run(app_options: Any, catalog: Any) -> int:
    from pitui.launch import ResumeRequest, run_resume
    from pitui.ui.app import PrintRequest, make_app

    store = catalog.store
    try:
        with _on_the_terminal():
            result = make_app(catalog, app_options).run()
    finally:
        store.close()
    for warning in store.warnings:
        sys.stderr.write(f"pitui: {warning}\n")
    if isinstance(result, PrintRequest):
        sys.stdout.write(result.path + "\n")
        return 0
    if app_options.print_only:  # (`pi --session "$(pitui --print)"` must not run with "")
        raise CommandError("no session was chosen")
    if isinstance(result, ResumeRequest):
        return run_resume(result)
    return 0


@contextlib.contextmanager
def _on_the_terminal() -> Iterator[None]:
    """While the app runs, the standard streams that are not the terminal are the terminal.

    In ``p=$(pitui --print)`` stdout is a pipe: Textual, which measures the screen on stdout (at
    start and at each resize), would draw 80×24 whatever the terminal. The real terminal,
    ``/dev/tty``, stands in for each such stream until the app has left; then they are put back
    (the chosen path goes to the pipe, pi inherits the streams it was given). Without a
    terminal (no ``/dev/tty``) nothing changes.
    """
    streams = [fd for fd in (0, 1, 2) if not os.isatty(fd)]
    if not streams:
        yield
        return
    try:
        terminal = os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY)
    except OSError:  # no terminal at all (a headless run): the streams stay as they are
        yield
        return
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    saved = {fd: os.dup(fd) for fd in streams}
    try:
        for fd in streams:
            os.dup2(terminal, fd)
        yield
    finally:
        for stream in (sys.stdout, sys.stderr):  # (what the app left there is the terminal's)
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
        for fd, copy in saved.items():
            os.dup2(copy, fd)
            os.close(copy)
        os.close(terminal)


def run_picker(args: argparse.Namespace) -> int:
    with _collector_held():
        return _run_picker(args)


def run_open(args: argparse.Namespace) -> int:
    with _collector_held():
        return _run_open(args)


@contextlib.contextmanager
def _collector_held() -> Iterator[None]:
    """No cyclic garbage collection from here to the app's first frame, where the app ends the
    pause (:func:`pitui.core.memory.release_collector`); ended here if the app had no frame."""
    from pitui.core.memory import hold_collector, release_collector

    hold_collector()
    try:
        yield
    finally:
        release_collector(freeze=False)


def _run_picker(args: argparse.Namespace) -> int:
    from pitui.core.paths import agent_dir
    from pitui.core.store import Store
    from pitui.ui.catalog import Scope, StoreCatalog

    settings = _settings()
    agent = agent_dir()
    cwd = os.getcwd()
    demo = _demo_or_none(args, agent)
    if demo is not None:
        agent, cwd = demo
    store = Store(cwd=cwd, agent=agent, session_dir=args.session_dir, use_index=not args.no_index)
    catalog = StoreCatalog(store)
    scope: Scope = "all" if args.all else settings.default_scope
    catalog.read_ahead(scope)  # the first rows, shown in the first frame
    from pitui.ui.app import AppOptions

    options = AppOptions(
        settings=settings,
        cwd=cwd,
        scope=scope,
        print_only=args.print_only,
        current_session=os.path.abspath(args.current) if args.current else None,
        watch=not args.no_watch,
    )
    return _run(options, catalog)


def _run_open(args: argparse.Namespace) -> int:
    from pitui.core.lookup import AmbiguousIdError, SessionNotFoundError, find_session
    from pitui.core.paths import agent_dir
    from pitui.core.store import Store
    from pitui.ui.app import AppOptions
    from pitui.ui.catalog import StoreCatalog

    settings = _settings()
    try:
        path = find_session(args.session)
    except (AmbiguousIdError, SessionNotFoundError) as exc:
        raise CommandError(str(exc)) from exc
    store = Store(cwd=os.getcwd(), agent=agent_dir())
    options = AppOptions(
        settings=settings,
        open_path=path,
        open_entry=args.entry,
        watch=not args.no_watch,
        print_only=args.print_only,
    )
    return _run(options, StoreCatalog(store))
