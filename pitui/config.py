"""pitui's settings: a TOML file validated by pydantic, errors that name the file and the key.

The file is ``$XDG_CONFIG_HOME/pitui/config.toml`` (or the path in ``PITUI_CONFIG``).
Every field has a default, so a missing file means "all defaults".
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from pitui.core.paths import config_dir

CONFIG_ENV = "PITUI_CONFIG"


class ConfigError(Exception):
    """The config file is unreadable or invalid; ``str(exc)`` names the file and the key."""


class Settings(BaseModel):
    """Everything a user can set. Unknown keys are errors, so typos are caught."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    theme: str = "pi-dark"
    """A Textual theme name (``textual-dark``, ``nord``, …) or ``pi-dark`` / ``pi-light``."""

    resume_command: list[str] = Field(default_factory=lambda: ["pi", "--session", "{path}"])
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

    watch: bool = True
    """Follow session files while pitui is open (``--no-watch`` turns it off for one run)."""

    watch_debounce_ms: int = Field(default=150, ge=10, le=5000)
    """How long file events are gathered before the screens update."""

    keymap: dict[str, str] = Field(default_factory=dict)
    """Key overrides: command id → keys, e.g. ``{"picker.delete" = "ctrl+x"}`` (comma-separated
    for several keys). ``pitui --help-keys`` lists the ids."""

    @field_validator("resume_command")
    @classmethod
    def _non_empty_command(cls, value: list[str]) -> list[str]:
        if not value or not value[0].strip():
            raise ValueError('must name a program, e.g. ["pi", "--session", "{path}"]')
        return value


def config_path() -> Path:
    explicit = os.environ.get(CONFIG_ENV, "")
    return Path(explicit) if explicit else config_dir() / "config.toml"


def load_settings(path: Path | None = None) -> Settings:
    """Read and validate the config file; no file means defaults."""
    path = path if path is not None else config_path()
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return Settings()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read ({exc.strerror or exc})") from exc
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc})") from exc
    try:
        return Settings.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        key = ".".join(str(part) for part in first["loc"]) or "(top level)"
        more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        raise ConfigError(f"{path}: {key}: {first['msg']}{more}") from exc
