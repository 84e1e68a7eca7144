"""A branch's context as one self-contained HTML page, drawn by the renderer registry.

Each context message is drawn exactly as the session view draws it (the app's registry: the
built-ins and the installed plug-ins) at a fixed width, and the drawing's segments become
``<span>`` elements with inline styles in a ``<pre>``. Rich's own ``Console.export_html`` is not
used: it puts a segment's link into ``href`` without escaping it, and session text can make links
(Markdown in a message).

The page holds no script and loads nothing: one inline style sheet, every piece of session text
HTML-escaped (after the registry has replaced control characters by visible symbols), links only
to ``http``, ``https`` or ``mailto`` targets, and a Content-Security-Policy that forbids scripts
and remote resources should anything slip through.
"""

from __future__ import annotations

import html

from rich.terminal_theme import TerminalTheme

from pitui.export.document import ExportDocument
from pitui.export.rendered import draw_extensions, draw_messages, lines_html, terminal_theme
from pitui.render.registry import RendererRegistry
from pitui.render.safe_text import one_line

__all__ = ["CSP", "to_html"]

CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"


def text(value: str) -> str:
    """Untrusted text for an HTML element: one line, no control characters, escaped."""
    return html.escape(one_line(value, reveal_invisible=True), quote=True)


def _css(theme: TerminalTheme) -> str:
    background = theme.background_color.hex
    foreground = theme.foreground_color.hex
    # The page's own colours come from the terminal theme the messages were drawn with.
    return f"""
:root {{ color-scheme: light dark; }}
body {{
  margin: 0; padding: 2rem 1rem; background: {background}; color: {foreground};
  font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif;
}}
header, main, footer {{ max-width: 72rem; margin: 0 auto; }}
h1 {{ font-size: 1.5rem; margin: 0 0 1rem; overflow-wrap: anywhere; }}
dl.facts {{
  display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; margin: 0 0 2rem;
}}
dl.facts dt {{ opacity: .7; }}
dl.facts dd {{ margin: 0; font-family: ui-monospace, Menlo, Consolas, monospace;
  overflow-wrap: anywhere; }}
section.message, section.extension {{
  margin: 0 0 1rem; padding: .75rem 1rem; border-radius: 6px;
  border: 1px solid color-mix(in srgb, {foreground} 18%, transparent);
}}
section.extension {{ border-style: dashed; }}
section.message pre, section.extension pre {{
  margin: 0; overflow-x: auto;
  font: 13px/1.35 ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace;
}}
section.message pre a, section.extension pre a {{ color: inherit; }}
footer {{ opacity: .6; font-size: .85rem; margin-top: 2rem; }}
"""


def to_html(
    document: ExportDocument,
    *,
    registry: RendererRegistry | None = None,
    width: int = 100,
    dark: bool = True,
) -> str:
    """The document as an HTML page (``registry``: default the app's, with plug-ins)."""
    theme = terminal_theme(dark)
    drawings = draw_messages(
        document.messages,
        document.sources or None,
        width=width,
        dark=dark,
        registry=registry,
    )
    out: list[str] = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f'<meta name="generator" content="{text(document.generator)}">',
        '<meta name="referrer" content="no-referrer">',
        f"<title>{text(document.title)}</title>",
        f"<style>{_css(theme)}</style>",
        "</head>",
        "<body>",
        "<header>",
        f"<h1>{text(document.title)}</h1>",
        '<dl class="facts">',
    ]
    for label, value in document.facts:
        out.append(f"<dt>{text(label)}</dt><dd>{text(value)}</dd>")
    out.append("</dl>")
    out.append("</header>")
    out.append("<main>")
    extensions = _extensions_at(document, theme, width, dark, registry)
    for number, (message, lines) in enumerate(zip(document.messages, drawings, strict=True), 1):
        out.extend(extensions.get(number - 1, []))
        role = message.get("role")
        source = document.sources[number - 1] if number - 1 < len(document.sources) else ""
        out.append(
            f'<section class="message" id="m{number}" data-role="{text(str(role))}" '
            f'data-entry="{text(source)}">'
        )
        out.append(f"<pre>{lines_html(lines, theme)}</pre>")
        out.append("</section>")
    out.extend(extensions.get(len(document.messages), []))
    if not document.messages:
        out.append("<p>This branch has no messages.</p>")
    out.append("</main>")
    out.append(
        f"<footer>Exported by {text(document.generator)} · {len(document.messages)} "
        "messages</footer>"
    )
    out.append("</body>")
    out.append("</html>")
    return "\n".join(out) + "\n"


def _extensions_at(
    document: ExportDocument,
    theme: TerminalTheme,
    width: int,
    dark: bool,
    registry: RendererRegistry | None,
) -> dict[int, list[str]]:
    """The branch's extension entries drawn by the registry, by the message they come before."""
    out: dict[int, list[str]] = {}
    drawn = draw_extensions(document.extensions, width=width, dark=dark, registry=registry)
    for before, raw, lines in drawn:
        entry_id = raw.get("id")
        out.setdefault(before, []).append(
            f'<section class="extension" data-entry="{text(str(entry_id))}" '
            'title="an extension entry: not sent to the model">'
            f"<pre>{lines_html(lines, theme)}</pre></section>"
        )
    return out
