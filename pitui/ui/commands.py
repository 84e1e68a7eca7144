"""Every command of the app, declared once.

From these declarations come the key bindings of each screen and widget, the footer labels, the
command palette entries and the help screen, so they can never disagree. A command's ``id`` is its
binding id, which is also the name users put in the config's ``[keymap]`` to change its keys.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from textual.binding import Binding, BindingType
from textual.keys import KEY_ALIASES, Keys, _character_to_key

Where = Literal["app", "picker", "session", "tree", "context"]

WHERE_TITLES: dict[Where, str] = {
    "app": "Everywhere",
    "picker": "Session picker",
    "session": "Session view",
    "tree": "Session tree",
    "context": "Context pane (tab)",
}


@dataclass(frozen=True, slots=True)
class Command:
    id: str
    keys: str
    action: str
    description: str
    help: str
    where: Where
    show: bool = True
    priority: bool = False
    key_display: str | None = None

    def binding(self) -> Binding:
        return Binding(
            self.keys,
            self.action,
            self.description,
            show=self.show,
            priority=self.priority,
            id=self.id,
            tooltip=self.help,
            key_display=self.key_display,
        )


COMMANDS: tuple[Command, ...] = (
    # Everywhere --------------------------------------------------------------------------------
    Command("app.help", "f1", "app.show_help", "Help", "Show every key and command", "app",
            priority=True),
    Command("app.palette", "ctrl+x", "app.command_palette", "Commands",
            "Search and run any command", "app", show=False, priority=True, key_display="^x"),
    # Picker (pi's /resume keys, ui-behaviour §2.12) -----------------------------------------------
    Command("picker.resume", "enter", "resume", "Resume",
            "Resume the selected session in pi, in its own folder (on a fts: hit or a "
            "label: row, open the session at that entry)", "picker", priority=True),
    Command("picker.quit", "escape,ctrl+c", "quit_picker", "Quit", "Leave pitui", "picker",
            priority=True, key_display="esc"),
    Command("picker.scope", "tab", "toggle_scope", "Scope",
            "Switch between this folder's sessions and "
            "all sessions", "picker", priority=True),
    Command("picker.sort", "ctrl+s", "cycle_sort", "Sort", "Cycle sort: threaded, recent, fuzzy",
            "picker", priority=True),
    Command("picker.named", "ctrl+n", "toggle_named", "Named", "Show only named sessions, or all",
            "picker", priority=True),
    Command("picker.path", "ctrl+p", "toggle_path", "Path", "Show or hide session file paths",
            "picker", priority=True),
    Command("picker.delete", "ctrl+d", "delete", "Delete", "Move the selected session to the trash "
            "(asks first)", "picker", priority=True),
    Command("picker.delete_empty_query", "ctrl+backspace", "delete_if_query_empty", "Delete",
            "Delete the selected session when the search is empty (pi's key)", "picker",
            show=False, priority=True),
    Command("picker.rename", "ctrl+r", "rename", "Rename", "Rename the selected session", "picker",
            priority=True),
    Command("picker.undo", "ctrl+z", "undo", "Undo",
            "Undo the last delete (restore from the trash) "
            "or rename", "picker", priority=True),
    Command("picker.open", "ctrl+t", "open_tree", "Tree", "Open the session's branch tree and "
            "context", "picker", priority=True),
    Command("picker.up", "up", "cursor_up", "Up", "Previous session", "picker", show=False,
            priority=True),
    Command("picker.down", "down", "cursor_down", "Down", "Next session", "picker", show=False,
            priority=True),
    Command("picker.page_up", "pageup", "page_up", "Page up", "Ten sessions up", "picker",
            show=False, priority=True),
    Command("picker.page_down", "pagedown", "page_down", "Page down", "Ten sessions down", "picker",
            show=False, priority=True),
    Command("picker.copy_path", "ctrl+y", "copy_path", "Copy path",
            "Copy the selected session's file path to the clipboard", "picker", show=False,
            priority=True),
    Command("picker.copy_resume", "alt+y", "copy_resume_command", "Copy resume command",
            "Copy the shell command that resumes the selected session in pi", "picker",
            show=False, priority=True),
    Command("picker.pin", "alt+t", "toggle_pin", "Pin",
            "Pin the selected session to the top of its scope, or unpin it", "picker",
            show=False, priority=True),
    Command("picker.stats", "f2", "show_stats", "Stats",
            "Sessions, messages, tokens and cost of the sessions listed now, with spend per day",
            "picker", show=False, priority=True),
    Command("picker.doctor", "f3", "doctor", "Doctor",
            "Check the selected session file for problems (read-only)", "picker", show=False,
            priority=True),
    Command("picker.preview", "f4", "toggle_preview", "Preview",
            "Show or hide the preview (under 100 columns it goes below the list, and is hidden "
            "on a short terminal until shown)", "picker", priority=True),
    Command("picker.show_all", "alt+a", "show_all", "Show all",
            "Unfold everything in the preview (the '… (show all)' markers; a click on the preview "
            "does it too), or fold it again", "picker", show=False, priority=True),
    # Session tree (pi's /tree keys, ui-behaviour §3.14), owned by the BranchTree widget ----------
    Command("tree.up", "up", "cursor_up", "Up", "Previous row (wraps to the last)", "tree",
            show=False),
    Command("tree.down", "down", "cursor_down", "Down", "Next row (wraps to the first)", "tree",
            show=False),
    Command("tree.page_up", "left,pageup,ctrl+b", "page_up", "Page up", "One window up", "tree",
            show=False),
    Command("tree.page_down", "right,pagedown,ctrl+f", "page_down", "Page down",
            "One window down", "tree", show=False),
    # (pi also folds with alt+←/→; here those are back/forward: see session.back)
    Command("tree.fold_or_up", "ctrl+left", "fold_or_up", "Fold/up",
            "Fold the branch, or jump to the previous branch start", "tree", key_display="^←"),
    Command("tree.unfold_or_down", "ctrl+right", "unfold_or_down", "Unfold/down",
            "Unfold the branch, or jump to the next branch start or the branch end", "tree",
            key_display="^→"),
    Command("tree.first", "home", "first", "First", "The first row", "tree", show=False),
    Command("tree.last", "end", "last", "Last", "The last row", "tree", show=False),
    Command("tree.select", "enter", "select", "Select", "Continue from this entry (switch branch)",
            "tree"),
    Command("tree.escape", "escape,ctrl+c", "escape", "Leave", "Clear the search, or leave the "
            "tree", "tree", key_display="esc"),
    Command("tree.filter.default", "ctrl+d", "filter('default')", "Default",
            "Show the default rows (no bookkeeping entries)", "tree", show=False),
    Command("tree.filter.no_tools", "ctrl+t", "toggle_filter('no-tools')", "No tools",
            "Hide tool results (again: default)", "tree", show=False),
    Command("tree.filter.user_only", "ctrl+u", "toggle_filter('user-only')", "User",
            "Only user messages (again: default)", "tree", show=False),
    Command("tree.filter.labeled_only", "ctrl+l", "toggle_filter('labeled-only')", "Labeled",
            "Only labelled entries (again: default)", "tree", show=False),
    Command("tree.filter.all", "ctrl+a", "toggle_filter('all')", "All",
            "Every entry (again: default)", "tree", show=False),
    Command("tree.filter.cycle", "ctrl+o", "cycle_filter(1)", "Filter",
            "Next filter: default, no-tools, user, labeled, all", "tree", key_display="^o"),
    Command("tree.filter.cycle_back", "ctrl+shift+o", "cycle_filter(-1)", "Filter back",
            "Previous filter", "tree", show=False),
    Command("tree.label", "L,shift+l", "edit_label", "Label", "Edit the label of this entry",
            "tree", key_display="L"),
    Command("tree.label_time", "T,shift+t", "toggle_label_times", "Label time",
            "Show or hide when labels were set", "tree", key_display="T"),
    Command("tree.backspace", "backspace", "backspace", "Delete", "Delete the last search "
            "character", "tree", show=False),
    # Context pane (focused): it scrolls with the arrows, pgup/pgdn, home/end; the rest goes to
    # the tree, as if typed there -----------------------------------------------------------------
    Command("context.tree", "escape", "to_tree", "Tree", "Back to the tree", "context",
            key_display="esc"),
    Command("context.label", "L,shift+l", "edit_label", "Label", "Edit the label of the selected "
            "entry", "context", key_display="L"),
    Command("context.label_time", "T,shift+t", "toggle_label_times", "Label time",
            "Show or hide when labels were set", "context", show=False, key_display="T"),
    # Session view ------------------------------------------------------------------------------
    Command("session.back", "alt+left,shift+left", "back", "Back",
            "Back to the entry visited before (jumps, clicks, branch switches; a walk with the "
            "arrows counts once)", "session", key_display="alt+←"),
    Command("session.forward", "alt+right,shift+right", "forward", "Forward",
            "Forward again, after going back", "session", show=False, key_display="alt+→"),
    Command("session.pane", "tab,shift+tab", "other_pane", "Pane",
            "Move between the tree and the context pane", "session", show=False,
            key_display="tab"),
    Command("session.zoom", "alt+z", "zoom", "Zoom", "The pane with focus fills the view (the "
            "other is hidden); again: both panes", "session", show=False),
    Command("session.wider", "alt+w", "resize_tree(10)", "Tree wider",
            "More room for the tree (taller when the context is under it)", "session",
            show=False),
    Command("session.narrower", "alt+shift+w", "resize_tree(-10)", "Tree narrower",
            "Less room for the tree, more for the context", "session", show=False),
    Command("session.leaf", "alt+l", "leaf", "Leaf", "Select the leaf: where pi continues",
            "session"),
    Command("session.show_all", "alt+a", "show_all", "Show all",
            "Unfold everything in the context pane (the '… (show all)' lines, thinking; a click "
            "on such a line does it too), or fold it again; it stays unfolded from entry to "
            "entry", "session"),
    Command("session.previous_leaf", "alt+o", "previous_leaf", "Previous leaf",
            "Select the leaf pi had before it came to this branch (enter continues from it)",
            "session", show=False),
    Command("session.resume", "ctrl+r", "resume", "Resume pi",
            "Leave pitui and resume this session "
            "in pi, in its folder", "session", priority=True),
    Command("session.undo", "ctrl+z", "undo", "Undo", "Undo the last label change, branch switch "
            "(by appending the inverse entry) or prune (the original back from the trash)",
            "session", priority=True),
    Command("session.prune", "D,shift+d", "prune", "Prune", "Remove the selected branch (the "
            "entry and everything under it, not on the active path) from the file, after a "
            "confirmation naming what goes", "session", show=False, priority=True,
            key_display="D"),
    Command("session.extract", "ctrl+e", "extract", "Extract", "Save the branch ending at the "
            "selected entry as a new session file", "session", priority=True),
    Command("session.follow", "ctrl+g", "toggle_follow", "Follow", "Follow new entries as pi "
            "writes them (on when opened at the leaf)", "session", priority=True),
    Command("session.mark", "alt+m", "mark_entry", "Mark",
            "Mark the selected entry to compare its branch with another's (again: unmark)",
            "session", show=False, priority=True),
    Command("session.diff", "alt+d", "diff", "Diff", "Compare the branches of the marked entry "
            "and the selected one (no mark: the leaf's)", "session", show=False, priority=True),
    Command("session.doctor", "f3", "doctor", "Doctor",
            "Check this session file for problems (read-only)", "session", show=False,
            priority=True),
    Command("session.copy_message", "ctrl+y", "copy_message", "Copy message",
            "Copy the selected entry's text to the clipboard", "session", show=False,
            priority=True),
    Command("session.copy_path", "alt+p", "copy_path", "Copy path",
            "Copy the session's file path to the clipboard", "session", show=False,
            priority=True),
    Command("session.copy_resume", "alt+y", "copy_resume_command", "Copy resume command",
            "Copy the shell command that resumes this session in pi", "session", show=False,
            priority=True),
)  # fmt: skip


def commands_for(*where: Where) -> Iterator[Command]:
    return (command for command in COMMANDS if command.where in where)


def bindings_for(where: Where, extra: Iterable[Command] = ()) -> list[BindingType]:
    """The ``BINDINGS`` of the screen or widget that owns the commands of ``where``."""
    return [command.binding() for command in (*commands_for(where), *extra)]


def command_ids() -> set[str]:
    return {command.id for command in COMMANDS}


def effective_keys(command: Command, keymap: dict[str, str]) -> str:
    """The keys a command answers to after the user's ``[keymap]`` overrides."""
    return keymap.get(command.id, command.keys)


