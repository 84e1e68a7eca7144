"""Every command of the app, declared once.

From these declarations come the key bindings of each screen and widget, the footer labels, the
command palette entries and the help screen, so they can never disagree. A command's ``id`` is its
binding id, which is also the name users put in the config's ``[keymap]`` to change its keys.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Literal

from textual.binding import Binding, BindingType

Where = Literal["app", "picker", "session", "tree"]

WHERE_TITLES: dict[Where, str] = {
    "app": "Everywhere",
    "picker": "Session picker",
    "session": "Session view",
    "tree": "Session tree",
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
            "Resume the selected session in pi, in its "
            "own folder", "picker", priority=True),
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
    Command("picker.stats", "f2", "show_stats", "Stats",
            "Sessions, messages, tokens and cost of the sessions listed now, with spend per day",
            "picker", show=False, priority=True),
    Command("picker.doctor", "f3", "doctor", "Doctor",
            "Check the selected session file for problems (read-only)", "picker", show=False,
            priority=True),
    # Session tree (pi's /tree keys, ui-behaviour §3.14), owned by the BranchTree widget ----------
    Command("tree.up", "up", "cursor_up", "Up", "Previous row (wraps to the last)", "tree",
            show=False),
    Command("tree.down", "down", "cursor_down", "Down", "Next row (wraps to the first)", "tree",
            show=False),
    Command("tree.page_up", "left,pageup,ctrl+b", "page_up", "Page up", "One window up", "tree",
            show=False),
    Command("tree.page_down", "right,pagedown,ctrl+f", "page_down", "Page down",
            "One window down", "tree", show=False),
    Command("tree.fold_or_up", "ctrl+left,alt+left", "fold_or_up", "Fold/up",
            "Fold the branch, or jump to the previous branch start", "tree", key_display="^←"),
    Command("tree.unfold_or_down", "ctrl+right,alt+right", "unfold_or_down", "Unfold/down",
            "Unfold the branch, or jump to the next branch start or the branch end", "tree",
            key_display="^→"),
    Command("tree.select", "enter", "select", "Select", "Continue from this entry (switch branch)",
            "tree"),
    Command("tree.escape", "escape,ctrl+c", "escape", "Back", "Clear the search, or leave the tree",
            "tree", key_display="esc"),
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
    # Session view ------------------------------------------------------------------------------
    Command("session.resume", "ctrl+r", "resume", "Resume pi",
            "Leave pitui and resume this session "
            "in pi, in its folder", "session", priority=True),
    Command("session.undo", "ctrl+z", "undo", "Undo", "Undo the last label change or branch switch "
            "(by appending the inverse entry)", "session", priority=True),
    Command("session.extract", "ctrl+e", "extract", "Extract", "Save the branch ending at the "
            "selected entry as a new session file", "session", priority=True),
    Command("session.follow", "ctrl+g", "toggle_follow", "Follow", "Follow new entries as pi "
            "writes them (on when opened at the leaf)", "session", priority=True),
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
