"""Building blocks of the built-in renderers: folded text, Markdown, command output, JSON, usage.

Every function here takes untrusted text and returns something safe to draw: text is sanitized
(:func:`~pitui.render.safe_text.sanitize_plain` / :func:`~pitui.render.safe_text.safe_text`)
before any parser sees it, and cut *before* parsing, so a 60,000-character line or a 5 MB tool
output costs no more than the part that is shown. The cut adds a marker line
``… N more characters (show all)``; a renderer called with ``ctx.expanded`` passes no limits.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, ClassVar, Final

from markdown_it import MarkdownIt
from markdown_it.token import Token
from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.markdown import CodeBlock, Markdown, MarkdownElement
from rich.measure import Measurement
from rich.segment import Segment
from rich.style import Style, StyleType
from rich.syntax import Syntax
from rich.text import Text

from pitui.core.facts import usage_numbers
from pitui.core.units import format_cost, format_count, plural
from pitui.render.fallback import dump_json
from pitui.render.safe_text import (
    MARKER_STYLE,
    safe_text,
    sanitize_plain,
)

__all__ = [
    "COMMON_LEXERS",
    "MARKDOWN_MAX_CHARS",
    "DiffBlock",
    "HighlightedCode",
    "Indent",
    "OutputBlock",
    "SafeMarkdown",
    "code_theme",
    "cut_text",
    "diff_block",
    "dump_json",
    "fold_cells",
    "json_block",
    "lexer_for_path",
    "markdown_block",
    "more_marker",
    "output_block",
    "squash",
    "syntax_block",
    "usage_text",
    "warm_up",
]

#: Even when everything is shown, text longer than this is drawn plain, not as Markdown: Rich's
#: Markdown and word wrapping take seconds on megabytes, a plain block a fraction of that.
MARKDOWN_MAX_CHARS: Final = 100_000
#: Lines of a plain block that keep their dimmed symbols; beyond, symbols are shown undimmed.
MAX_STYLED_LINES: Final = 2_000
# Rows sent as one multi-line segment. Rich splits such a segment with repeated str.partition,
# which copies the rest each time: keep runs short enough that this stays linear in practice.
_RUN_ROWS: Final = 48

DIM: Final = Style(dim=True)
ADDED: Final = Style(color="green")
REMOVED: Final = Style(color="red")
HUNK: Final = Style(color="cyan")

# One parser for every Markdown block (building one costs more than parsing a message). HTML is
# off: Rich drops HTML tokens, which would silently hide ``<script>`` text and our own ``<RLO>``
# style symbols; with HTML off they are plain text.
_PARSER: Final = MarkdownIt("commonmark", {"html": False}).enable("strikethrough").enable("table")


def _parse(markup: str) -> list[Token]:
    """Parse with line breaks kept, as chat UIs do: people paste logs and lists into prompts
    without Markdown's blank lines (Rich would join the lines of a paragraph)."""
    tokens = _PARSER.parse(markup)
    for token in tokens:
        for child in token.children or ():
            if child.type == "softbreak":
                child.type = "hardbreak"
    return tokens


_MARKDOWN_TEMPLATE: Final = Markdown("")


class _CodeBlock(CodeBlock):
    """A fenced or indented code block of a message, drawn by :class:`HighlightedCode`."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        code = str(self.text).rstrip()
        yield HighlightedCode(code, self.lexer_name, dark=self.theme != "ansi_light", gutter="▏ ")


class SafeMarkdown(Markdown):
    """Rich Markdown without HTML, without hyperlinks, with a shared parser.

    Give it sanitized text (:func:`markdown_block` does). Links are drawn as ``text (url)`` so
    an untrusted link target is always visible and never a hidden clickable escape sequence.
    """

    elements: ClassVar[dict[str, type[MarkdownElement]]] = {
        **Markdown.elements,
        "fence": _CodeBlock,
        "code_block": _CodeBlock,
    }

    def __init__(self, markup: str, *, code_theme: str, style: StyleType = "none") -> None:
        # Markdown.__init__ builds a new MarkdownIt per instance; copy a template's attributes
        # instead so that attributes added by newer Rich versions are present too.
        self.__dict__.update(_MARKDOWN_TEMPLATE.__dict__)
        self.markup = markup
        self.parsed = _parse(markup)
        self.code_theme = code_theme
        self.inline_code_theme = code_theme
        self.style = style
        self.hyperlinks = False


def code_theme(dark: bool) -> str:
    """Syntax theme for code: the terminal's own ANSI colours, no background box."""
    return "ansi_dark" if dark else "ansi_light"