# Commands of these places answer keys at the same time (the tree is a widget of the session view;
# the app's own keys work everywhere): one key must not be given to two of them.
_ACTIVE_TOGETHER: tuple[frozenset[Where], ...] = (
    frozenset({"app", "picker"}),
    frozenset({"app", "session", "tree"}),
    frozenset({"app", "session", "context"}),
)
_MODIFIERS = frozenset({"ctrl", "shift", "alt", "meta", "super", "hyper"})


@lru_cache(maxsize=1)
def _key_names() -> frozenset[str]:
    """Every key name Textual can report (without modifiers)."""
    names = {key.value.rpartition("+")[2] for key in Keys}
    names |= {_character_to_key(chr(code)) for code in range(33, 127)}
    names |= {name.rpartition("+")[2] for name in KEY_ALIASES}
    names |= {"space", "tab", "enter", "escape", "backspace", "delete"}
    return frozenset(names)


def key_problem(key: str) -> str | None:
    """Why ``key`` (``ctrl+y``, ``f2``, ``L``) is not a key Textual can report, or None."""
    *modifiers, name = key.split("+")
    unknown = [modifier for modifier in modifiers if modifier not in _MODIFIERS]
    if unknown:
        return f"{key!r}: {unknown[0]!r} is not a modifier (ctrl, shift, alt, meta, super)"
    if not name or (len(name) > 1 and name not in _key_names()) or not name.isprintable():
        return f"{key!r} is not a key name (e.g. ctrl+y, f2, pageup, L)"
    return None


