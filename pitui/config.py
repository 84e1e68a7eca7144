"""pitui's settings: a TOML file validated by pydantic, errors that name the file and the key.

The file is ``$XDG_CONFIG_HOME/pitui/config.toml`` (or the path in ``PITUI_CONFIG``).
Every field has a default, so a missing file means "all defaults".

:class:`Settings` is a plain frozen dataclass and pydantic is imported only to validate a file
that exists: importing pydantic costs more than a tenth of a second, which the picker's first
frame should not wait for when there is nothing to validate.

pi's own ``<agentDir>/keybindings.json`` is read too (:func:`load_pi_keybindings`): its picker
and tree actions become keymap overrides, under the ``[keymap]`` of pitui's config.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal

from pitui.core.paths import config_dir

if TYPE_CHECKING:
    from pydantic import GetCoreSchemaHandler
    from pydantic_core import CoreSchema

CONFIG_ENV = "PITUI_CONFIG"


class ConfigError(Exception):
    """The config file is unreadable or invalid. ``problems`` has every mistake found, each
    naming the file and the key; ``str(exc)`` is those lines."""

    def __init__(self, *problems: str) -> None:
        super().__init__("\n".join(problems))
        self.problems = list(problems)


class _Between:
    """An integer field's bounds, checked by pydantic when a file is validated."""

    def __init__(self, low: int, high: int) -> None:
        self.low, self.high = low, high

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> CoreSchema:
        from pydantic_core import core_schema

        return core_schema.int_schema(ge=self.low, le=self.high)


class _NamesAProgram:
    """A command line whose first word is a program."""

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> CoreSchema:
        from pydantic_core import core_schema

        return core_schema.no_info_after_validator_function(_check_program, handler(source))


def _check_program(value: list[str]) -> list[str]:
    if not value or not value[0].strip():
        raise ValueError('must name a program, e.g. ["pi", "--session", "{path}"]')
    return value


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything a user can set. Unknown keys are errors, so typos are caught."""

    __pydantic_config__: ClassVar[dict[str, Any]] = {"extra": "forbid"}

    theme: str = "pi-dark"
    """A Textual theme name (``textual-dark``, ``nord``, …) or ``pi-dark`` / ``pi-light``."""

    resume_command: Annotated[list[str], _NamesAProgram()] = field(
        default_factory=lambda: ["pi", "--session", "{path}"]
    )
    """The command Enter runs, in the session's folder. ``{path}`` is the session file,
    ``{id}`` the session id, ``{cwd}`` its folder."""

    default_scope: Literal["current", "all"] = "current"
    """Which sessions the picker shows first: this folder's, or every folder's."""

    default_sort: Literal["threaded", "recent", "relevance"] = "threaded"
    """The picker's first sort mode (Ctrl+S cycles)."""

    named_only: bool = False
    """Start with the Named filter on (Ctrl+N toggles)."""

    show_path: bool = False
    """Start with file paths shown in the picker (Ctrl+P toggles)."""

    tree_filter: Literal["default", "no-tools", "user-only", "labeled-only", "all"] = "default"
    """The session tree's first filter mode (pi's ``treeFilterMode``)."""

    tree_width: Annotated[int, _Between(20, 80)] = 50
    """The session view's tree pane, in percent of the width (alt+w / alt+shift+w change it)."""

    tree_height: Annotated[int, _Between(20, 80)] = 60
    """The same, in percent of the height, when the context pane is under the tree (a terminal
    under 110 columns)."""

    session_panes: Literal["both", "tree", "context"] = "both"
    """Which panes the session view shows first: both, or one of them zoomed (alt+z)."""

    watch: bool = True
    """Follow session files while pitui is open (``--no-watch`` turns it off for one run)."""

    watch_debounce_ms: Annotated[int, _Between(10, 5000)] = 150
    """How long file events are gathered before the screens update."""

    keymap: dict[str, str] = field(default_factory=dict)
    """Key overrides: command id → keys, e.g. ``{"picker.sort" = "ctrl+x"}`` (comma-separated
    for several keys). ``pitui --help-keys`` lists the ids, each command's keys and the user's
    overrides."""


