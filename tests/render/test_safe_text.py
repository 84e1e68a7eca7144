"""The safety layer: untrusted text never becomes markup and never reaches the terminal raw."""

from __future__ import annotations

import importlib
import io
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from rich.console import Console, RenderableType
from rich.control import Control
from rich.segment import Segment
from rich.style import Style
from rich.text import Text

from pitui.render.safe_text import (
    SYMBOL_STYLE,
    has_unsafe,
    needs_truncation,
    one_line,
    safe_line,
    safe_text,
    sanitize_plain,
    sanitize_segments,
    sanitize_text,
)
from tests.conftest import CORPORA, fixture_by_scenario

# (the package re-exports the function safe_text, which shadows the module attribute)
safe_text_module = importlib.import_module("pitui.render.safe_text")

BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
# Everything that must never reach the terminal raw (\n and \t are allowed).
FORBIDDEN = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c\u2028\u2029"
    "\ud800-\udfff]"
)


def console(color_system: Any = None, width: int = 100) -> Console:
    return Console(file=io.StringIO(), force_terminal=True, color_system=color_system, width=width)


def render(renderable: RenderableType, color_system: Any = None, width: int = 100) -> str:
    out = console(color_system, width)
    out.print(renderable)
    value = out.file.getvalue()  # type: ignore[attr-defined]
    assert isinstance(value, str)
    return value


def read_jsonl(path: Path) -> list[Any]:
    """Every line of a session file; orjson first, json for what orjson rejects (surrogates)."""
    values: list[Any] = []
    for line in path.read_bytes().splitlines():
        try:
            values.append(orjson.loads(line))
        except orjson.JSONDecodeError:
            values.append(json.loads(line))
    return values


