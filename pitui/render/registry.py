"""The renderer registry: which function draws an entry, and what happens when it misbehaves.

Writing a renderer
==================

A renderer is a callable ``(entry: RenderEntry, ctx: RenderContext) -> RenderableType``. It gets
the raw entry dict (``entry.raw``), the validated model (``entry.model``) and a small context
(width, theme, whether the entry is selected, the tool call a tool result answers, the session,
whether the user asked to see everything). It returns any Rich renderable. An optional compact
form ``(entry, ctx) -> Text`` draws the entry on one line for lists.

Session text is untrusted. Never put it into Rich markup (``f"[b]{name}[/b]"``, a ``str`` given to
``Table.add_row`` or ``Panel(title=...)``): build ``Text`` objects with
:func:`pitui.render.safe_text.safe_text` (blocks) and :func:`~pitui.render.safe_text.safe_line`
(one line), e.g. ``Text.assemble(("Tool: ", "bold"), safe_line(name))``. A ``str`` returned by a
renderer is shown as plain text, never as markup.

Register from Python::

    registry.register(draw_todo, custom_type="todo-tracker", compact=draw_todo_row)

    @registry.register(type="message", role="toolResult")
    def draw_tool_result(entry: RenderEntry, ctx: RenderContext) -> RenderableType: ...

or from an installed package, through the entry-point group ``pitui.renderers``::

    [project.entry-points."pitui.renderers"]
    todo = "pitui_todo:register"

The entry point names a callable ``register(registry: RendererRegistry) -> None`` that calls
``registry.register(...)``. Entry points are listed when the registry is created, without
importing anything; they are imported on the first lookup (or :meth:`RendererRegistry.
load_plugins`). Entry points of pitui itself load first, then the others by distribution and
name, so a plug-in's registration overrides a built-in one for the same key. A plug-in that fails
to import, is not callable or whose ``register`` raises is recorded in
:attr:`RendererRegistry.warnings` (its partial registrations are dropped); it never raises.

Lookup: an entry's key is (entry ``type``, message ``role``, ``customType``). Of the
registrations whose fields all match, the most specific wins: one naming a ``customType`` beats
one naming a role, which beats one naming only a type; with equal specificity the later
registration wins. Nothing matching: the fallback view (heading plus folded raw JSON).

Isolation: :meth:`RendererRegistry.render` runs the renderer, and wraps its result so that the
drawing (where Rich renderables do most of their work) is checked too. If either raises, or the
result is not a Rich renderable, that entry shows the fallback view under a one-line error naming
the renderer and plug-in. Everything a renderer's output sends to the terminal is passed through
:func:`~pitui.render.safe_text.sanitize_segments`: control segments are dropped and control,
bidi and other unsafe characters are replaced, whatever the renderer built.

Time: each call (and each drawing of its result) is timed; once one takes longer than the budget
(0.5 s by default) the renderer is marked slow and, for the rest of the run, its entries show the
fallback with a note saying so. A renderer that is not pitui's own runs in a thread of its own
under a deadline (2 s by default, :mod:`pitui.render.isolation`): a call that never returns is
abandoned, that entry shows the fallback, and every renderer of its plug-in is switched off for
the run — an export finishes, the session view keeps drawing, and quitting never waits on it.
"""

from __future__ import annotations

import importlib.metadata
import json
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar, overload

import orjson
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.measure import Measurement
from rich.protocol import is_renderable, rich_cast
from rich.style import Style
from rich.text import Text

from pitui.render.isolation import DEFAULT_DEADLINE, Abandoned, call_with_deadline
from pitui.render.safe_text import (
    MARKER_STYLE,
    SYMBOL_STYLE,
    one_line,
    safe_line,
    safe_text,
    sanitize_segments,
    sanitize_text,
)

__all__ = [
    "DEFAULT_TIME_BUDGET",
    "ENTRY_POINT_GROUP",
    "CompactRenderer",
    "ModelFactory",
    "PluginInfo",
    "PluginWarning",
    "Registration",
    "RenderContext",
    "RenderEntry",
    "RenderFailure",
    "Renderer",
    "RendererRegistry",
    "fallback_compact",
    "fallback_view",
]