def validate_settings(data: object) -> Settings:
    """``data`` (a parsed TOML table) as settings; raises pydantic's ``ValidationError``."""
    from pydantic import TypeAdapter

    return TypeAdapter(Settings).validate_python(data)


def config_path() -> Path:
    explicit = os.environ.get(CONFIG_ENV, "")
    return Path(explicit) if explicit else config_dir() / "config.toml"


def load_settings(
    path: Path | None = None, *, check: Callable[[dict[str, Any]], list[str]] | None = None
) -> Settings:
    """Read and validate the config file; no file means defaults. ``check`` finds what
    validation cannot know (the app's themes and commands) in the parsed table: its problems
    (``key: reason``) are reported with the validation's, all at once."""
    path = path if path is not None else config_path()
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return Settings()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read ({exc.strerror or exc})") from exc
    import tomllib  # (here: only a config file that exists is parsed)

    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc})") from exc
    from pydantic import ValidationError

    problems = []
    try:
        settings = validate_settings(data)
    except ValidationError as exc:
        for error in exc.errors():
            key = ".".join(str(part) for part in error["loc"]) or "(top level)"
            problems.append(f"{path}: {key}: {error['msg']}")
    problems.extend(f"{path}: {problem}" for problem in (check(data) if check else []))
    if problems:
        raise ConfigError(*problems)
    return settings


# ------------------------------------------------------------------ pi's keybindings.json

#: pi's old flat action names and the namespaced names pi migrates them to (ui-behaviour §4; pi
#: 0.73.1 ``KEYBINDING_NAME_MIGRATIONS``), for the actions the picker and the tree use.
PI_LEGACY_ACTIONS: dict[str, str] = {
    "selectUp": "tui.select.up",
    "selectDown": "tui.select.down",
    "selectPageUp": "tui.select.pageUp",
    "selectPageDown": "tui.select.pageDown",
    "selectConfirm": "tui.select.confirm",
    "selectCancel": "tui.select.cancel",
    "tab": "tui.input.tab",
    "cursorLeft": "tui.editor.cursorLeft",
    "cursorRight": "tui.editor.cursorRight",
    "deleteCharBackward": "tui.editor.deleteCharBackward",
    "toggleSessionNamedFilter": "app.session.toggleNamedFilter",
    "toggleSessionPath": "app.session.togglePath",
    "toggleSessionSort": "app.session.toggleSort",
    "renameSession": "app.session.rename",
    "deleteSession": "app.session.delete",
    "deleteSessionNoninvasive": "app.session.deleteNoninvasive",
    "treeFoldOrUp": "app.tree.foldOrUp",
    "treeUnfoldOrDown": "app.tree.unfoldOrDown",
    "treeEditLabel": "app.tree.editLabel",
    "treeToggleLabelTimestamp": "app.tree.toggleLabelTimestamp",
}

#: pi's default keys of those actions (pi 0.73.1, in pi's key syntax). A command whose keys come
#: from several actions keeps the defaults of the actions the file does not set.
PI_DEFAULT_KEYS: dict[str, tuple[str, ...]] = {
    "tui.select.up": ("up",),
    "tui.select.down": ("down",),
    "tui.select.pageUp": ("pageUp",),
    "tui.select.pageDown": ("pageDown",),
    "tui.select.confirm": ("enter",),
    "tui.select.cancel": ("escape", "ctrl+c"),
    "tui.input.tab": ("tab",),
    "tui.editor.cursorLeft": ("left", "ctrl+b"),
    "tui.editor.cursorRight": ("right", "ctrl+f"),
    "tui.editor.deleteCharBackward": ("backspace",),
    "app.session.toggleNamedFilter": ("ctrl+n",),
    "app.session.togglePath": ("ctrl+p",),
    "app.session.toggleSort": ("ctrl+s",),
    "app.session.rename": ("ctrl+r",),
    "app.session.delete": ("ctrl+d",),
    "app.session.deleteNoninvasive": ("ctrl+backspace",),
    "app.tree.foldOrUp": ("ctrl+left", "alt+left"),
    "app.tree.unfoldOrDown": ("ctrl+right", "alt+right"),
    "app.tree.editLabel": ("shift+l",),
    "app.tree.toggleLabelTimestamp": ("shift+t",),
    "app.tree.filter.default": ("ctrl+d",),
    "app.tree.filter.noTools": ("ctrl+t",),
    "app.tree.filter.userOnly": ("ctrl+u",),
    "app.tree.filter.labeledOnly": ("ctrl+l",),
    "app.tree.filter.all": ("ctrl+a",),
    "app.tree.filter.cycleForward": ("ctrl+o",),
    "app.tree.filter.cycleBackward": ("shift+ctrl+o",),
}

