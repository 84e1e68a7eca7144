"""The command palette offers the commands of :mod:`pitui.ui.commands` that can run right now.

Each runs where its key would: the app's on the app, a screen's on the screen, and the commands
of a widget the screen holds (the session tree's Up, First, filters…) on that widget, which the
screen names with ``command_node(where)``; a command whose widget is not there is not offered.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.dom import DOMNode

from pitui.ui.commands import Command, commands_for, effective_keys


class PituiCommands(Provider):
    def _node(self, command: Command) -> DOMNode | None:
        """Where ``command`` runs (None: nowhere now)."""
        if command.action.startswith("app."):
            return self.app
        owner = getattr(self.screen, "command_node", None)
        return self.screen if owner is None else owner(command.where)

    def _available(self) -> Iterator[Command]:
        scopes = getattr(self.screen, "COMMAND_SCOPES", ())
        for command in commands_for("app", *scopes):
            if command.id == "app.palette":
                continue
            node = self._node(command)
            action = command.action.rpartition(".")[2]
            if node is None or node.check_action(action, ()) is False:
                continue
            yield command

    def _title(self, command: Command) -> str:
        keys = effective_keys(command, getattr(self.app, "keymap_overrides", {}))
        return f"{command.description} ({keys.replace(',', ' / ')})"

    async def _run(self, command: Command) -> None:
        node = self._node(command)
        if node is not None:
            await self.app.run_action(command.action.rpartition(".")[2], node)

    async def discover(self) -> Hits:
        for command in self._available():
            yield DiscoveryHit(self._title(command), partial(self._run, command), help=command.help)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for command in self._available():
            title = self._title(command)
            score = max(matcher.match(title), matcher.match(command.help) * 0.8)
            if score > 0:
                yield Hit(
                    score, matcher.highlight(title), partial(self._run, command), help=command.help
                )