def strings(value: Any) -> Iterator[str]:
    """Every string in a JSON value, keys included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def fixture_strings(corpus: str, scenario: str) -> list[str]:
    found: list[str] = []
    for value in read_jsonl(fixture_by_scenario(corpus, scenario)):
        found.extend(strings(value))
    return found


def assert_clean(output: str) -> None:
    bad = FORBIDDEN.search(output)
    assert bad is None, f"raw {bad.group()!r} at {bad.start()} in {output!r}"


# --- the terminal-hostile fixture ----------------------------------------------------------


@pytest.mark.parametrize("corpus", CORPORA)
def test_hostile_fixture_strings_render_inert(corpus: str) -> None:
    texts = fixture_strings(corpus, "terminal-hostile")
    assert any("\x1b" in s for s in texts) and any("[bold red]x[/]" in s for s in texts)
    for s in texts:
        for renderable in (
            safe_text(s, max_chars=None),
            safe_line(s, max_chars=None),
            Text(sanitize_plain(s)),
            Text(one_line(s, 60)),
        ):
            assert_clean(render(renderable))
        block = render(safe_text(s, max_chars=None), width=10_000)
        if "[bold red]x[/]" in s:
            assert "[bold red]x[/]" in block
        if "\x1b[31m" in s:
            assert "␛[31m" in block
        if "\x9b31m" in s:
            assert "<U+009B>31m" in block
        if "\u202e" in s:
            assert "<RLO>" in block
        if "\x07" in s:
            assert "␇" in block


@pytest.mark.parametrize("corpus", CORPORA)
def test_hostile_fixture_with_colours_emits_only_our_styles(corpus: str) -> None:
    # With a colour system Rich writes SGR codes for our dim symbols; nothing else may appear.
    for s in fixture_strings(corpus, "terminal-hostile"):
        output = render(safe_text(s, max_chars=None), color_system="truecolor")
        without_sgr = re.sub(r"\x1b\[[0-9;]*m", "", output)
        assert_clean(without_sgr)


@pytest.mark.parametrize("corpus", CORPORA)
def test_lone_surrogates_fixture(corpus: str) -> None:
    texts = fixture_strings(corpus, "lone-surrogates")
    hostile = [s for s in texts if "\ud83d" in s]
    assert hostile, "the fixture holds a lone high surrogate"
    for s in texts:
        output = render(safe_text(s, max_chars=None), width=10_000)
        assert_clean(output)
        output.encode("utf-8")  # strict: a terminal write must not fail
        sanitize_plain(s).encode("utf-8")
        one_line(s, 40).encode("utf-8")
    output = render(safe_text(hostile[0]), width=10_000)
    assert "😀<U+D83D> (cut mid-emoji)" in output
    assert "<U+DC00><U+D800>" in output
    assert "NUL ␀ end" in output


# --- each kind of character --------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("a\x1b[31mb", "a␛[31mb"),
        ("\x00\x01\x07\x08\x0b\x0c\x1f", "␀␁␇␈␋␌␟"),
        ("rub\x7fout", "rub␡out"),
        ("\x9b31m\x85", "<U+009B>31m<U+0085>"),
        ("x\u202euser\u2066y\u2069", "x<RLO>user<LRI>y<PDI>"),
        (
            "\u202a\u202b\u202c\u202d\u2067\u2068\u200e\u200f\u061c",
            "<LRE><RLE><PDF><LRO><RLI><FSI><LRM><RLM><ALM>",
        ),
        ("line\u2028sep\u2029", "line<LS>sep<PS>"),
        ("a\u200bb\u200cc\u2060d\ufeffe", "a<ZWSP>b<ZWNJ>c<WJ>d<BOM>e"),
        ("a\u200db", "a<ZWJ>b"),
        ("\ud83d", "<U+D83D>"),
        ("one\r\ntwo", "one\ntwo"),
        ("progress 10%\rprogress 100%", "progress 10%␍progress 100%"),
        ("a\tb", "a   b"),
        ("plain [bold red]x[/] text", "plain [bold red]x[/] text"),
    ],
)
def test_replacements(raw: str, shown: str) -> None:
    assert safe_text(raw).plain == shown
    assert sanitize_plain(raw) == shown


def test_emoji_zwj_sequences_stay_whole() -> None:
    team = "👩\u200d💻👨🏽\u200d💻 ❤️\u200d🔥 🏳️\u200d🌈"
    assert safe_text(team).plain == team
    assert sanitize_plain(team) == team
    # a ZWJ next to an emoji on one side only is shown
    assert safe_text("👩\u200dx").plain == "👩<ZWJ>x"
    assert safe_text("x\u200d💻").plain == "x<ZWJ>💻"


def test_subdivision_flag_tags_stay_but_stray_tags_show() -> None:
    england = "🏴\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f"
    assert safe_text(england).plain == england
    assert safe_text("hi\U000e0041\U000e0042").plain == "hi<U+E0041><U+E0042>"


def test_reveal_invisible_off_keeps_invisibles_but_not_controls() -> None:
    s = "a\u200bb\u200dc\ufeff\U000e0041 \x1b \u202e"
    assert safe_text(s, reveal_invisible=False).plain == "a\u200bb\u200dc\ufeff\U000e0041 ␛ <RLO>"


def test_strip_removes_whole_escape_sequences() -> None:
    s = (
        "\x1b]0;title\x07\x1b[31mred\x1b[0m \x1b]8;;https://example.com\x1b\\link\x1b]8;;\x1b\\"
        " \x9b1mc1\x9b0m \x1b[?1049h bell\x07 \u202euser\u200b \ud83d end\x7f"
    )
    assert sanitize_plain(s, strip=True) == "red link c1  bell user  end"
    assert safe_text(s, strip=True).spans == []


def test_symbols_are_styled_dim_and_text_is_not() -> None:
    text = safe_text("ok \x1b[1m \u202e")
    styled = {text.plain[span.start : span.end] for span in text.spans}
    assert styled == {"␛", "<RLO>"}
    assert all(span.style == SYMBOL_STYLE for span in text.spans)
    assert safe_text("no symbols here").spans == []


def test_literal_markup_is_never_interpreted() -> None:
    for s in ("[/]", "[bold red]x[/]", "[link=https://evil]click[/link]", "[red]open", "\\[x]"):
        assert render(safe_text(s), width=200).rstrip("\n") == s
        assert render(safe_line(s), width=200).rstrip("\n") == s


# --- truncation and lines ------------------------------------------------------------------


def test_max_chars_marker() -> None:
    text = safe_text("x" * 60_000)
    assert text.plain == "x" * 20_000 + "\n… (40,000 more characters)"
    assert safe_text("abc", max_chars=3).plain == "abc"
    assert safe_text("abcd", max_chars=3).plain == "abc\n… (1 more character)"
    assert safe_text("y" * 60_000, max_chars=None).plain == "y" * 60_000


def test_max_lines_marker() -> None:
    assert safe_text("a\nb\nc\nd\n", max_lines=2).plain == "a\nb\n… (2 more lines)"
    assert safe_text("a\nb\nc", max_lines=2).plain == "a\nb\n… (1 more line)"
    assert safe_text("a\nb\n", max_lines=2).plain == "a\nb\n"
    assert needs_truncation("a\nb\nc", max_chars=None, max_lines=2)
    assert not needs_truncation("a\nb\n", max_chars=None, max_lines=2)
    assert needs_truncation("abcd", max_chars=3)


def test_truncation_happens_before_sanitizing() -> None:
    # the marker counts characters of the input, and a cut never leaves half a symbol
    text = safe_text("\x1b" * 10, max_chars=4)
    assert text.plain == "␛␛␛␛\n… (6 more characters)"


def test_safe_line_is_one_line() -> None:
    line = safe_line("first\nsecond\tthird\r\nfourth")
    assert line.plain == "first⏎second third⏎fourth"
    assert line.no_wrap and line.overflow == "ellipsis" and line.end == ""
    assert safe_line("a\nb", newline=" ").plain == "a b"
    assert safe_line("z" * 5000).plain.endswith("z … (4,000 more characters)")
    out = console(width=40)
    lines = out.render_lines(safe_line("word " * 100), out.options, pad=False)
    assert len(lines) == 1 and "".join(seg.text for seg in lines[0]).endswith("…")


def test_one_line_width_counts_cells() -> None:
    assert one_line("hello\nworld") == "hello world"
    assert one_line("hello world", 8) == "hello w…"
    assert one_line("hello", 5) == "hello"
    assert one_line("日本語テキスト", 7) == "日本語…"  # 2 cells each: 6 + 1
    assert one_line("a\x1b[2Jb", 20) == "a␛[2Jb"
    assert one_line("x" * 5000) == "x" * 1000 + "…"
    assert one_line("abc", 0) == ""
    assert one_line("Z̶͑a̴l̸g̵o̷", 5) == "Z̶͑a̴l̸g̵o̷"  # combining marks take no cell


def test_has_unsafe() -> None:
    assert not has_unsafe("plain text, 日本語, emoji 👩\u200d💻, [bold]markup[/]")
    for ch in ("\x1b", "\x00", "\x7f", "\x9b", "\u202e", "\u200b", "\ud83d", "\r"):
        assert has_unsafe(f"a{ch}b"), repr(ch)


# --- Text, segments --------------------------------------------------------------------------


def test_sanitize_text_keeps_styles() -> None:
    text = Text.assemble(("bold\x1b[2J", "bold"), " 👩\u200d💻 ", ("\u202eok", "red"))
    clean = sanitize_text(text)
    assert clean.plain == "bold␛[2J 👩\u200d💻 <RLO>ok"
    assert clean.get_style_at_offset(console(), 0) == Style.parse("bold")
    assert clean.get_style_at_offset(console(), clean.plain.index("ok")) == Style.parse("red")
    plain = Text("nothing to do", style="italic")
    assert sanitize_text(plain) is plain


def test_sanitize_segments() -> None:
    segments = [
        Segment("ok "),
        Control.clear().segment,
        Segment("\x1b]0;t\x07x", Style(bold=True)),
        Segment("\n"),
        Segment("click", Style(link="https://e.com/\x1b]0;pwn\x07")),
        Segment("a\tb"),
    ]
    out = list(sanitize_segments(segments))
    assert [s.text for s in out] == ["ok ", "␛]0;t␇x", "\n", "click", "a b"]
    assert out[3].style is not None and out[3].style.link is None
    assert out[1].style == Style(bold=True)


# --- the fast path equals a naive per-character reference -----------------------------------

_NAMES = {
    "\u061c": "ALM", "\u200e": "LRM", "\u200f": "RLM", "\u202a": "LRE", "\u202b": "RLE",
    "\u202c": "PDF", "\u202d": "LRO", "\u202e": "RLO", "\u2066": "LRI", "\u2067": "RLI",
    "\u2068": "FSI", "\u2069": "PDI", "\u2028": "LS", "\u2029": "PS", "\u200b": "ZWSP",
    "\u200c": "ZWNJ", "\u200d": "ZWJ", "\u2060": "WJ", "\ufeff": "BOM",
}  # fmt: skip


def _pictographic(ch: str) -> bool:
    return safe_text_module._PICTOGRAPHIC_RE.match(ch) is not None


def reference(s: str) -> str:
    """What sanitize_plain must return, one character at a time."""
    s = s.replace("\r\n", "\n")
    out: list[str] = []
    for i, ch in enumerate(s):
        cp = ord(ch)
        if ch in "\n\t":
            out.append(ch)
        elif cp < 0x20:
            out.append(chr(0x2400 + cp))
        elif cp == 0x7F:
            out.append("␡")
        elif 0x80 <= cp <= 0x9F or 0xD800 <= cp <= 0xDFFF or 0x2061 <= cp <= 0x2064:
            out.append(f"<U+{cp:04X}>")
        elif ch == "\u200d":
            joins = 0 < i < len(s) - 1 and _pictographic(s[i - 1]) and _pictographic(s[i + 1])
            out.append(ch if joins else "<ZWJ>")
        elif ch in _NAMES:
            out.append(f"<{_NAMES[ch]}>")
        elif 0xE0000 <= cp <= 0xE007F:
            start = i
            while start > 0 and 0xE0000 <= ord(s[start - 1]) <= 0xE007F:
                start -= 1
            out.append(ch if start > 0 and s[start - 1] == "🏴" else f"<U+{cp:05X}>")
        else:
            out.append(ch)
    return "".join(out).expandtabs(4)


SPECIALS = (
    [chr(c) for c in range(0x20)]
    + [chr(c) for c in range(0x7F, 0xA0)]
    + list(_NAMES)
    + ["\u2061", "\ud83d", "\udc00", "\U000e0041", "\U000e007f", "🏴", "👩", "💻", "🏽", "\ufe0f"]
    + ["a", " ", "日", "é", "…", "“", "─", "م", "[", "]"]
)


@given(st.lists(st.one_of(st.sampled_from(SPECIALS), st.characters()), max_size=60).map("".join))
def test_sanitize_matches_reference(s: str) -> None:
    assert sanitize_plain(s) == reference(s)
    assert safe_text(s, max_chars=None).plain == reference(s)


@given(st.lists(st.one_of(st.sampled_from(SPECIALS), st.characters()), max_size=60).map("".join))
@example("\U000e0041\u200d\U000e0041")  # a ZWJ between tags stands alone once they are shown
def test_output_is_always_clean(s: str) -> None:
    for strip in (False, True):
        assert_clean(render(safe_text(s, strip=strip), width=50))
        assert_clean(render(safe_line(s, strip=strip), width=50))
        assert FORBIDDEN.search(one_line(s, 30, strip=strip)) is None
    assert not has_unsafe(sanitize_plain(s))
    assert sanitize_plain(sanitize_plain(s)) == sanitize_plain(s)


def test_large_non_ascii_text_matches_the_public_constructor() -> None:
    # _make_text fills Text's storage directly for speed; it must equal what Text() builds.
    assert safe_text_module._TEXT_INTERNALS_OK, "rich.text.Text internals changed: slow path on"
    s = ("日本語 \x1b[31m \u202e テキスト\n" * 2000)[:30_000]
    fast = safe_text(s, max_chars=None)
    slow = Text(fast.plain, spans=list(fast.spans))
    assert fast.plain == slow.plain and len(fast) == len(slow) and fast.spans == slow.spans
    assert render(fast, color_system="truecolor") == render(slow, color_system="truecolor")
