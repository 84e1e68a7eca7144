"""Exports: Markdown, HTML and JSONL of every fixture, hostile text kept inert, plug-ins applied."""

from __future__ import annotations

import os
import re
import stat
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from markdown_it import MarkdownIt
from rich.style import Style
from rich.text import Text

from pitui.cli import main
from pitui.core.context import build_session_context
from pitui.core.session import Session
from pitui.export import (
    build_document,
    export_name,
    export_session,
    to_html,
    to_jsonl,
    to_markdown,
    write_export,
)
from pitui.export.markdown import code_span, fenced, inline, neutralize
from pitui.export.rendered import safe_href
from pitui.render import default_registry
from pitui.render.registry import RenderContext, RenderEntry
from tests.conftest import CORPORA, fixture_by_scenario, fixture_sessions
from tests.core.sessiondata import HEADER, assistant, entry, jsonl, user

ALL_FIXTURES = [
    pytest.param(path, id=f"{corpus}:{record['scenario']}")
    for corpus in CORPORA
    for path, record in fixture_sessions(corpus)
]

# What must never reach a file raw: C0 controls but \t and \n, DEL, C1, bidi controls, LS/PS.
UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]"
)


class Page(HTMLParser):
    """Every tag and attribute of a page, and its text by message section (``sections``) and
    by extension-entry section (``extensions``)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.sections: list[str] = []
        self.extensions: list[str] = []
        self._in_section = False
        self._into = self.sections

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag == "section":
            self._in_section = True
            self._into = (
                self.extensions if dict(attrs).get("class") == "extension" else (self.sections)
            )
            self._into.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "section":
            self._in_section = False

    def handle_data(self, data: str) -> None:
        if self._in_section:
            self._into[-1] += data


def parse_page(page: str) -> Page:
    parser = Page()
    parser.feed(page)
    parser.close()
    return parser


def assert_inert_page(page: str) -> Page:
    parsed = parse_page(page)
    names = {tag for tag, _ in parsed.tags}
    assert names <= {
        "html", "head", "meta", "title", "style", "body", "header", "h1", "dl", "dt", "dd",
        "main", "section", "pre", "span", "a", "footer", "p",
    }, names  # fmt: skip
    for tag, attrs in parsed.tags:
        assert not [name for name in attrs if name.startswith("on")], (tag, attrs)
        if tag == "a":
            assert (attrs.get("href") or "").startswith(("http://", "https://", "mailto:"))
        for name in ("src", "srcset", "action", "formaction"):
            assert name not in attrs
    assert not UNSAFE.search(page)
    assert "<script" not in page.lower()
    return parsed


def branch_ids(session: Session) -> list[str | None]:
    return [meta.id for meta in session.branch() if meta.type != "label"]


# ----------------------------------------------------------------------------------------- JSONL


@pytest.mark.parametrize("path", ALL_FIXTURES)
def test_jsonl_reads_back_as_the_same_branch(path: Path) -> None:
    with Session.open(str(path)) as source:
        data = to_jsonl(source)
        copy = Session.from_bytes(data, path="/tmp/exported.jsonl")
        assert copy.problems == []
        assert copy.header["version"] == 3
        assert copy.header["parentSession"] == str(path)
        assert copy.cwd == source.cwd
        assert copy.id != source.id
        assert branch_ids(copy) == branch_ids(source)
        # the copy holds nothing but the branch: its leaf's path is the whole file
        assert len(copy.branch()) == len(copy.entries)
        kept = {meta.id for meta in source.branch()}
        assert copy.labels == {t: label for t, label in source.labels.items() if t in kept}
        want, got = build_session_context(source), build_session_context(copy)
        assert [m.get("role") for m in got.messages] == [m.get("role") for m in want.messages]
        assert got.messages == want.messages
        assert (got.model, got.thinking_level) == (want.model, want.thinking_level)


def test_jsonl_of_another_leaf() -> None:
    path = fixture_by_scenario("pi-written", "branches")
    with Session.open(str(path)) as source:
        others = [m for m in source.entries if not m.children and m is not source.leaf]
        assert others
        leaf = others[0]
        copy = Session.from_bytes(to_jsonl(source, leaf.uid))
        path_ids = [m.id for m in source.path_to(leaf) if m.type != "label"]
        assert branch_ids(copy) == path_ids
        assert build_session_context(copy).messages == (
            build_session_context(source, leaf.uid).messages
        )
        with pytest.raises(KeyError):
            to_jsonl(source, "no-such-entry")


def test_empty_branch_is_a_header() -> None:
    data = jsonl(user("u1", None), assistant("a1", "u1"))
    source = Session.from_bytes(data)
    copy = Session.from_bytes(to_jsonl(source, None))
    assert copy.entries == [] and copy.header["type"] == "session"
    assert "parentSession" not in copy.header  # an in-memory source has no path to point at


# --------------------------------------------------------------------------------- HTML and md


@pytest.mark.parametrize("path", ALL_FIXTURES)
def test_html_and_markdown_of_every_fixture(path: Path) -> None:
    with Session.open(str(path)) as session:
        context = build_session_context(session)
        page = export_session(session, "html").decode("utf-8")
        markdown = export_session(session, "md").decode("utf-8")
    parsed = assert_inert_page(page)
    assert len(parsed.sections) == len(context.messages)
    assert not UNSAFE.search(markdown)
    assert markdown.startswith("# ")
    # rendered by a CommonMark renderer that passes raw HTML through: still no live HTML
    rendered = MarkdownIt("commonmark").render(markdown)
    assert "<script" not in rendered and "<img" not in rendered
    # every user message's first words are in both (as the renderers show them)
    for message in context.messages:
        if message.get("role") != "user" or not isinstance(message.get("content"), str):
            continue
        words = " ".join(message["content"].split()[:3])
        if words and not UNSAFE.search(words) and "<" not in words and "`" not in words:
            assert words in " ".join(markdown.split())
            assert any(words in " ".join(text.split()) for text in parsed.sections)


def test_terminal_hostile_html_is_inert_and_escaped() -> None:
    for corpus in CORPORA:
        path = fixture_by_scenario(corpus, "terminal-hostile")
        assert "<script>" in path.read_text(encoding="utf-8")
        with Session.open(str(path)) as session:
            page = export_session(session, "html").decode("utf-8")
        assert_inert_page(page)
        assert "&lt;script&gt;alert(" in page
        assert "&lt;img src=x onerror=alert(1)&gt;" in page
        assert "\x1b" not in page and "\u202e" not in page
        assert "␛[31m" in page  # escapes are shown as symbols, not dropped silently


def _hostile_session(tmp_path: Path) -> Session:
    text = (
        "Tom & Jerry <b>bold</b> and `<i>code</i>`\n\n"
        "[js](javascript:alert(1)) [ok](https://ok.example/?a=1&b=2) "
        '[quote](https://x.example/" onmouseover="alert(1))\n\n'
        "- item\n  ```\n<script>alert('list')</script>\n\n"
        "```\n<script>alert('fenced')</script>\n"  # left open
    )
    path = tmp_path / "hostile.jsonl"
    path.write_bytes(
        jsonl(
            user("u1", None, "Q & A <script>alert(2)</script>\u202eevil\x1b[2J"),
            assistant("a1", "u1", text),
            entry("session_info", "n1", "a1", t=3, name="<h1>name</h1> & co\x07"),
        )
    )
    return Session.open(str(path))


def test_html_escapes_text_and_links(tmp_path: Path) -> None:
    with _hostile_session(tmp_path) as session:
        page = to_html(build_document(session))
    assert_inert_page(page)
    assert "Q &amp; A &lt;script&gt;alert(2)&lt;/script&gt;" in page
    assert "&lt;h1&gt;name&lt;/h1&gt; &amp; co" in page  # the title, from the session name
    assert "https://ok.example/?a=1&amp;b=2" in page


def test_html_links_from_renderers_are_checked(tmp_path: Path) -> None:
    registry = default_registry(discover=False)

    def links(entry: RenderEntry, ctx: RenderContext) -> Text:
        text = Text()
        text.append("good", Style(link="https://ok.example/?a=1&b=2"))
        text.append(" bad", Style(link="javascript:alert(1)"))
        text.append(" quote", Style(link='https://x.example/" onmouseover="alert(1)'))
        return text

    registry.register(links, type="message", role="user", name="links")
    with _hostile_session(tmp_path) as session:
        parsed = assert_inert_page(to_html(build_document(session), registry=registry))
    anchors = [attrs for tag, attrs in parsed.tags if tag == "a"]
    assert [a.get("href") for a in anchors] == ["https://ok.example/?a=1&b=2"]
    assert anchors[0].get("rel") == "nofollow noopener noreferrer"
    assert all(set(a) == {"href", "rel"} for a in anchors)


def test_markdown_keeps_markdown_and_neutralizes_html(tmp_path: Path) -> None:
    with _hostile_session(tmp_path) as session:
        markdown = to_markdown(build_document(session))
    assert not UNSAFE.search(markdown)
    assert "Tom & Jerry &lt;b>bold&lt;/b> and `<i>code</i>`" in markdown
    assert "# &lt;h1>name&lt;/h1>" not in markdown and "\\<h1\\>name" in markdown
    rendered = MarkdownIt("commonmark").render(markdown)
    for tag in ("<script", "<b>bold", "<i>code", "<h1>name"):
        assert tag not in rendered, tag
    assert "&lt;script&gt;alert('list')" in rendered
    assert "<code>&lt;i&gt;code&lt;/i&gt;</code>" in rendered  # code spans stay literal
    # the fence the message left open was closed: the rest of the document is not code
    assert rendered.rstrip().endswith("</p>")


def test_markdown_helpers() -> None:
    assert neutralize("a <b> `<c>` \\`<d>`") == "a &lt;b> `<c>` \\`&lt;d>`"
    assert neutralize("x < y and 1<2") == "x < y and 1<2"  # not a tag: left alone
    assert neutralize("````\n```\n<s>\n````\n<t>") == "````\n```\n<s>\n````\n&lt;t>"
    assert neutralize("```\n<s>") == "```\n<s>\n```"
    assert neutralize("  ```\n<s>") == "  ```\n&lt;s>"  # an indented fence may be a list's
    assert neutralize("```a`b\n<s>") == "```a`b\n&lt;s>"  # not a fence: backtick in info
    assert fenced("a ``` b\n````") == "`````\na ``` b\n````\n`````"
    assert code_span("a`b") == "``a`b``" and code_span("`x") == "`` `x ``"
    assert inline("*x* [y](z) <b> & #") == "\\*x\\* \\[y\\](z) \\<b\\> \\& \\#"
    assert inline("a\nb\x1b") == "a b␛"
    assert safe_href("https://a.example/?q=1&r=2") == "https://a.example/?q=1&amp;r=2"
    assert safe_href("javascript:alert(1)") is None
    assert safe_href('https://a.example/" onclick="x') is None


# ------------------------------------------------------------------------------------ plug-ins


def test_plugins_draw_their_entries_in_both_formats() -> None:
    path = fixture_by_scenario("pi-written", "terminal-hostile")
    registry = default_registry(discover=False)

    def draw_log_tail(entry: RenderEntry, ctx: RenderContext) -> Text:
        return Text("LOG-TAIL PLUGIN <b>&", style="bold magenta")

    registry.register(draw_log_tail, custom_type="log-tail", name="test log-tail")
    with Session.open(str(path)) as session:
        document = build_document(session)
        page = to_html(document, registry=registry)
        markdown = to_markdown(document, registry=registry)
    assert "LOG-TAIL PLUGIN &lt;b&gt;&amp;" in page
    assert "font-weight: bold" in page.split("LOG-TAIL PLUGIN")[0].rsplit("<span", 1)[1]
    assert "LOG-TAIL PLUGIN <b>&" in markdown  # in a fenced block, as drawn
    assert "tail of app.log" not in page  # the built-in drawing was replaced


def test_plugin_that_raises_cannot_break_an_export(tmp_path: Path) -> None:
    registry = default_registry(discover=False)

    def broken(entry: RenderEntry, ctx: RenderContext) -> Any:
        raise RuntimeError("boom <script>")

    registry.register(broken, type="message", role="user", name="broken")
    with _hostile_session(tmp_path) as session:
        page = to_html(build_document(session), registry=registry)
    assert_inert_page(page)
    assert "boom &lt;script&gt;" in page


# ---------------------------------------------------------------------------------- the command


def test_cli_export_formats(tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    path = fixture_by_scenario("pi-written", "branches")
    with Session.open(str(path)) as session:
        leaf = next(m for m in session.entries if not m.children and m is not session.leaf)
        want_messages = build_session_context(session, leaf.uid).messages
    assert main(["export", str(path), "--format", "jsonl", "--leaf", leaf.uid[:6]]) == 0
    copy = Session.from_bytes(capsysbinary.readouterr().out)
    assert build_session_context(copy).messages == want_messages
    for fmt in ("md", "html"):
        target = tmp_path / f"out.{fmt}"
        assert main(["export", str(path), "-f", fmt, "--leaf", leaf.uid, "-o", str(target)]) == 0
        assert b"wrote " in capsysbinary.readouterr().out
        assert target.read_text(encoding="utf-8").count("\n") > 10
    page = (tmp_path / "out.html").read_text(encoding="utf-8")
    assert len(parse_page(page).sections) == len(want_messages)
    assert main(["export", str(path), "-f", "md"]) == 0
    assert capsysbinary.readouterr().out.startswith(b"# ")


def test_cli_export_errors(capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    path = fixture_by_scenario("pi-written", "minimal")
    assert main(["export", str(path), "-f", "md", "--leaf", "zzzz"]) == 1
    assert b"zzzz" in capsysbinary.readouterr().err
    assert main(["export", "/nonexistent/x.jsonl", "-f", "md"]) == 1
    with pytest.raises(SystemExit):
        main(["export", str(path)])  # --format is required


def test_output_to_a_folder_uses_the_session_id(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    path = fixture_by_scenario("pi-written", "minimal")
    with Session.open(str(path)) as session:
        session_id = session.id
        leaf = session.leaf
        assert leaf is not None
        assert export_name(session, "md") == f"{session_id}.md"
        assert export_name(session, "html", leaf.uid) == f"{session_id}-{leaf.uid}.html"
        assert write_export(session, "jsonl", str(tmp_path)) == str(
            tmp_path / f"{session_id}.jsonl"
        )
    assert main(["export", str(path), "-f", "md", "-o", str(tmp_path)]) == 0
    assert (tmp_path / f"{session_id}.md").read_text(encoding="utf-8").startswith("# ")
    assert main(["export", str(path), "-f", "md", "-o", str(tmp_path / "no" / "x.md")]) == 1
    assert b"no" in capsysbinary.readouterr().err


def test_export_name_is_a_safe_file_name() -> None:
    header = {**HEADER, "id": "../../etc/passwd\x1b"}
    session = Session.from_bytes(jsonl(user("u1", None), header=header))
    name = export_name(session, "md", "a/b")
    assert "/" not in name and "\x1b" not in name and name.endswith("-a_b.md")


# ------------------------------------------------------------- -o never costs a file (issue 24.1)


def test_export_refuses_an_existing_file_without_force(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    path = fixture_by_scenario("pi-written", "minimal")
    target = tmp_path / "notes.md"
    target.write_bytes(b"mine\n")
    assert main(["export", str(path), "-f", "md", "-o", str(target)]) == 1
    assert b"--force" in capsysbinary.readouterr().err
    assert target.read_bytes() == b"mine\n"
    assert main(["export", str(path), "-f", "md", "-o", str(target), "--force"]) == 0
    assert target.read_text(encoding="utf-8").startswith("# ")


def test_export_never_replaces_the_session_or_another_session(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    source = tmp_path / "a.jsonl"
    source.write_bytes(fixture_by_scenario("pi-written", "minimal").read_bytes())
    other = tmp_path / "other.jsonl"
    other.write_bytes(fixture_by_scenario("pi-written", "branches").read_bytes())
    before = {p: p.read_bytes() for p in (source, other)}
    for fmt, target in (("md", source), ("jsonl", source), ("jsonl", other), ("md", other)):
        for force in ([], ["--force"]):
            code = main(["export", str(source), "-f", fmt, "-o", str(target), *force])
            assert code == 1
            assert b"session" in capsysbinary.readouterr().err
    assert {p: p.read_bytes() for p in (source, other)} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.jsonl", "other.jsonl"]


def test_export_never_replaces_what_is_not_a_regular_file(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    path = fixture_by_scenario("pi-written", "minimal")
    fifo = tmp_path / "pipe.md"
    os.mkfifo(fifo)
    mine = tmp_path / "mine.md"
    mine.write_bytes(b"mine\n")
    link = tmp_path / "link.md"
    link.symlink_to(mine)
    for target in (fifo, link):
        assert main(["export", str(path), "-f", "md", "-o", str(target), "--force"]) == 1
        assert b"not a regular file" in capsysbinary.readouterr().err
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and link.is_symlink()
    assert mine.read_bytes() == b"mine\n"


def test_export_dash_is_stdout(capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    path = fixture_by_scenario("pi-written", "minimal")
    assert main(["export", str(path), "-f", "md", "-o", "-"]) == 0
    assert capsysbinary.readouterr().out.startswith(b"# ")
    assert not Path("-").exists()


def test_a_role_that_is_not_a_string_is_shown_not_fatal(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    # Issue 24.8: a message role that is an object or a list made inspect and export -f md raise.
    odd = [
        entry("message", "a1", "u1", message={"role": {"x": 1}, "content": "object role"}),
        entry("message", "a2", "a1", message={"role": ["user"], "content": "list role"}),
    ]
    path = tmp_path / "odd-roles.jsonl"
    path.write_bytes(jsonl(user("u1", None), *odd))
    for argv in (["inspect", str(path)], ["export", str(path), "-f", "md"]):
        assert main(argv) == 0, argv
        assert b"Traceback" not in capsysbinary.readouterr().err
    assert main(["export", str(path), "-f", "md"]) == 0
    markdown = capsysbinary.readouterr().out.decode()
    assert "object role" in markdown and "list role" in markdown