#: pitui command id (``pitui/ui/commands.py``) → the pi actions it answers to, as pi's session
#: selector and tree selector check them (the tree pages with cursorLeft/Right and pageUp/Down).
PI_ACTIONS_FOR_COMMAND: dict[str, tuple[str, ...]] = {
    "picker.resume": ("tui.select.confirm",),
    "picker.quit": ("tui.select.cancel",),
    "picker.scope": ("tui.input.tab",),
    "picker.sort": ("app.session.toggleSort",),
    "picker.named": ("app.session.toggleNamedFilter",),
    "picker.path": ("app.session.togglePath",),
    "picker.delete": ("app.session.delete",),
    "picker.delete_empty_query": ("app.session.deleteNoninvasive",),
    "picker.rename": ("app.session.rename",),
    "picker.up": ("tui.select.up",),
    "picker.down": ("tui.select.down",),
    "picker.page_up": ("tui.select.pageUp",),
    "picker.page_down": ("tui.select.pageDown",),
    "tree.up": ("tui.select.up",),
    "tree.down": ("tui.select.down",),
    "tree.page_up": ("tui.editor.cursorLeft", "tui.select.pageUp"),
    "tree.page_down": ("tui.editor.cursorRight", "tui.select.pageDown"),
    "tree.fold_or_up": ("app.tree.foldOrUp",),
    "tree.unfold_or_down": ("app.tree.unfoldOrDown",),
    "tree.select": ("tui.select.confirm",),
    "tree.escape": ("tui.select.cancel",),
    "tree.filter.default": ("app.tree.filter.default",),
    "tree.filter.no_tools": ("app.tree.filter.noTools",),
    "tree.filter.user_only": ("app.tree.filter.userOnly",),
    "tree.filter.labeled_only": ("app.tree.filter.labeledOnly",),
    "tree.filter.all": ("app.tree.filter.all",),
    "tree.filter.cycle": ("app.tree.filter.cycleForward",),
    "tree.filter.cycle_back": ("app.tree.filter.cycleBackward",),
    "tree.label": ("app.tree.editLabel",),
    "tree.label_time": ("app.tree.toggleLabelTimestamp",),
    "tree.backspace": ("tui.editor.deleteCharBackward",),
}

PI_KEYBINDINGS_FILE = "keybindings.json"

_PI_MODIFIERS = ("alt", "ctrl", "shift", "super")  # Textual writes modifiers sorted like this
_PI_KEY_NAMES = {"esc": "escape", "return": "enter", "pageup": "pageup", "pagedown": "pagedown"}
# Textual names a symbol key by its Unicode name, with a few shortened (textual.keys).
_SYMBOL_NAME_REPLACEMENTS = {
    "solidus": "slash",
    "reverse_solidus": "backslash",
    "commercial_at": "at",
    "hyphen_minus": "minus",
    "plus_sign": "plus",
    "low_line": "underscore",
}


def _symbol_key(char: str) -> str:
    import unicodedata

    name = unicodedata.name(char, char).lower().replace("-", "_").replace(" ", "_")
    return _SYMBOL_NAME_REPLACEMENTS.get(name, name)