def keymap_problems(keymap: Mapping[str, str]) -> dict[str, list[str]]:
    """What is wrong with ``[keymap]`` overrides, by command id: an unknown id, a key Textual
    cannot name, a key that another command answers to at the same time."""
    by_id = {command.id: command for command in COMMANDS}
    problems: dict[str, list[str]] = {}
    for command_id, keys in keymap.items():
        if command_id not in by_id:
            unknown = "no such command (pitui --help-keys lists the ids)"
            problems.setdefault(command_id, []).append(unknown)
            continue
        for key in (key.strip() for key in keys.split(",")):
            reason = key_problem(key)
            if reason is not None:
                problems.setdefault(command_id, []).append(reason)
    for places in _ACTIVE_TOGETHER:
        for command_id, message in _collisions(places, keymap):
            problems.setdefault(command_id, []).append(message)
    return problems


def _collisions(places: frozenset[Where], keymap: Mapping[str, str]) -> Iterator[tuple[str, str]]:
    """(command id, message) for each key given to two commands of ``places`` by the keymap
    (collisions pitui's own defaults already have are deliberate, and not reported)."""

    def owners(overrides: Mapping[str, str]) -> dict[str, list[Command]]:
        found: dict[str, list[Command]] = {}
        for command in COMMANDS:
            if command.where in places:
                for key in overrides.get(command.id, command.keys).split(","):
                    found.setdefault(key.strip(), []).append(command)
        return found

    default = owners({})
    for key, commands in owners(keymap).items():
        if len(commands) < 2 or {c.id for c in commands} <= {c.id for c in default.get(key, [])}:
            continue
        for command in commands:
            if command.id in keymap:
                others = [o for o in commands if o is not command]
                others_text = ", ".join(f"{o.id} ({o.description})" for o in others)
                yield command.id, f"{key} is also the key of {others_text}"