# --- cutting ------------------------------------------------------------------------------


def cut_text(
    text: str, max_chars: int | None, max_lines: int | None = None, *, tail: bool = False
) -> tuple[str, str | None]:
    """Cut ``text`` to at most ``max_lines`` lines and ``max_chars`` characters.

    Returns the part to show and the marker text (None when nothing was cut). With ``tail``
    the end is kept (for command output, whose last lines matter most).
    """
    if max_lines is not None and max_lines > 0:
        stripped = text[:-1] if text.endswith("\n") else text
        total = stripped.count("\n") + 1
        if total > max_lines:
            if tail:
                pos = len(stripped)
                for _ in range(max_lines):
                    pos = stripped.rfind("\n", 0, pos)
                kept = stripped[pos + 1 :]
                kept, _ = _cut_chars(kept, max_chars, tail=True)
                word = "earlier line"
            else:
                pos = -1
                for _ in range(max_lines):
                    pos = stripped.find("\n", pos + 1)
                kept = stripped[:pos]
                kept, _ = _cut_chars(kept, max_chars, tail=False)
                word = "more line"
            shown = kept.count("\n") + 1
            return kept, f"… {plural(total - shown, word)} (show all)"
    return _cut_chars(text, max_chars, tail=tail)


def _cut_chars(text: str, max_chars: int | None, *, tail: bool) -> tuple[str, str | None]:
    if max_chars is None or len(text) <= max_chars:
        return text, None
    more = len(text) - max_chars
    if tail:
        return text[more:], f"… {plural(more, 'earlier character')} (show all)"
    return text[:max_chars], f"… {plural(more, 'more character')} (show all)"


def more_marker(marker: str) -> Text:
    """The line that says what was cut."""
    return Text(marker, style=MARKER_STYLE, end="\n")


def _with_marker(body: RenderableType, marker: str | None, *, tail: bool = False) -> RenderableType:
    if marker is None:
        return body
    return Group(more_marker(marker), body) if tail else Group(body, more_marker(marker))


# --- Markdown -----------------------------------------------------------------------------


def markdown_block(
    text: str,
    *,
    dark: bool = True,
    expanded: bool = False,
    max_chars: int | None = 6_000,
    max_lines: int | None = 150,
    style: StyleType = "none",
) -> RenderableType:
    """Untrusted Markdown (message text), cut first, then parsed; code blocks highlighted."""
    if expanded:
        max_chars = max_lines = None
    kept, marker = cut_text(text, max_chars, max_lines)
    if len(kept) > MARKDOWN_MAX_CHARS:
        return _as_plain(kept, marker, "too long for Markdown", style)
    body = SafeMarkdown(sanitize_plain(kept), code_theme=code_theme(dark), style=style)
    if any(token.level >= _DEEPEST for token in body.parsed):
        # the parser stops at its nesting limit and drops what is deeper: 25 '>' and a word
        # drew nothing at all
        return _as_plain(kept, marker, "nested too deeply for Markdown", style)
    return _with_marker(body, marker)


# Tokens this deep are at the parser's limit (markdown-it's maxNesting), beyond which it drops
# the text: such a message is shown as plain text (a 19-deep quote is too, harmlessly).
_DEEPEST: Final = int(_PARSER.options["maxNesting"]) - 1


def _as_plain(text: str, marker: str | None, why: str, style: StyleType) -> RenderableType:
    note = Text(f"({why}: shown as plain text)", style=MARKER_STYLE)
    return _with_marker(Group(note, OutputBlock(text, style=style)), marker)


# --- plain output ---------------------------------------------------------------------------


