"""What a renderer receives: the entry to draw (raw dict, model validated on first use), a context.

These are the types a plug-in's renderer is written against; :mod:`pitui.render.registry`
re-exports them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from rich.console import RenderableType
from rich.text import Text

__all__ = ["CompactRenderer", "ModelFactory", "RenderContext", "RenderEntry", "Renderer"]

ModelFactory = Callable[[Mapping[str, Any]], object]
Renderer = Callable[["RenderEntry", "RenderContext"], RenderableType]
CompactRenderer = Callable[["RenderEntry", "RenderContext"], "Text | str"]

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