ENTRY_POINT_GROUP = "pitui.renderers"
DEFAULT_TIME_BUDGET = 0.5
#: The fallback folds the raw JSON to this many lines / characters unless ``ctx.expanded``.
FALLBACK_MAX_LINES = 40
FALLBACK_MAX_CHARS = 8_000
#: Most recent failures kept in :attr:`RendererRegistry.failures`.
MAX_FAILURES = 100

ERROR_STYLE = Style(color="red", bold=True)
HEADING_STYLE = Style(bold=True)

ModelFactory = Callable[[Mapping[str, Any]], object]
Renderer = Callable[["RenderEntry", "RenderContext"], RenderableType]
CompactRenderer = Callable[["RenderEntry", "RenderContext"], "Text | str"]
R = TypeVar("R", bound=Renderer)
T = TypeVar("T")

_NOT_VALIDATED = object()


class RenderEntry:
    """An entry to draw: the raw dict from the file and its model, validated on first use."""

    __slots__ = ("_factory", "_model", "_model_error", "raw")

    def __init__(
        self,
        raw: Mapping[str, Any],
        model_factory: ModelFactory | None = None,
        *,
        model: object = _NOT_VALIDATED,
    ) -> None:
        """``model``: an already validated model (the factory is then never called)."""
        self.raw = raw
        self._factory = model_factory
        self._model: object = model
        self._model_error: Exception | None = None

    def __repr__(self) -> str:
        return f"RenderEntry(type={self.type!r}, role={self.role!r}, id={self.id!r})"

    @property
    def type(self) -> str | None:
        value = self.raw.get("type")
        return value if isinstance(value, str) else None

    @property
    def message(self) -> Mapping[str, Any] | None:
        """The ``message`` object of a ``message`` entry."""
        value = self.raw.get("message")
        return value if isinstance(value, Mapping) else None

    @property
    def role(self) -> str | None:
        """The message role of a ``message`` entry (None for other entries)."""
        message = self.message if self.type == "message" else None
        value = message.get("role") if message is not None else None
        return value if isinstance(value, str) else None

    @property
    def custom_type(self) -> str | None:
        """``customType`` of a ``custom`` / ``custom_message`` entry or of a ``custom`` message."""
        value = self.raw.get("customType")
        if value is None and self.type == "message" and self.message is not None:
            value = self.message.get("customType")
        return value if isinstance(value, str) else None

    @property
    def id(self) -> str | None:
        value = self.raw.get("id")
        return value if isinstance(value, str) else None

    @property
    def key(self) -> tuple[str | None, str | None, str | None]:
        """The lookup key (type, role, customType)."""
        return (self.type, self.role, self.custom_type)

    def _validate(self) -> None:
        if self._model is not _NOT_VALIDATED or self._model_error is not None:
            return
        if self._factory is None:
            self._model = None
            return
        try:
            self._model = self._factory(self.raw)
        except Exception as exc:
            self._model_error = exc

    @property
    def model(self) -> object:
        """The validated model (None without a model factory); raises if validation failed."""
        self._validate()
        if self._model_error is not None:
            raise self._model_error
        return self._model

    @property
    def model_error(self) -> Exception | None:
        """The exception validation raised, if any (validates on first use)."""
        self._validate()
        return self._model_error


@dataclass(frozen=True)
class RenderContext:
    """What a renderer may know besides the entry."""

    width: int = 80
    theme: str = "textual-dark"
    dark: bool = True
    selected: bool = False
    #: For a ``toolResult``: the ``toolCall`` content block it answers (raw dict), if known.
    tool_call: Mapping[str, Any] | None = None
    #: The session the entry belongs to (a ``pitui.core`` session object), if any.
    session: object | None = None
    #: The user asked to see everything ("show all"): no folding or truncation.
    expanded: bool = False


