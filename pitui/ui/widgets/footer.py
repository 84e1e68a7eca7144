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
"""

from __future__ import annotations

from textual.widgets import Footer as TextualFooter


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
        return (self.size.width, shown, palette_key)

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
