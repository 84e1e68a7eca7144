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
registration wins. Nothing matching: the fallback view (heading plus folded raw JSON,
:mod:`pitui.render.fallback`).

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
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar, overload

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.measure import Measurement
from rich.protocol import is_renderable, rich_cast
from rich.text import Text

from pitui.render.context import (
    CompactRenderer,
    ModelFactory,
    RenderContext,
    RenderEntry,
    Renderer,
)
from pitui.render.fallback import (
    ERROR_STYLE,
    compact_error,
    exception_text,
    fallback_compact,
    fallback_view,
)
from pitui.render.isolation import DEFAULT_DEADLINE, Abandoned, call_with_deadline
from pitui.render.plugins import (
    ENTRY_POINT_GROUP,
    PluginInfo,
    PluginWarning,
    callable_name,
    discover_entry_points,
    is_pitui_code,
    order_entry_points,
)
from pitui.render.safe_text import (
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

DEFAULT_TIME_BUDGET = 0.5
#: Most recent failures kept in :attr:`RendererRegistry.failures`.
MAX_FAILURES = 100

R = TypeVar("R", bound=Renderer)
T = TypeVar("T")


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
        try:
            segments = registry._watched(
                self.registration,
                self.entry,
                lambda: list(console.render(self._cast(), options)),
            )
        except Abandoned:
            self._failed = fallback_view(
                self.entry, self.ctx, note=registry._slow_note(self.registration)
            )
            yield from console.render(self._failed, options)
            return
        except (Exception, SystemExit) as exc:
            self._failed = registry._failure_view(
                self.entry, self.ctx, self.registration, exc, "draw"
            )
            yield from console.render(self._failed, options)
            return
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
            self._entry_points = order_entry_points(entry_points)
        elif discover:
            self._entry_points, self._warnings = discover_entry_points()
        else:
            self._entry_points = []
        self._plugins_loaded = not self._entry_points

    # --- plug-ins ------------------------------------------------------------------------

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
            self._warn(ep, one_line(f"import failed: {exception_text(exc)}"))
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
            self._warn(ep, one_line(f"register() raised {exception_text(exc)}"))
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
                name=one_line(name or callable_name(renderer), 120),
                plugin=self._loading_plugin,
                order=state.order,
                time_budget=self.time_budget if time_budget == "default" else time_budget,
                isolated=not is_pitui_code(renderer) or not is_pitui_code(compact),
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
        return self._lookup(entry, compact=False)

    def lookup_compact(self, entry: RenderEntry) -> Registration | None:
        """The most specific registration with a compact form for ``entry``."""
        return self._lookup(entry, compact=True)

    def _lookup(self, entry: RenderEntry, *, compact: bool) -> Registration | None:
        """The last registration of the most specific pattern matching ``entry`` (with a compact
        form, for ``compact``), cached per key until the registrations change."""
        self.load_plugins()
        key = entry.key
        state = self._state
        cache = state.compact_cache if compact else state.cache
        try:
            return cache[key]
        except KeyError:
            pass
        found: Registration | None = None
        for pattern in _patterns(key):
            regs = [reg for reg in state.by_pattern.get(pattern, ()) if reg.compact or not compact]
            if regs:
                found = regs[-1]
                break
        cache[key] = found
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

    def _watched(self, reg: Registration, entry: RenderEntry, func: Callable[[], T]) -> T:
        """:meth:`_call`, timed against ``reg``'s budget. A call that hung switches ``reg``'s
        plug-in off; what it raised (:class:`Abandoned` included) is raised again."""
        start = self.clock()
        try:
            result = self._call(reg, func)
        except Abandoned as exc:
            self._switch_off(reg, entry, exc)
            raise
        except (Exception, SystemExit):
            self._note_time(reg, entry, self.clock() - start)
            raise
        self._note_time(reg, entry, self.clock() - start)
        return result

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
        error = one_line(exc if isinstance(exc, str) else exception_text(exc), 300)
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
        try:
            result = self._watched(reg, entry, lambda: reg.renderer(entry, ctx))
        except Abandoned:
            return fallback_view(entry, ctx, note=self._slow_note(reg))
        except (Exception, SystemExit) as exc:
            return self._failure_view(entry, ctx, reg, exc, "call")
        return self._check_result(result, reg, entry, ctx)

    def render_compact(self, entry: RenderEntry, ctx: RenderContext) -> Text:
        """Draw ``entry`` on one line (for lists); never raises because of a renderer."""
        reg = self.lookup_compact(entry)
        if reg is None or reg.compact is None or reg.order in self._state.slow:
            return fallback_compact(entry, ctx)
        if entry.model_error is not None:
            return compact_error(entry, ctx)
        compact = reg.compact
        try:
            result = self._watched(reg, entry, lambda: compact(entry, ctx))
        except Abandoned:
            return fallback_compact(entry, ctx)
        except (Exception, SystemExit) as exc:
            self._failures.append(
                RenderFailure(reg.name, reg.plugin, entry.id, "call", one_line(exception_text(exc)))
            )
            return compact_error(entry, ctx)
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
        return compact_error(entry, ctx)