@dataclass(frozen=True, eq=False)
class Registration:
    renderer: Renderer
    compact: CompactRenderer | None
    type: str | None
    role: str | None
    custom_type: str | None
    name: str
    plugin: str | None
    order: int
    time_budget: float | None
    #: Run under a deadline in a thread of its own (every renderer but pitui's own).
    isolated: bool = False

    @property
    def pattern(self) -> tuple[str | None, str | None, str | None]:
        return (self.type, self.role, self.custom_type)

    def describe(self) -> str:
        text = f"renderer '{self.name}'"
        return f"{text} from plug-in '{self.plugin}'" if self.plugin else text


@dataclass(frozen=True)
class PluginInfo:
    """An entry point of the ``pitui.renderers`` group, as listed (not imported)."""

    name: str
    value: str
    distribution: str | None


@dataclass(frozen=True)
class PluginWarning:
    plugin: str
    value: str
    message: str

    def __str__(self) -> str:
        return f"renderer plug-in '{self.plugin}' ({self.value}): {self.message}"


@dataclass(frozen=True)
class RenderFailure:
    """A renderer that raised, returned a non-renderable, or went over its time budget."""

    renderer: str
    plugin: str | None
    entry_id: str | None
    when: Literal["call", "draw", "result", "slow", "hung", "model"]
    error: str


# Lookup patterns in priority order, as (use type, use role, use customType): customType beats
# role beats type; within a level, more fields named is more specific.
_PRIORITY: tuple[tuple[bool, bool, bool], ...] = (
    (True, True, True),
    (False, True, True),
    (True, False, True),
    (False, False, True),
    (True, True, False),
    (False, True, False),
    (True, False, False),
)

Key = tuple[str | None, str | None, str | None]


def _patterns(key: Key) -> Iterator[Key]:
    t, r, c = key
    seen: set[Key] = set()
    for use_t, use_r, use_c in _PRIORITY:
        if (use_t and t is None) or (use_r and r is None) or (use_c and c is None):
            continue
        pattern = (t if use_t else None, r if use_r else None, c if use_c else None)
        if pattern not in seen:
            seen.add(pattern)
            yield pattern


def _exc_text(exc: BaseException) -> str:
    try:
        message = str(exc)
    except Exception:
        message = "<unprintable message>"
    text = type(exc).__name__
    return f"{text}: {message}" if message else text


def _json_default(obj: object) -> str:
    return repr(obj)


def _dump_json(raw: object) -> str:
    """Pretty JSON of an entry; never raises (lone surrogates and odd objects included)."""
    try:
        return orjson.dumps(
            raw, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS, default=_json_default
        ).decode("utf-8")
    except (TypeError, ValueError):
        pass  # orjson rejects lone surrogates, which json keeps (ensure_ascii=False)
    try:
        return json.dumps(raw, indent=2, ensure_ascii=False, default=_json_default)
    except (TypeError, ValueError, RecursionError):
        pass
    try:
        return repr(raw)
    except Exception as exc:
        return f"<entry cannot be shown: {_exc_text(exc)}>"


def _heading_label(entry: RenderEntry) -> str:
    if entry.type == "message":
        return entry.role or "message"
    return entry.type or "no type"


def _heading(entry: RenderEntry) -> Text:
    heading = Text.assemble(("[", HEADING_STYLE), safe_line(_heading_label(entry), max_chars=80))
    heading.append("]", HEADING_STYLE)
    heading.stylize(HEADING_STYLE)
    custom_type = entry.custom_type
    if custom_type is not None:
        heading.append(" ")
        heading.append_text(safe_line(custom_type, max_chars=80))
    return heading


