"""The command palette offers the commands of :mod:`pitui.ui.commands` that can run right now."""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider

from pitui.ui.commands import Command, commands_for, effective_keys


class PituiCommands(Provider):
    def _available(self) -> Iterator[Command]:
        screen = self.screen
        scopes = getattr(screen, "COMMAND_SCOPES", ())
        for command in commands_for("app", *scopes):
            if command.id == "app.palette":
                continue
            target, _, action = command.action.rpartition(".")
            node = self.app if target == "app" else screen
            if node.check_action(action, ()) is False:
                continue
            yield command

    def _title(self, command: Command) -> str:
        keys = effective_keys(command, getattr(self.app, "keymap_overrides", {}))
        return f"{command.description} ({keys.replace(',', ' / ')})"

    async def _run(self, command: Command) -> None:
        target, _, action = command.action.rpartition(".")
        if target == "app":
            await self.app.run_action(action)
        else:
            await self.screen.run_action(action)

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