def fold_cells(text: str, width: int) -> list[str]:
    """``text`` cut into pieces of at most ``width`` cells (a character wider than ``width``
    gets a piece of its own). Rich's ``chop_cells`` walks grapheme by grapheme in Python, about
    100 µs for a line; this measures slices, a few µs."""
    width = max(width, 1)
    pieces: list[str] = []
    pos = 0
    size = len(text)
    while pos < size:
        count = min(width, size - pos)
        piece = text[pos : pos + count]
        cells = cell_len(piece)
        while cells > width and count > 1:
            count -= max((cells - width + 1) // 2, 1)  # each character takes at most 2 cells
            piece = text[pos : pos + count]
            cells = cell_len(piece)
        pieces.append(piece)
        pos += count
    return pieces


class OutputBlock:
    """Untrusted command or tool output, drawn like a terminal shows it.

    Lines are kept as they are and folded at the width (no word wrapping: output is often code,
    paths or tables); every unsafe character is a visible symbol, dimmed on the first
    :data:`MAX_STYLED_LINES` lines that have one. Drawing is linear in the size of the text
    (a 5 MB output folds in well under a second, where a ``Text`` of it takes many seconds).
    """

    def __init__(self, text: str, *, style: StyleType = "") -> None:
        if text.endswith("\n"):
            text = text[:-1]  # the newline that ends the last line starts no new one
        self._raw = text
        self._clean = sanitize_plain(text)
        self.style = style

    def line_style(self, line: str, base: Style | None) -> Style | None:
        """The style of one (sanitized) line; subclasses colour lines by their content."""
        return base

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = max(options.max_width, 1)
        base = console.get_style(self.style) if self.style else None
        clean_lines = self._clean.split("\n")
        # Sanitizing keeps the line count (\r\n became \n, other breaks became symbols), so a
        # line that changed can be found by comparing with the raw text line by line.
        raw_lines = (
            clean_lines if self._clean == self._raw else self._raw.replace("\r\n", "\n").split("\n")
        )
        if len(raw_lines) != len(clean_lines):
            raw_lines = clean_lines  # cannot happen; never trust alignment blindly
        styled = 0
        line_style = self.line_style
        # Consecutive rows of one style go out as one multi-line segment: a 5 MB output is
        # ~60,000 rows, and every segment costs the same again in each layer it passes through.
        run: list[str] = []
        run_style: Style | None = None
        for raw, clean in zip(raw_lines, clean_lines, strict=True):
            style = line_style(clean, base)
            if (
                raw is not clean
                and raw != clean
                and styled < MAX_STYLED_LINES
                and ("\t" not in raw or raw.expandtabs(4) != clean)
            ):
                styled += 1
                if run:
                    yield Segment("\n".join(run) + "\n", run_style)
                    run = []
                yield from self._styled_line(console, raw, width, style)
                continue
            if style != run_style or len(run) >= _RUN_ROWS:
                if run:
                    yield Segment("\n".join(run) + "\n", run_style)
                    run = []
                run_style = style
            if len(clean) <= width and (clean.isascii() or cell_len(clean) <= width):
                run.append(clean)
                continue
            rows = (
                [clean[start : start + width] for start in range(0, len(clean), width)]
                if clean.isascii()
                else fold_cells(clean, width)
            )
            # One long line folds into many rows: they go out _RUN_ROWS at a time too (a single
            # segment of 40,000 rows makes Rich's line splitting quadratic).
            run.extend(rows)
            if len(run) > _RUN_ROWS:
                last = len(run) - len(run) % _RUN_ROWS
                for start in range(0, last, _RUN_ROWS):
                    yield Segment("\n".join(run[start : start + _RUN_ROWS]) + "\n", run_style)
                run = run[last:]
        if run:
            yield Segment("\n".join(run) + "\n", run_style)

    @staticmethod
    def _styled_line(
        console: Console, raw: str, width: int, style: Style | None
    ) -> Iterable[Segment]:
        text = safe_text(raw, max_chars=None, style=style or "")
        text.end = ""
        plain = text.plain
        if not plain:
            yield Segment.line()
            return
        offsets: list[int] = []
        pos = 0
        for piece in fold_cells(plain, width):
            pos += len(piece)
            offsets.append(pos)
        for part in text.divide(offsets[:-1]):
            yield from part.render(console, end="")
            yield Segment.line()

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement(1, options.max_width)


class Indent:
    """A renderable drawn ``width`` cells to the right (Rich's ``Padding`` also pads every line
    to the full width, which costs more than drawing most entries)."""

    def __init__(self, renderable: RenderableType, width: int = 2) -> None:
        self.renderable = renderable
        self.width = width

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        spaces = " " * self.width
        pad = Segment(spaces)
        inner = options.update_width(max(options.max_width - self.width, 1))
        new_line = Segment.line()
        run: list[str] = []  # unstyled rows, sent as one segment (see OutputBlock)
        for line in Segment.split_lines(console.render(self.renderable, inner)):
            if not line or (len(line) == 1 and line[0].style is None and not line[0].control):
                run.append(spaces + line[0].text if line else spaces)
                if len(run) < _RUN_ROWS:
                    continue
            if run:
                yield Segment("\n".join(run) + "\n")
                run = []
                if not line or (len(line) == 1 and line[0].style is None):
                    continue
            yield pad
            yield from line
            yield new_line
        if run:
            yield Segment("\n".join(run) + "\n")

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        inner = options.update_width(max(options.max_width - self.width, 1))
        measured = Measurement.get(console, inner, self.renderable)
        return Measurement(measured.minimum + self.width, measured.maximum + self.width)


def output_block(
    text: str,
    *,
    expanded: bool = False,
    max_lines: int | None = 20,
    max_chars: int | None = 4_000,
    tail: bool = False,
    style: StyleType = "",
) -> RenderableType:
    """Folded command/tool output: the first (or, with ``tail``, last) lines and a marker."""
    if expanded:
        max_chars = max_lines = None
    kept, marker = cut_text(text, max_chars, max_lines, tail=tail)
    return _with_marker(OutputBlock(kept, style=style), marker, tail=tail)


# File extensions worth highlighting, to a Pygments lexer alias (looking lexers up by file name
# walks every lexer Pygments has; this table is instant).
_LEXERS: Final = {
    "py": "python", "pyi": "python", "ts": "typescript", "tsx": "tsx", "js": "javascript",
    "mjs": "javascript", "cjs": "javascript", "jsx": "jsx", "json": "json", "jsonl": "json",
    "md": "markdown", "sh": "bash", "bash": "bash", "zsh": "bash", "yml": "yaml", "yaml": "yaml",
    "toml": "toml", "rs": "rust", "go": "go", "c": "c", "h": "c", "cpp": "cpp", "hpp": "cpp",
    "cc": "cpp", "java": "java", "kt": "kotlin", "rb": "ruby", "css": "css", "scss": "scss",
    "html": "html", "sql": "sql", "swift": "swift", "lua": "lua", "php": "php", "xml": "xml",
    "ini": "ini", "cfg": "ini", "dockerfile": "docker", "tf": "terraform", "vue": "vue",
}  # fmt: skip


def lexer_for_path(path: object) -> str | None:
    """A Pygments lexer alias for a file path, by its extension (None: not highlighted)."""
    if not isinstance(path, str):
        return None
    name = path.rstrip("/").rpartition("/")[2].lower()
    if name == "dockerfile":
        return "docker"
    ext = name.rpartition(".")[2] if "." in name else ""
    return _LEXERS.get(ext)


_LEXER_CACHE: dict[str, Any] = {}


def _lexer(name: str) -> Any:
    """A Pygments lexer by alias, made once (None: no such lexer, draw plain)."""
    try:
        return _LEXER_CACHE[name]
    except KeyError:
        pass
    lexer = Syntax("", name).lexer  # Rich's lookup: None for an unknown name
    if len(_LEXER_CACHE) < 256:  # names come from untrusted fences: bound the cache
        _LEXER_CACHE[name] = lexer
    return lexer


#: Lexers worth preparing before the first screen needs them (see :func:`warm_up`).
COMMON_LEXERS: Final = ("python", "typescript", "javascript", "json", "bash", "markdown", "text")


def warm_up(lexers: Iterable[str] = COMMON_LEXERS) -> None:
    """Prepare Pygments lexers ahead of time (call from a worker thread at start-up).

    A lexer compiles its regular expressions when first made: 20-150 ms for the big ones, paid
    by whichever screenful first shows that language. Everything else warms up in milliseconds.
    """
    for name in lexers:
        _lexer(name)


class HighlightedCode:
    """Sanitized code, highlighted with the terminal's ANSI colours and folded at the width.

    Rich's ``Syntax`` builds a ``Text`` and word-wraps it, several milliseconds for twenty
    lines; this turns Pygments tokens straight into segments, a fraction of that.
    """

    def __init__(self, code: str, lexer: str, *, dark: bool = True, gutter: str = "") -> None:
        self.code = code
        self.lexer = lexer
        self.dark = dark
        self.gutter = gutter

    def _lines(self) -> list[list[Segment]]:
        lexer = _lexer(self.lexer)
        lines: list[list[Segment]] = [[]]
        if lexer is None:
            return [[Segment(line)] if line else [] for line in self.code.split("\n")]
        theme = Syntax.get_theme(code_theme(self.dark))
        styles: dict[Any, Style] = {}
        for token_type, value in lexer.get_tokens(self.code):
            style = styles.get(token_type)
            if style is None:
                style = styles[token_type] = theme.get_style_for_token(token_type)
            first = True
            for part in value.split("\n"):
                if not first:
                    lines.append([])
                first = False
                if part:
                    lines[-1].append(Segment(part, style))
        return lines

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        gutter = Segment(self.gutter, DIM) if self.gutter else None
        width = max(options.max_width - cell_len(self.gutter), 1)
        new_line = Segment.line()
        lines = self._lines()
        if len(lines) > 1 and not lines[-1]:
            lines.pop()  # the final newline
        for line in lines:
            length = sum(segment.cell_length for segment in line)
            pieces = (
                [line]
                if length <= width
                else Segment.divide(line, range(width, length + width, width))
            )
            for piece in pieces:
                if gutter is not None:
                    yield gutter
                yield from piece
                yield new_line

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement(1, options.max_width)


def syntax_block(
    code: str,
    lexer: str,
    *,
    dark: bool = True,
    expanded: bool = False,
    max_lines: int | None = 20,
    max_chars: int | None = 4_000,
) -> RenderableType:
    """Untrusted code, folded, sanitized and highlighted."""
    if expanded:
        max_chars = max_lines = None
    kept, marker = cut_text(code, max_chars, max_lines)
    if len(kept) > MARKDOWN_MAX_CHARS:
        return _with_marker(OutputBlock(kept), marker)  # highlighting megabytes takes seconds
    return _with_marker(HighlightedCode(sanitize_plain(kept), lexer, dark=dark), marker)


class DiffBlock(OutputBlock):
    """A diff (pi's edit details, a patch): added lines green, removed red, hunks cyan."""

    def line_style(self, line: str, base: Style | None) -> Style | None:
        stripped = line.lstrip()
        if stripped.startswith(("+++", "---")):
            return DIM
        if stripped.startswith("+"):
            return ADDED
        if stripped.startswith("-"):
            return REMOVED
        if stripped.startswith("@@"):
            return HUNK
        return base


def diff_block(text: str, *, expanded: bool = False, max_lines: int | None = 40) -> RenderableType:
    """A folded diff."""
    kept, marker = cut_text(text, None if expanded else 8_000, None if expanded else max_lines)
    return _with_marker(DiffBlock(kept), marker)


# --- JSON ---------------------------------------------------------------------------------


def json_block(
    value: object,
    *,
    dark: bool = True,
    expanded: bool = False,
    max_lines: int | None = 30,
    max_chars: int | None = 4_000,
) -> RenderableType:
    """An untrusted JSON value, pretty-printed, highlighted and folded."""
    return syntax_block(
        dump_json(value),
        "json",
        dark=dark,
        expanded=expanded,
        max_lines=max_lines,
        max_chars=max_chars,
    )


# --- numbers, times -------------------------------------------------------------------------


_USAGE_WORDS: Final = ("in", "out", "cache read", "cache write")


def usage_text(usage: object) -> str | None:
    """``393 in · 149 out · 2,988 cache read · $0.0042``; None when there is nothing to say.
    The numbers are read as every total reads them (:func:`pitui.core.facts.usage_numbers`)."""
    if not isinstance(usage, Mapping):
        return None
    *tokens, cost = usage_numbers(dict(usage))
    pairs = zip(tokens, _USAGE_WORDS, strict=True)
    parts = [f"{format_count(value)} {word}" for value, word in pairs if value]
    if cost:  # (no cost is not said: "$0.0000" is noise)
        parts.append(format_cost(cost))
    return " · ".join(parts) or None


_WS_RE: Final = re.compile(r"\s+")


def squash(text: str) -> str:
    """Runs of white space (line breaks included) as one space, trimmed: for one-line previews."""
    return _WS_RE.sub(" ", text[:4_000]).strip()