def fallback_view(entry: RenderEntry, ctx: RenderContext, *, note: Text | None = None) -> Group:
    """The view of an entry nobody else draws (or whose renderer failed): heading plus raw JSON.

    The JSON is folded to :data:`FALLBACK_MAX_LINES` lines unless ``ctx.expanded``.
    """
    heading = _heading(entry)
    heading.append(" raw entry", MARKER_STYLE)
    if ctx.expanded:
        body = safe_text(_dump_json(entry.raw), max_chars=None)
    else:
        body = safe_text(
            _dump_json(entry.raw), max_lines=FALLBACK_MAX_LINES, max_chars=FALLBACK_MAX_CHARS
        )
    if note is None:
        return Group(heading, body)
    note.end = "\n"  # one-line Texts end without a newline; in a Group it needs one
    return Group(note, heading, body)


def _preview(raw: Mapping[str, Any]) -> str:
    """Some text of an entry for its one-line form."""
    source: Mapping[str, Any] = raw
    message = raw.get("message")
    if raw.get("type") == "message" and isinstance(message, Mapping):
        source = message
    for key in ("content", "summary", "name", "label", "command", "output"):
        value = source.get(key)
        if isinstance(value, str) and value:
            return value
        if isinstance(value, list):
            for block in value:
                if isinstance(block, Mapping) and isinstance(block.get("text"), str):
                    text: str = block["text"]
                    return text
    return ""


def fallback_compact(entry: RenderEntry, ctx: RenderContext) -> Text:
    """One line for an entry nobody else draws: ``[type] customType preview``."""
    line = _heading(entry)
    preview = _preview(entry.raw)
    if preview:
        line.append(" ")
        line.append_text(safe_line(preview, max_chars=max(ctx.width, 1) * 2))
    line.no_wrap = True
    line.overflow = "ellipsis"
    line.end = ""
    return line


def _one_line_text(text: Text) -> Text:
    """``text`` sanitized and on one line (line breaks shown as ⏎)."""
    text = sanitize_text(text)
    if "\n" in text.plain:
        text = Text("⏎", style=SYMBOL_STYLE).join(text.split("\n", allow_blank=True))
    text.no_wrap = True
    text.overflow = "ellipsis"
    text.end = ""
    return text


class _Guarded:
    """A renderer's result, drawn under the registry's watch (exceptions, time, output)."""

    def __init__(
        self,
        inner: object,
        registry: RendererRegistry,
        registration: Registration,
        entry: RenderEntry,
        ctx: RenderContext,
    ) -> None:
        self.inner = inner
        self.registry = registry
        self.registration = registration
        self.entry = entry
        self.ctx = ctx
        # once drawing failed, repaints show the same fallback without running it again
        self._failed: Group | None = None

    def _cast(self) -> RenderableType:
        inner = rich_cast(self.inner)
        if isinstance(inner, str):
            return safe_text(inner)  # never markup
        if not is_renderable(inner):
            raise TypeError(f"{type(inner).__name__} is not a Rich renderable")
        return inner

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        registry = self.registry
        if self._failed is not None:
            yield from console.render(self._failed, options)
            return
        start = registry.clock()
        try:
            segments = registry._call(
                self.registration, lambda: list(console.render(self._cast(), options))
            )
        except Abandoned as exc:
            registry._switch_off(self.registration, self.entry, exc)
            self._failed = fallback_view(
                self.entry, self.ctx, note=registry._slow_note(self.registration)
            )
            yield from console.render(self._failed, options)
            return
        except (Exception, SystemExit) as exc:
            registry._note_time(self.registration, self.entry, registry.clock() - start)
            self._failed = registry._failure_view(
                self.entry, self.ctx, self.registration, exc, "draw"
            )
            yield from console.render(self._failed, options)
            return
        registry._note_time(self.registration, self.entry, registry.clock() - start)
        yield from sanitize_segments(segments)

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        try:
            inner = self._cast() if self._failed is None else self._failed
            return self.registry._call(
                self.registration, lambda: Measurement.get(console, options, inner)
            )
        except Abandoned as exc:
            self.registry._switch_off(self.registration, self.entry, exc)
            return Measurement(1, options.max_width)
        except (Exception, SystemExit):
            return Measurement(1, options.max_width)


