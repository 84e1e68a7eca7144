"""Textual's key footer, without the memory it keeps of every earlier set of keys.

Each change of a screen's bindings makes :class:`textual.widgets.Footer` recompose: it removes
its ``FooterKey`` widgets and builds new ones, each ``data_bind``-ing the footer's ``compact``.
Textual files each such binding as a watcher on the footer and prunes the watchers of removed
widgets only when ``compact`` changes — which it never does — so every recompose keeps the old
keys, their styles and caches alive (Textual issue #6666: about 12 widgets a recompose; the
picker under appends recomposed twice a second and grew without end). This footer drops the
watchers of the widgets it removed after each recompose.

And it recomposes only when the keys would differ: a change of the screen's bindings (the
selection, a focus) often leaves the shown keys as they were, and building and styling a dozen
key widgets again cost the picker a tenth of its CPU time to the first frame.

A key that toggles says what it would do now: a screen with :meth:`HasFooterLabels.footer_labels`
gives the label of such a key by its action (``Fold all`` while everything is shown), and calls
``refresh_bindings`` when its state changes (the keys are built again only if a label did).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol, runtime_checkable

from textual.app import ComposeResult
from textual.widgets import Footer as TextualFooter
from textual.widgets._footer import FooterKey


@runtime_checkable
class HasFooterLabels(Protocol):
    def footer_labels(self) -> Mapping[str, str]:
        """The labels of the keys whose meaning follows the screen's state, by action."""


class Footer(TextualFooter):
    _composed_for: tuple[object, ...] | None = None  # what the keys shown were built from

    def _keys_wanted(self) -> tuple[object, ...]:
        """What :meth:`compose` builds the keys from: the screen's shown bindings as the keys
        show them, the command palette's, and the width (a subclass may lay keys out by it)."""
        if not self._bindings_ready:
            return ()
        app = self.app
        active = self.screen.active_bindings
        shown = tuple(
            (b.key, app.get_key_display(b), b.description, b.action, enabled, tip, b.group)
            for _, b, enabled, tip in active.values()
            if b.show
        )
        palette = active.get(app.COMMAND_PALETTE_BINDING)
        palette_key = None
        if palette is not None and self.show_command_palette and app.ENABLE_COMMAND_PALETTE:
            _, binding, enabled, _tip = palette
            display = app.get_key_display(binding)
            palette_key = (binding.key, display, binding.description, enabled, binding.tooltip)
        return (self.size.width, shown, palette_key, tuple(self._labels().items()))

    def _labels(self) -> Mapping[str, str]:
        screen = self.screen
        return screen.footer_labels() if isinstance(screen, HasFooterLabels) else {}

    def compose(self) -> ComposeResult:
        labels = self._labels()
        for widget in super().compose():
            if isinstance(widget, FooterKey) and widget.action in labels:
                widget.description = labels[widget.action]
            yield widget

    async def recompose(self) -> None:
        if not self.is_attached:  # (a screen gone with a recompose still due: Textual's skips)
            return
        wanted = self._keys_wanted()
        if wanted == self._composed_for:
            return
        self._composed_for = wanted
        await super().recompose()
        # (the name Textual stores them under; a Reactable's own ``_closing`` marks the removed)
        watchers: dict[str, list[tuple[object, object]]] = getattr(self, "__watchers", {})
        for entries in watchers.values():
            entries[:] = [entry for entry in entries if not getattr(entry[0], "_closing", False)]