def drop_taken_keys(
    imported: Mapping[str, str], final: Mapping[str, str]
) -> tuple[dict[str, str], list[tuple[str, str, str]]]:
    """pi's keybindings.json read as overrides (``imported``), without the keys that another
    command answers to at the same time in the ``final`` keymap (pitui's defaults under the
    import and the user's ``[keymap]``): pitui's own keys win over pi's file, as pi's
    ``alt+←``/``alt+→`` fold keys are pitui's back/forward. Returns the overrides kept and
    each (command id, key, the other command's id) left out; a command left with no key keeps
    its pitui default."""
    kept: dict[str, str] = {}
    dropped: list[tuple[str, str, str]] = []
    by_id = {command.id: command for command in COMMANDS}
    for command_id, keys in imported.items():
        command = by_id.get(command_id)
        if command is None or final.get(command_id) != keys:
            continue  # not a command, or the user's [keymap] sets it (the import does not count)
        together = [places for places in _ACTIVE_TOGETHER if command.where in places]
        others = [c for c in COMMANDS if c is not command and any(c.where in p for p in together)]
        left: list[str] = []
        for key in (key.strip() for key in keys.split(",")):
            owner = next((o for o in others if key in _keys(effective_keys(o, dict(final)))), None)
            if owner is None:
                left.append(key)
            else:
                dropped.append((command_id, key, owner.id))
        if left:
            kept[command_id] = ",".join(left)
    return kept, dropped


def _keys(keys: str) -> set[str]:
    return {key.strip() for key in keys.split(",")}