@dataclass
class _State:
    by_pattern: dict[Key, list[Registration]] = field(default_factory=dict)
    cache: dict[Key, Registration | None] = field(default_factory=dict)
    compact_cache: dict[Key, Registration | None] = field(default_factory=dict)
    slow: dict[int, float] = field(default_factory=dict)
    hung: set[int] = field(default_factory=set)
    order: int = 0


class RendererRegistry:
    """Renderers by (type, role, customType), plug-ins from entry points, isolation of failures.

    Args:
        model_factory: turns a raw entry into its model (``pitui.core.models.parse_entry``);
            used by :meth:`entry` and to validate an entry before its renderer runs.
        time_budget: seconds a renderer may take before it is marked slow (None: no limit).
        discover: list the ``pitui.renderers`` entry points now (they load on first lookup).
        entry_points: use these entry points instead of discovering them.
        clock: the timer (tests pass a fake one).
        deadline: seconds a renderer that is not pitui's own may run before it is abandoned
            and its plug-in switched off for the run (None: never abandoned). See
            :mod:`pitui.render.isolation`.
    """

    def __init__(
        self,
        *,
        model_factory: ModelFactory | None = None,
        time_budget: float | None = DEFAULT_TIME_BUDGET,
        discover: bool = True,
        entry_points: Iterable[importlib.metadata.EntryPoint] | None = None,
        clock: Callable[[], float] = time.perf_counter,
        deadline: float | None = DEFAULT_DEADLINE,
    ) -> None:
        self.model_factory = model_factory
        self.deadline = deadline
        self.time_budget = time_budget
        self.clock = clock
        self._lock = threading.RLock()
        self._state = _State()
        self._warnings: list[PluginWarning] = []
        self._failures: deque[RenderFailure] = deque(maxlen=MAX_FAILURES)
        self._loading_plugin: str | None = None
        self._loading = False
        if entry_points is not None:
            self._entry_points = self._order_entry_points(entry_points)
        elif discover:
            self._entry_points = self._discover()
        else:
            self._entry_points = []
        self._plugins_loaded = not self._entry_points

    # --- plug-ins ------------------------------------------------------------------------

    @staticmethod
    def _order_entry_points(
        eps: Iterable[importlib.metadata.EntryPoint],
    ) -> list[importlib.metadata.EntryPoint]:
        unique: dict[tuple[str, str], importlib.metadata.EntryPoint] = {}
        for ep in eps:
            unique.setdefault((ep.name, ep.value), ep)

        def sort_key(ep: importlib.metadata.EntryPoint) -> tuple[bool, str, str]:
            module = ep.value.partition(":")[0].strip()
            own = module == "pitui" or module.startswith("pitui.")
            dist = ep.dist.name if ep.dist is not None else ""
            return (not own, dist, ep.name)

        return sorted(unique.values(), key=sort_key)

    def _discover(self) -> list[importlib.metadata.EntryPoint]:
        try:
            eps = importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)
        except Exception as exc:  # broken metadata somewhere on sys.path
            self._warnings.append(PluginWarning("*", ENTRY_POINT_GROUP, _exc_text(exc)))
            return []
        return self._order_entry_points(eps)

    @property
    def plugins(self) -> list[PluginInfo]:
        """The entry points found, in load order (listing them imports nothing)."""
        return [
            PluginInfo(ep.name, ep.value, ep.dist.name if ep.dist is not None else None)
            for ep in self._entry_points
        ]

    @property
    def warnings(self) -> list[PluginWarning]:
        """Plug-ins that could not be loaded, and why."""
        return list(self._warnings)

    @property
    def failures(self) -> list[RenderFailure]:
        """The most recent renderer failures (oldest first)."""
        return list(self._failures)

    def load_plugins(self) -> None:
        """Import every listed plug-in and call its ``register(registry)`` (once)."""
        if self._plugins_loaded:
            return
        # Other threads wait on the lock until loading is done; the loading thread itself (a
        # plug-in whose register() looks something up) gets through the RLock and must not recurse.
        with self._lock:
            if self._plugins_loaded or self._loading:
                return
            self._loading = True
            try:
                for ep in self._entry_points:
                    self._load_plugin(ep)
            finally:
                self._plugins_loaded = True
                self._loading = False

    def _warn(self, ep: importlib.metadata.EntryPoint, message: str) -> None:
        self._warnings.append(PluginWarning(one_line(ep.name, 80), one_line(ep.value), message))

    def _load_plugin(self, ep: importlib.metadata.EntryPoint) -> None:
        try:
            register = ep.load()
        except (Exception, SystemExit) as exc:
            self._warn(ep, one_line(f"import failed: {_exc_text(exc)}"))
            return
        if not callable(register):
            self._warn(ep, f"{type(register).__name__} object is not callable")
            return
        before = self._state.order
        self._loading_plugin = one_line(ep.name, 80)
        try:
            register(self)
        except (Exception, SystemExit) as exc:
            self._drop_registrations_since(before)
            self._warn(ep, one_line(f"register() raised {_exc_text(exc)}"))
        finally:
            self._loading_plugin = None

    def _drop_registrations_since(self, order: int) -> None:
        state = self._state
        for pattern, regs in list(state.by_pattern.items()):
            kept = [reg for reg in regs if reg.order < order]
            if kept:
                state.by_pattern[pattern] = kept
            else:
                del state.by_pattern[pattern]
        state.cache.clear()
        state.compact_cache.clear()

    # --- registration --------------------------------------------------------------------

    @overload
    def register(
        self,
        renderer: Renderer,
        *,
        type: str | None = None,
        role: str | None = None,
        custom_type: str | None = None,
        name: str | None = None,
        compact: CompactRenderer | None = None,
        time_budget: float | Literal["default"] | None = "default",
    ) -> Registration: ...

    @overload
    def register(
        self,
        renderer: None = None,
        *,
        type: str | None = None,
        role: str | None = None,
        custom_type: str | None = None,
        name: str | None = None,
        compact: CompactRenderer | None = None,
        time_budget: float | Literal["default"] | None = "default",
    ) -> Callable[[R], R]: ...

    def register(
        self,
        renderer: Renderer | None = None,
        *,
        type: str | None = None,
        role: str | None = None,
        custom_type: str | None = None,
        name: str | None = None,
        compact: CompactRenderer | None = None,
        time_budget: float | Literal["default"] | None = "default",
    ) -> Registration | Callable[[R], R]:
        """Register ``renderer`` for entries matching every field given.

        At least one of ``type`` (entry type), ``role`` (message role) and ``custom_type`` must
        be given. ``name`` labels the renderer in error lines (default: its qualified name).
        ``compact`` draws the one-line form. ``time_budget`` overrides the registry's budget
        for this renderer (None: never marked slow). Without ``renderer``, returns a decorator.
        """
        for label, value in (("type", type), ("role", role), ("custom_type", custom_type)):
            if value is not None and not isinstance(value, str):
                raise TypeError(f"{label} must be a str, not {value.__class__.__name__}")
        if type is None and role is None and custom_type is None:
            raise ValueError("give at least one of type, role, custom_type")
        if renderer is None:

            def decorator(func: R) -> R:
                self.register(
                    func,
                    type=type,
                    role=role,
                    custom_type=custom_type,
                    name=name,
                    compact=compact,
                    time_budget=time_budget,
                )
                return func

            return decorator
        if not callable(renderer):
            raise TypeError("renderer must be callable")
        with self._lock:
            state = self._state
            registration = Registration(
                renderer=renderer,
                compact=compact,
                type=type,
                role=role,
                custom_type=custom_type,
                name=one_line(name or _callable_name(renderer), 120),
                plugin=self._loading_plugin,
                order=state.order,
                time_budget=self.time_budget if time_budget == "default" else time_budget,
                isolated=not _is_pitui_code(renderer) or not _is_pitui_code(compact),
            )
            state.order += 1
            state.by_pattern.setdefault(registration.pattern, []).append(registration)
            state.cache.clear()
            state.compact_cache.clear()
        return registration

    def registrations(self) -> list[Registration]:
        """Every registration, in registration order."""
        self.load_plugins()
        regs = [reg for regs in self._state.by_pattern.values() for reg in regs]
        return sorted(regs, key=lambda reg: reg.order)

    # --- lookup --------------------------------------------------------------------------

    def entry(self, raw: Mapping[str, Any]) -> RenderEntry:
        """Wrap a raw entry dict with this registry's model factory."""
        return RenderEntry(raw, self.model_factory)

    def lookup(self, entry: RenderEntry) -> Registration | None:
        """The registration that draws ``entry`` (None: the fallback)."""
        self.load_plugins()
        key = entry.key
        state = self._state
        try:
            return state.cache[key]
        except KeyError:
            pass
        found: Registration | None = None
        for pattern in _patterns(key):
            regs = state.by_pattern.get(pattern)
            if regs:
                found = regs[-1]
                break
        state.cache[key] = found
        return found

    def lookup_compact(self, entry: RenderEntry) -> Registration | None:
        """The most specific registration with a compact form for ``entry``."""
        self.load_plugins()
        key = entry.key
        state = self._state
        try:
            return state.compact_cache[key]
        except KeyError:
            pass
        found: Registration | None = None
        for pattern in _patterns(key):
            with_compact = [reg for reg in state.by_pattern.get(pattern, ()) if reg.compact]
            if with_compact:
                found = with_compact[-1]
                break
        state.compact_cache[key] = found
        return found

    # --- slow renderers ------------------------------------------------------------------

    def is_slow(self, registration: Registration) -> bool:
        return registration.order in self._state.slow

    def reset_slow(self) -> None:
        """Give every renderer marked slow another chance."""
        self._state.slow.clear()

    def _note_time(self, reg: Registration, entry: RenderEntry, elapsed: float) -> None:
        budget = reg.time_budget
        if budget is None or elapsed <= budget or reg.order in self._state.slow:
            return
        self._state.slow[reg.order] = elapsed
        self._failures.append(
            RenderFailure(
                reg.name, reg.plugin, entry.id, "slow", f"took {elapsed:.2f} s (budget {budget} s)"
            )
        )

    def _call(self, reg: Registration, func: Callable[[], T]) -> T:
        """``func()`` (a call into ``reg``'s code), under the deadline if ``reg`` is isolated."""
        return call_with_deadline(func, self.deadline if reg.isolated else None)

    def _switch_off(self, reg: Registration, entry: RenderEntry, exc: Abandoned) -> None:
        """``reg`` hung: it, and every renderer of its plug-in, are off for the rest of the run."""
        state = self._state
        for other in self.registrations():
            if other is reg or (reg.plugin is not None and other.plugin == reg.plugin):
                state.slow[other.order] = exc.deadline
                state.hung.add(other.order)
        self._failures.append(RenderFailure(reg.name, reg.plugin, entry.id, "hung", str(exc)))

    def _slow_note(self, reg: Registration) -> Text:
        if reg.order in self._state.hung:
            return safe_line(
                f"⚠ {reg.describe()} is switched off for this run: a call did not return "
                f"within {self.deadline or 0:g} s",
                style=ERROR_STYLE,
            )
        elapsed = self._state.slow.get(reg.order, 0.0)
        budget = reg.time_budget or 0.0
        return safe_line(
            f"⚠ {reg.describe()} is disabled for this run: it took {elapsed:.2f} s "
            f"(budget {budget:.2f} s)",
            style=ERROR_STYLE,
        )

    # --- drawing -------------------------------------------------------------------------

    def _failure_view(
        self,
        entry: RenderEntry,
        ctx: RenderContext,
        reg: Registration | None,
        exc: BaseException | str,
        when: Literal["call", "draw", "result", "model"],
    ) -> Group:
        error = one_line(exc if isinstance(exc, str) else _exc_text(exc), 300)
        self._failures.append(
            RenderFailure(
                reg.name if reg else "", reg.plugin if reg else None, entry.id, when, error
            )
        )
        if reg is None:
            message = f"⚠ entry could not be read: {error}"
        elif when == "result":
            message = f"⚠ {reg.describe()} returned {error}"
        else:
            message = f"⚠ {reg.describe()} failed: {error}"
        return fallback_view(entry, ctx, note=safe_line(message, style=ERROR_STYLE))

    def _check_result(
        self, result: object, reg: Registration, entry: RenderEntry, ctx: RenderContext
    ) -> RenderableType:
        if isinstance(result, str):
            return safe_text(result)
        if type(result) is Text:  # (a subclass may draw itself differently: guard it)
            return sanitize_text(result)
        if not is_renderable(result):
            kind = "None" if result is None else f"a {type(result).__name__}"
            return self._failure_view(entry, ctx, reg, f"{kind}, not a Rich renderable", "result")
        return _Guarded(result, self, reg, entry, ctx)

    def render(self, entry: RenderEntry, ctx: RenderContext) -> RenderableType:
        """Draw ``entry``; never raises because of a renderer, never emits control sequences."""
        reg = self.lookup(entry)
        if reg is None:
            return fallback_view(entry, ctx)
        if reg.order in self._state.slow:
            return fallback_view(entry, ctx, note=self._slow_note(reg))
        model_error = entry.model_error
        if model_error is not None:
            return self._failure_view(entry, ctx, None, model_error, "model")
        start = self.clock()
        try:
            result = self._call(reg, lambda: reg.renderer(entry, ctx))
        except Abandoned as exc:
            self._switch_off(reg, entry, exc)
            return fallback_view(entry, ctx, note=self._slow_note(reg))
        except (Exception, SystemExit) as exc:
            self._note_time(reg, entry, self.clock() - start)
            return self._failure_view(entry, ctx, reg, exc, "call")
        self._note_time(reg, entry, self.clock() - start)
        return self._check_result(result, reg, entry, ctx)

    def render_compact(self, entry: RenderEntry, ctx: RenderContext) -> Text:
        """Draw ``entry`` on one line (for lists); never raises because of a renderer."""
        reg = self.lookup_compact(entry)
        if reg is None or reg.compact is None or reg.order in self._state.slow:
            return fallback_compact(entry, ctx)
        if entry.model_error is not None:
            return _compact_error(entry, ctx)
        start = self.clock()
        compact = reg.compact
        try:
            result = self._call(reg, lambda: compact(entry, ctx))
        except Abandoned as exc:
            self._switch_off(reg, entry, exc)
            return fallback_compact(entry, ctx)
        except (Exception, SystemExit) as exc:
            self._note_time(reg, entry, self.clock() - start)
            self._failures.append(
                RenderFailure(reg.name, reg.plugin, entry.id, "call", one_line(_exc_text(exc)))
            )
            return _compact_error(entry, ctx)
        self._note_time(reg, entry, self.clock() - start)
        if isinstance(result, str):
            return safe_line(result)
        if isinstance(result, Text):
            return _one_line_text(result)
        self._failures.append(
            RenderFailure(
                reg.name,
                reg.plugin,
                entry.id,
                "result",
                f"compact form returned {type(result).__name__}, not Text",
            )
        )
        return _compact_error(entry, ctx)


def _compact_error(entry: RenderEntry, ctx: RenderContext) -> Text:
    line = Text("⚠ ", style=ERROR_STYLE, no_wrap=True, overflow="ellipsis", end="")
    return line.append_text(fallback_compact(entry, ctx))


def _is_pitui_code(func: object) -> bool:
    """Whether ``func`` is pitui's own code (None counts: there is nothing to run)."""
    if func is None:
        return True
    module = getattr(func, "__module__", None) or ""
    return module == "pitui" or module.startswith("pitui.")


def _callable_name(func: object) -> str:
    module = getattr(func, "__module__", None)
    qualname = getattr(func, "__qualname__", None) or type(func).__qualname__
    return f"{module}.{qualname}" if module else str(qualname)