def pi_key_to_textual(key: str) -> list[str] | None:
    """A key in pi's syntax (``shift+ctrl+o``, ``pageUp``, ``ctrl+]``) as Textual key names, or
    None when pi would not understand it either. A shifted letter is also its capital letter,
    which is what terminals without the kitty protocol send."""
    parts = key.strip().lower().split("+")
    base = parts[-1]
    modifiers = set(parts[:-1])
    if not base or not modifiers <= set(_PI_MODIFIERS) or len(modifiers) != len(parts) - 1:
        return None
    base = _PI_KEY_NAMES.get(base, base)
    if len(base) == 1 and not base.isalnum():
        base = _symbol_key(base)
    name = "+".join([*sorted(modifiers), base])
    if modifiers == {"shift"} and len(base) == 1 and base.isalpha():
        return [base.upper(), name]
    return [name]


def _warn_stderr(message: str) -> None:
    import sys

    sys.stderr.write(f"pitui: warning: {message}\n")


def load_pi_keybindings(
    agent_dir: Path, warn: Callable[[str], None] | None = None
) -> dict[str, str]:
    """pi's ``<agentDir>/keybindings.json`` as pitui keymap overrides (command id → keys).

    Old flat action names are read as pi migrates them (a new name set too wins over the old
    one). Only commands whose pi actions the file sets are returned; where a command follows
    several actions, the ones not set keep pi's defaults. A missing file is no override; a
    malformed file, value or key is skipped with a warning (``warn``, default: stderr), never an
    error: pitui must start whatever pi's file holds.
    """
    report = warn if warn is not None else _warn_stderr
    path = agent_dir / PI_KEYBINDINGS_FILE
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        report(f"{path}: cannot read ({exc.strerror or exc}); pi's key bindings are ignored")
        return {}
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        report(f"{path}: not valid JSON ({exc}); pi's key bindings are ignored")
        return {}
    if not isinstance(data, dict):
        report(f"{path}: not a JSON object; pi's key bindings are ignored")
        return {}
    actions: dict[str, list[str]] = {}
    for name, value in data.items():
        action = PI_LEGACY_ACTIONS.get(name, name)
        if action != name and action in data:
            continue  # pi keeps the new name when both are present
        if action not in PI_DEFAULT_KEYS:
            continue  # an action of pi's editor or main view: nothing of pitui's
        if isinstance(value, str):
            actions[action] = [value]
        elif isinstance(value, list) and all(isinstance(item, str) for item in value):
            actions[action] = list(value)
        else:
            # names and keys come from the file: ascii() so no control character reaches stderr
            report(f"{path}: {name!a}: expected a key or a list of keys; ignored")
    keymap: dict[str, str] = {}
    for command, wanted in PI_ACTIONS_FOR_COMMAND.items():
        if not any(action in actions for action in wanted):
            continue
        keys: list[str] = []
        for action in wanted:
            for key in actions.get(action, PI_DEFAULT_KEYS[action]):
                names = pi_key_to_textual(key)
                if names is None:
                    report(f"{path}: {action}: {key!a} is not a key pitui knows; ignored")
                    continue
                keys.extend(name for name in names if name not in keys)
        if keys:
            keymap[command] = ",".join(keys)
        else:
            report(f"{path}: no keys left for {command}; pitui keeps its default keys")
    return keymap


def pi_default_keys(command_id: str) -> set[str]:
    """pi's default keys (as Textual names) of the pi actions a pitui command answers to."""
    names: set[str] = set()
    for action in PI_ACTIONS_FOR_COMMAND.get(command_id, ()):
        for key in PI_DEFAULT_KEYS[action]:
            names.update(pi_key_to_textual(key) or ())
    return names


def merge_keymaps(pi_keymap: dict[str, str], user_keymap: dict[str, str]) -> dict[str, str]:
    """pi's bindings under the user's own ``[keymap]``: the pitui config wins."""
    return {**pi_keymap, **user_keymap}
