"""``pitui --help-keys``: every command that can have a key, by where it works, with the keys it
answers to now, the name to give it in the config's ``[keymap]``, and what it does; each key that
is not pitui's default says where it comes from (the config, pi's ``keybindings.json``).

A config with mistakes is reported (every problem, as pitui reports it when starting) and the
listing shows the keys without its ``[keymap]``: that is what pitui would refuse to start with.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path

from pitui.ui.commands import COMMANDS, WHERE_TITLES, Command

_KEYS_COLUMN = 26
_ID_COLUMN = 30


def keys_listing(keymap: Mapping[str, str], origins: Mapping[str, str]) -> list[str]:
    """The listing's lines: ``keymap`` holds the overrides in force (command id → keys),
    ``origins`` says for each override where it was set."""
    lines: list[str] = []
    for where, title in WHERE_TITLES.items():
        commands = [command for command in COMMANDS if command.where == where]
        if not commands:
            continue
        lines.extend((title, ""))
        for command in commands:
            lines.extend(_command_lines(command, keymap, origins))
        lines.append("")
    return lines


def _command_lines(
    command: Command, keymap: Mapping[str, str], origins: Mapping[str, str]
) -> list[str]:
    keys = keymap.get(command.id, command.keys)
    line = f"  {keys:<{_KEYS_COLUMN}} {command.id:<{_ID_COLUMN}} {command.description}"
    out = [line.rstrip()]
    if keys != command.keys:
        out.append(f"  {'':<{_KEYS_COLUMN}} default {command.keys}; set in {origins[command.id]}")
    out.append(f"  {'':<{_KEYS_COLUMN}} {command.help}")
    return out


def print_keys() -> int:
    """Print the listing for the user's config and pi's keybindings.json; 1 when the config has
    mistakes (they are printed first, on stderr), else 0."""
    from pitui.cli.app import keymap_in_force, settings_problems
    from pitui.config import PI_KEYBINDINGS_FILE, ConfigError, config_path, load_settings
    from pitui.core.paths import agent_dir, shorten_home

    config = config_path()
    problems: list[str] = []
    try:
        user_keymap = load_settings(check=settings_problems).keymap
    except ConfigError as exc:
        problems, user_keymap = exc.problems, {}
    keymap, from_pi = keymap_in_force(user_keymap)
    pi_file = Path(agent_dir()) / PI_KEYBINDINGS_FILE
    origins = {command_id: shorten_home(str(pi_file)) for command_id in from_pi}
    origins.update({command_id: shorten_home(str(config)) for command_id in user_keymap})
    for problem in problems:
        sys.stderr.write(f"pitui: {problem}\n")
    head = [
        "pitui's keys: keys, the command's name in [keymap], what it does.",
        f"Change keys in {shorten_home(str(config))} (PITUI_CONFIG), for example:",
        "  [keymap]",
        '  "tree.first" = "home,g"      # several keys: separated by commas',
        f"pi's {shorten_home(str(pi_file))} is read too, under the config's [keymap].",
    ]
    if problems:
        head.append(f"{shorten_home(str(config))} has mistakes (above): its [keymap] is not shown.")
    sys.stdout.write("\n".join([*head, "", *keys_listing(keymap, origins)]))
    return 1 if problems else 0
