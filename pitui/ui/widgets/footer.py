"""Textual's key footer, without the memory it keeps of every earlier set of keys.

Each change of a screen's bindings makes :class:`textual.widgets.Footer` recompose: it removes
its ``FooterKey`` widgets and builds new ones, each ``data_bind``-ing the footer's ``compact``.
Textual files each such binding as a watcher on the footer and prunes the watchers of removed
widgets only when ``compact`` changes — which it never does — so every recompose keeps the old
keys, their styles and caches alive (Textual issue #6666: about 12 widgets a recompose; the
picker under appends recomposed twice a second and grew without end). This footer drops the
watchers of the widgets it removed after each recompose.
"""

from __future__ import annotations

from textual.widgets import Footer as TextualFooter


class Footer(TextualFooter):
    async def recompose(self) -> None:
        await super().recompose()
        # (the name Textual stores them under; a Reactable's own ``_closing`` marks the removed)
        watchers: dict[str, list[tuple[object, object]]] = getattr(self, "__watchers", {})
        for entries in watchers.values():
            entries[:] = [entry for entry in entries if not getattr(entry[0], "_closing", False)]
