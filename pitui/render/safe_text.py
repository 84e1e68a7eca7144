"""Untrusted session text made safe to show.

Everything in a session file is untrusted: messages, tool output, labels, session names, the JSON
of custom entries. This module turns such text into something that can never be read as Rich
markup and never sends a control sequence to the terminal:

- C0 controls (except newline and tab), DEL and C1 controls become visible symbols: ESC is ``␛``,
  the other C0 controls are the Unicode Control Pictures (``␀`` … ``␟``), DEL is ``␡`` and a C1
  control is a tag like ``<U+009B>``. A ``\\r\\n`` pair is a line break, a lone ``\\r`` is ``␍``.
- Bidi controls (``<RLO>``, ``<LRI>``, ``<RLM>``, …) and line/paragraph separators (``<LS>``,
  ``<PS>``) are always shown as tags, never passed raw.
- Zero-width and invisible characters (``<ZWSP>``, ``<ZWNJ>``, ``<ZWJ>``, ``<WJ>``, ``<BOM>``, the
  invisible math operators, Unicode tag characters) are shown as tags when ``reveal_invisible`` is
  true. A ZWJ between two pictographic characters (an emoji ZWJ sequence such as 👩‍💻) and tag
  characters after 🏴 (subdivision flags) are kept raw so emoji still render.
- Lone surrogates (a Python ``str`` can hold them after decoding JSON ``"\\ud83d"``) become
  ``<U+D83D>``.
- With ``strip=True`` all of the above are removed instead (whole ANSI/OSC escape sequences are
  removed, not just their ESC byte).

The results are :class:`rich.text.Text` objects (or plain ``str`` from :func:`sanitize_plain` and
:func:`one_line`); a ``Text`` is never parsed as markup, so ``[bold red]x[/]`` shows literally.
Symbols we insert are styled dim (:data:`SYMBOL_STYLE`).

Speed: the common case (no special character) is decided with byte-level C operations (encode,
``bytes.translate``) instead of a per-character regex, which is about ten times slower on large
strings; replacements use ``str.replace`` per distinct character found. A regex runs only over the
rare characters that need context (ZWJ, tag characters) or when stripping escape sequences. Styled
spans are capped at :data:`MAX_STYLED_SYMBOLS` per distinct symbol; beyond that the symbols are
still shown, just not dimmed. A literal ``␛`` already present in the input is styled like one we
inserted (harmless).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from rich.cells import cell_len
from rich.console import OverflowMethod
from rich.segment import Segment
from rich.style import Style, StyleType
from rich.text import Span, Text

from pitui.core.units import plural

__all__ = [
    "DEFAULT_MAX_CHARS",
    "LINE_MAX_CHARS",
    "MARKER_STYLE",
    "MAX_STYLED_SYMBOLS",
    "SYMBOL_STYLE",
    "has_unsafe",
    "needs_truncation",
    "one_line",
    "safe_line",
    "safe_text",
    "sanitize_plain",
    "sanitize_segments",
    "sanitize_text",
]

#: Default cap for block text: a 60,000-character line or a 5 MB tool output is cut here unless the
#: caller asks for everything (``max_chars=None``, the "show all" action).
DEFAULT_MAX_CHARS = 20_000
#: Default cap for single-line text (list rows, titles): no row is wider than this.
LINE_MAX_CHARS = 1_000
#: At most this many occurrences of each distinct symbol get :data:`SYMBOL_STYLE`.
MAX_STYLED_SYMBOLS = 10_000

SYMBOL_STYLE = Style(dim=True)
MARKER_STYLE = Style(dim=True, italic=True)

NEWLINE_SYMBOL = "⏎"

# --- the replacement table -----------------------------------------------------------------

_ESC = 0x1B
_DEL = 0x7F

_C0_SYMBOLS: dict[str, str] = {
    chr(c): chr(0x2400 + c) for c in range(0x20) if c not in (0x09, 0x0A)
}  # ESC -> U+241B "␛" is the same formula
_C0_SYMBOLS[chr(_DEL)] = "␡"
_C1_SYMBOLS: dict[str, str] = {chr(c): f"<U+{c:04X}>" for c in range(0x80, 0xA0)}

# Characters that are always replaced (they reorder or break the line on some terminals).
_ALWAYS_TAGS: dict[str, str] = {
    "\u061c": "<ALM>",
    "\u200e": "<LRM>",
    "\u200f": "<RLM>",
    "\u202a": "<LRE>",
    "\u202b": "<RLE>",
    "\u202c": "<PDF>",
    "\u202d": "<LRO>",
    "\u202e": "<RLO>",
    "\u2066": "<LRI>",
    "\u2067": "<RLI>",
    "\u2068": "<FSI>",
    "\u2069": "<PDI>",
    "\u2028": "<LS>",
    "\u2029": "<PS>",
}
# Invisible characters, replaced when reveal_invisible is true (ZWJ and tags need context).
_INVISIBLE_TAGS: dict[str, str] = {
    "\u200b": "<ZWSP>",
    "\u200c": "<ZWNJ>",
    "\u2060": "<WJ>",
    "\u2061": "<U+2061>",
    "\u2062": "<U+2062>",
    "\u2063": "<U+2063>",
    "\u2064": "<U+2064>",
    "\ufeff": "<BOM>",
}
_ZWJ = "\u200d"
_ZWJ_TAG = "<ZWJ>"
_BLACK_FLAG = "\U0001f3f4"

# Runs of characters that may be replaced, to find their positions in a styled Text.
_UNSAFE_RUN_RE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2028\u2029"
    "\u2060-\u2064\u2066-\u2069\ufeff\ud800-\udfff\U000e0000-\U000e007f]+"
)

# Byte-level prefilter. In UTF-8 (surrogatepass) every character we care about is either a C0/DEL
# byte or starts with one of these lead bytes; deleting every other byte leaves an empty string
# for clean text. Leads: C2 = U+0080-00BF (C1), D8 = U+0600-063F (ALM), E2 = U+2000-2FFF (bidi,
# zero-width, LS/PS), EF = U+F000-FFFF (BOM), ED = U+D000-DFFF (surrogates), F3 = U+C0000+ (tags).
_CTRL_BYTES = bytes([*range(0x00, 0x09), *range(0x0B, 0x20), _DEL])
_LEAD_BYTES = b"\xc2\xd8\xe2\xef\xed\xf3"
_KEEP = set(_CTRL_BYTES) | set(_LEAD_BYTES)
_BORING = bytes(b for b in range(256) if b not in _KEEP)

# Precise byte patterns, each starting with a literal so the regex engine scans with a fast
# literal search instead of testing a character class at every position.
_C1_B = re.compile(rb"\xc2[\x80-\x9f]")
# bidi controls, LRM/RLM, LS/PS, zero-width characters (incl. ZWJ), WJ, invisible operators
_E2_B = re.compile(rb"\xe2(?:\x80[\x8b-\x8f\xa8-\xae]|\x81[\xa0-\xa4\xa6-\xa9])")


# The common leads E2 (general punctuation, arrows, box drawing: frequent in real text), D8
# (Arabic) and EF would make the patterns above stop at every such character. Instead one
# translate maps each byte to a class letter and a few `in` checks look for class sequences
# that only our characters produce (E2, D8 and EF are always lead bytes, so "E" + two classes
# names exactly the two continuation bytes of one character).
def _class_table() -> bytes:
    table = bytearray(b"." * 256)
    table[0xE2], table[0xD8], table[0xEF] = b"E"[0], b"D"[0], b"F"[0]
    classes = {
        b"a": [0x80],
        b"b": [0x81],
        b"p": [*range(0x8B, 0x90), *range(0xAA, 0xAF)],  # E2 80 __: ZWSP-RLM, LRE-RLO
        b"r": [0xA8, 0xA9],  # E2 80 __: LS, PS; E2 81 __: FSI, PDI
        b"q": [*range(0xA0, 0xA5), 0xA6, 0xA7],  # E2 81 __: WJ, U+2061-2064, LRI, RLI
        b"m": [0x9C],  # D8 9C: ALM
        b"g": [0xBB],  # EF BB BF: BOM
        b"h": [0xBF],
    }
    for letter, values in classes.items():
        for value in values:
            table[value] = letter[0]
    return bytes(table)


_CLASS_TABLE = _class_table()
_E2_SIGNS = (b"Eap", b"Ear", b"Ebq", b"Ebr")
_ALM_SIGN = b"Dm"
_BOM_SIGN = b"Fgh"
_SURROGATE_B = re.compile(rb"\xed[\xa0-\xbf][\x80-\xbf]")
_TAG_B = re.compile(rb"\xf3\xa0[\x80\x81][\x80-\xbf]")

_TAG_RUN_RE = re.compile("[\U000e0000-\U000e007f]+")

# Escape sequences removed whole in strip mode: CSI, OSC (ended by BEL or ST), other two-byte
# ESC sequences, and the C1 forms of CSI/OSC.
_ANSI_RE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"
    r"|\x1b\][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
    r"|\x1b[ -/]*[0-~]"
    r"|\x9b[0-?]*[ -/]*[@-~]"
    r"|\x9d[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
)


# Rough Extended_Pictographic set (Python's unicodedata has no such property), plus VS16,
# keycap and tag characters, which end the emoji that precedes a ZWJ.
_PICTOGRAPHIC = (
    "\U0001f000-\U0001faff\u2300-\u23ff\u2600-\u27bf\u2b00-\u2bff\u2190-\u21ff"
    "\u25a0-\u25ff\U000e0020-\U000e007f\u00a9\u00ae\u203c\u2049\u20e3\u2122\u2139"
    "\u3030\u303d\ufe0f"
)
# A ZWJ that does not sit between two pictographic characters. It starts with a literal (fast
# scan); the lookahead looks back past the ZWJ to check the character before it.
_ZWJ_LONE_RE = re.compile(f"\u200d(?!(?<=[{_PICTOGRAPHIC}]\u200d)[{_PICTOGRAPHIC}])")
_PICTOGRAPHIC_RE = re.compile(f"[{_PICTOGRAPHIC}]")


def _zwj_joins_emoji(s: str, i: int) -> bool:
    """True if the ZWJ at ``s[i]`` sits between two pictographic characters."""
    return (
        0 < i < len(s) - 1
        and _PICTOGRAPHIC_RE.match(s, i - 1) is not None
        and _PICTOGRAPHIC_RE.match(s, i + 1) is not None
    )


class _Result:
    """The sanitized string plus the symbols inserted (for styling)."""

    __slots__ = ("symbols", "text")

    def __init__(self, text: str, symbols: set[str]) -> None:
        self.text = text
        self.symbols = symbols


def _replace_tags(s: str, strip: bool, symbols: set[str]) -> str:
    def repl(m: re.Match[str]) -> str:
        i = m.start()
        if i > 0 and s[i - 1] == _BLACK_FLAG:
            return m.group()  # subdivision flag such as England: 🏴 + tags + cancel tag
        if strip:
            return ""
        tags = [f"<U+{ord(c):05X}>" for c in m.group()]
        symbols.update(tags)
        return "".join(tags)

    return _TAG_RUN_RE.sub(repl, s)


def _sanitize(s: str, *, reveal_invisible: bool, strip: bool) -> _Result:
    """Replace (or strip) every unsafe character of ``s``. Newlines and tabs are left alone."""
    symbols: set[str] = set()
    if "\r" in s:
        s = s.replace("\r\n", "\n")
    raw = s.encode("utf-8", "surrogatepass")  # ASCII: a plain copy
    present = raw.translate(None, _BORING)  # test membership with `in` (memchr), not a set
    if not present:
        return _Result(s, symbols)

    if strip and (_ESC in present or 0xC2 in present):
        s = _ANSI_RE.sub("", s)

    def put(ch: str, sym: str) -> None:
        nonlocal s
        if ch in s:
            s = s.replace(ch, "" if strip else sym)
            if not strip:
                symbols.add(sym)

    if 0xC2 in present:
        for seq in set(_C1_B.findall(raw)):
            ch = seq.decode("utf-8")
            put(ch, _C1_SYMBOLS[ch])
    e2 = d8 = ef = False
    if 0xE2 in present or 0xD8 in present or (reveal_invisible and 0xEF in present):
        classes = raw.translate(_CLASS_TABLE)
        e2 = 0xE2 in present and any(sign in classes for sign in _E2_SIGNS)
        d8 = 0xD8 in present and _ALM_SIGN in classes
        ef = reveal_invisible and 0xEF in present and _BOM_SIGN in classes
    # Tags first: a ZWJ between two tag characters joins them (they end an emoji), but once the
    # tags are shown as <U+E00xx> it stands alone and must be shown too.
    if reveal_invisible and 0xF3 in present and _TAG_B.search(raw):
        s = _replace_tags(s, strip, symbols)
    if e2:
        for seq in set(_E2_B.findall(raw)):
            ch = seq.decode("utf-8")
            if ch in _ALWAYS_TAGS:
                put(ch, _ALWAYS_TAGS[ch])
            elif not reveal_invisible:
                continue
            elif ch == _ZWJ:
                s, count = _ZWJ_LONE_RE.subn("" if strip else _ZWJ_TAG, s)
                if count and not strip:
                    symbols.add(_ZWJ_TAG)
            else:
                put(ch, _INVISIBLE_TAGS[ch])
    if d8:
        put("\u061c", _ALWAYS_TAGS["\u061c"])
    if ef:
        put("\ufeff", _INVISIBLE_TAGS["\ufeff"])
    if 0xED in present:
        for seq in set(_SURROGATE_B.findall(raw)):
            ch = seq.decode("utf-8", "surrogatepass")
            put(ch, f"<U+{ord(ch):04X}>")
    for byte in set(present.translate(None, _LEAD_BYTES)):
        ch = chr(byte)
        put(ch, _C0_SYMBOLS[ch])
    return _Result(s, symbols)


def _probe_text_internals() -> bool:
    probe = Text("x")
    return getattr(probe, "_text", None) == ["x"] and getattr(probe, "_length", None) == 1


# Text() runs str.translate over its input to drop BEL/BS/VT/FF/CR; for non-ASCII strings that is
# CPython's slow translate path (about 0.1 s per MB). Our output never holds those characters, so
# for large non-ASCII strings we fill the Text's storage directly. This relies on two private
# attributes of rich.text.Text; the probe (and a test) fall back to the public path if they change.
_TEXT_INTERNALS_OK = _probe_text_internals()
_DIRECT_TEXT_MIN = 4096


def _make_text(
    plain: str,
    *,
    style: StyleType,
    spans: list[Span],
    no_wrap: bool | None = None,
    overflow: OverflowMethod | None = None,
    end: str = "\n",
) -> Text:
    if not _TEXT_INTERNALS_OK or len(plain) < _DIRECT_TEXT_MIN or plain.isascii():
        return Text(plain, style=style, spans=spans, no_wrap=no_wrap, overflow=overflow, end=end)
    text = Text("", style=style, spans=spans, no_wrap=no_wrap, overflow=overflow, end=end)
    text._text = [plain]
    text._length = len(plain)
    return text


def _symbol_spans(text: str, symbols: Iterable[str], style: Style) -> list[Span]:
    spans: list[Span] = []
    for sym in symbols:
        size = len(sym)
        find = text.find
        pos = find(sym)
        count = 0
        while pos != -1 and count < MAX_STYLED_SYMBOLS:
            spans.append(Span(pos, pos + size, style))
            count += 1
            pos = find(sym, pos + size)
    return spans


def _cut(s: str, max_chars: int | None, max_lines: int | None) -> tuple[str, str | None]:
    """Cut ``s`` to the limits; return the kept part and the marker text (None if not cut)."""
    cut_at = len(s)
    by_lines = False
    if max_lines is not None:
        max_lines = max(max_lines, 1)
        pos = -1
        for _ in range(max_lines):
            pos = s.find("\n", pos + 1)
            if pos == -1:
                break
        else:
            if pos != -1 and pos < len(s) - 1:
                cut_at = pos  # drop the newline too: the marker takes its place
                by_lines = True
    if max_chars is not None and max_chars >= 0 and cut_at > max_chars:
        cut_at = max_chars
        by_lines = False
    if cut_at >= len(s):
        return s, None
    if by_lines:
        # the rest starts with the newline that ended the last kept line; a final newline ends
        # the last line rather than starting another
        more = s.count("\n", cut_at) - int(s.endswith("\n"))
        return s[:cut_at], f"… ({plural(more, 'more line')})"
    more = len(s) - cut_at
    return s[:cut_at], f"… ({plural(more, 'more character')})"


def needs_truncation(s: str, *, max_chars: int | None, max_lines: int | None = None) -> bool:
    """True if :func:`safe_text` with these limits would cut ``s`` (to offer "show all")."""
    return _cut(s, max_chars, max_lines)[1] is not None


def has_unsafe(s: str) -> bool:
    """True if the functions of this module would change ``s`` (default options, lines kept)."""
    return _sanitize(s, reveal_invisible=True, strip=False).text != s


def safe_text(
    s: str,
    *,
    max_chars: int | None = DEFAULT_MAX_CHARS,
    max_lines: int | None = None,
    reveal_invisible: bool = True,
    strip: bool = False,
    style: StyleType = "",
    tab_size: int = 4,
) -> Text:
    """A block of untrusted text as a ``Text``: lines kept, tabs expanded, everything unsafe shown.

    Args:
        s: the untrusted text.
        max_chars: keep at most this many characters of ``s`` (None: all); a cut adds a line
            ``… (N more characters)``.
        max_lines: keep at most this many lines (None: all); a cut adds ``… (N more lines)``.
        reveal_invisible: show zero-width/invisible characters as tags (emoji ZWJ kept raw).
        strip: remove unsafe characters (and whole escape sequences) instead of showing them.
        style: base style of the text.
        tab_size: tab stops for tab expansion (counted in characters).
    """
    kept, marker = _cut(s, max_chars, max_lines)
    result = _sanitize(kept, reveal_invisible=reveal_invisible, strip=strip)
    plain = result.text
    if "\t" in plain:
        plain = plain.expandtabs(tab_size)
    spans = _symbol_spans(plain, result.symbols, SYMBOL_STYLE) if result.symbols else []
    text = _make_text(plain, style=style, spans=spans)
    if marker is not None:
        text.append("\n" if plain and not plain.endswith("\n") else "")
        text.append(marker, MARKER_STYLE)
    return text


def safe_line(
    s: str,
    *,
    max_chars: int | None = LINE_MAX_CHARS,
    newline: str = NEWLINE_SYMBOL,
    reveal_invisible: bool = True,
    strip: bool = False,
    style: StyleType = "",
) -> Text:
    """Untrusted text as a one-line ``Text`` (list rows, headings): never wraps, ends in ``…``.

    Line breaks become ``newline`` (``⏎`` by default, styled dim; pass ``" "`` for a space), tabs
    become spaces; a cut adds `` … (N more characters)``.
    """
    kept, marker = _cut(s, max_chars, None)
    result = _sanitize(kept, reveal_invisible=reveal_invisible, strip=strip)
    plain = result.text
    if "\t" in plain:
        plain = plain.replace("\t", " ")
    symbols = result.symbols
    if "\n" in plain:
        plain = plain.replace("\n", newline)
        if newline.strip():
            symbols = {*symbols, newline}
    spans = _symbol_spans(plain, symbols, SYMBOL_STYLE) if symbols else []
    text = _make_text(plain, style=style, spans=spans, no_wrap=True, overflow="ellipsis", end="")
    if marker is not None:
        text.append(" " + marker, MARKER_STYLE)
    return text


def sanitize_plain(
    s: str,
    *,
    max_chars: int | None = None,
    reveal_invisible: bool = True,
    strip: bool = False,
    tab_size: int = 4,
) -> str:
    """The same replacements as :func:`safe_text`, as a plain ``str`` (lines kept).

    The result holds no control character, but it is still text, not markup: give it to Textual
    with ``markup=False`` or inside a ``Text``.
    """
    kept, marker = _cut(s, max_chars, None)
    plain = _sanitize(kept, reveal_invisible=reveal_invisible, strip=strip).text
    if "\t" in plain:
        plain = plain.expandtabs(tab_size)
    if marker is not None:
        plain += ("\n" if plain and not plain.endswith("\n") else "") + marker
    return plain


def one_line(
    s: str,
    width: int | None = None,
    *,
    newline: str = " ",
    reveal_invisible: bool = True,
    strip: bool = False,
) -> str:
    """Untrusted text as one plain line; with ``width``, cut to that many cells ending in ``…``."""
    # Only so much can fit: don't sanitize megabytes to keep a few cells.
    # (generous: combining marks take no cell)
    limit = LINE_MAX_CHARS if width is None else max(width, 0) * 4 + 16
    cut = len(s) > limit
    plain = _sanitize(s[:limit], reveal_invisible=reveal_invisible, strip=strip).text
    plain = plain.replace("\t", " ").replace("\n", newline)
    if width is None:
        return plain + "…" if cut else plain
    if width <= 0:
        return ""
    if not cut and cell_len(plain) <= width:
        return plain
    out: list[str] = []
    used = 0
    for ch in plain:
        w = cell_len(ch)
        if used + w > width - 1:
            break
        out.append(ch)
        used += w
    return "".join(out) + "…"


def sanitize_text(text: Text, *, reveal_invisible: bool = True) -> Text:
    """A ``Text`` built elsewhere (e.g. by a plug-in) with every unsafe character replaced.

    Styles are kept; returns ``text`` itself when nothing needs replacing.
    """
    plain = text.plain
    if not has_unsafe(plain):
        return text
    out = text.blank_copy()
    pos = 0
    for m in _UNSAFE_RUN_RE.finditer(plain):
        start, end = m.span()
        run = m.group()
        if run == _ZWJ and _zwj_joins_emoji(plain, start):
            continue  # stays inside the next piece copied from ``text``
        if start > 0 and plain[start - 1] == _BLACK_FLAG and _TAG_RUN_RE.fullmatch(run):
            continue
        out.append_text(text[pos:start])
        sym = _sanitize(run, reveal_invisible=reveal_invisible, strip=False).text
        out.append(sym, SYMBOL_STYLE if sym != run else None)
        pos = end
    out.append_text(text[pos:])
    return out


def sanitize_segments(segments: Iterable[Segment]) -> Iterable[Segment]:
    """Segments with control segments dropped and unsafe characters in text replaced.

    Used on the output of renderers we do not trust: whatever they built, nothing they yield
    can reach the terminal as a control sequence (hyperlinks with unsafe URLs lose the link).
    """
    for seg in segments:
        if seg.control:
            continue  # explicit cursor movement, screen clears, …
        text, style = seg.text, seg.style
        if style is not None and style.link and has_unsafe(style.link):
            style = style.update_link(None)
        if text == "\n":
            yield seg if style is seg.style else Segment(text, style)
            continue
        text = _sanitize(text, reveal_invisible=True, strip=False).text
        if "\t" in text:
            text = text.replace("\t", " ")
        if text is seg.text and style is seg.style:
            yield seg
        else:
            yield Segment(text, style)
