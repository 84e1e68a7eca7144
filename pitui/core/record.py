"""A plain record compared and shown by its fields, without :mod:`dataclasses`.

A class made by ``@dataclass`` costs a millisecond or more at import (its methods are generated
and compiled); the modules every ``pitui list`` loads use this instead.
"""

from __future__ import annotations

from typing import Any


class Record:
    """The slots listed in ``__slots__`` are the fields: equal when their fields are equal,
    hashed and shown by them."""

    __slots__: tuple[str, ...] = ()

    def _fields(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, Record)
        return self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        pairs = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"{type(self).__name__}({pairs})"
