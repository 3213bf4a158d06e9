"""An instant that keeps the nanoseconds a Java node writes.

``java.time.Instant`` has nanosecond resolution and ``Instant.toString()`` writes up to nine fraction digits
(``2026-07-07T10:15:30.123456789Z``); Python's ``datetime`` stops at microseconds. So that a record a Java
node wrote comes back byte-identical after this library read and re-wrote it, an instant read from text with
digits below the microsecond is an :class:`Instant`: a ``datetime`` (callers use it as one) that also carries
the sub-microsecond remainder (0–999 ns), which the codecs write back.

Only such values are :class:`Instant`; everything else stays a plain ``datetime``. Arithmetic with a
``timedelta`` keeps the remainder; comparison, equality and hashing take it into account (an ``Instant``
with a remainder is later than, and unequal to, the ``datetime`` of its microsecond).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, Self

__all__ = ["Instant", "nanos_of", "with_nanos"]


class Instant(datetime):
    """A ``datetime`` with the nanoseconds below its microsecond (``sub_micros``, 0–999)."""

    __slots__ = ("_sub_micros",)
    _sub_micros: int

    def __new__(cls, *args: Any, sub_micros: int = 0, **kwargs: Any) -> Self:
        if type(sub_micros) is not int or not 0 <= sub_micros <= 999:
            raise ValueError(f"sub_micros must be an int in 0..999, got {sub_micros!r}")
        obj = super().__new__(cls, *args, **kwargs)
        obj._sub_micros = sub_micros
        return obj

    @classmethod
    def of(cls, value: datetime, sub_micros: int) -> Self:
        """``value`` (aware or naive) with ``sub_micros`` nanoseconds below its microsecond."""
        return cls(
            value.year,
            value.month,
            value.day,
            value.hour,
            value.minute,
            value.second,
            value.microsecond,
            value.tzinfo,
            fold=value.fold,
            sub_micros=sub_micros,
        )

    @property
    def sub_micros(self) -> int:
        """Nanoseconds below the microsecond (0–999)."""
        return getattr(self, "_sub_micros", 0)

    @property
    def nanosecond(self) -> int:
        """Nanoseconds within the second (0–999,999,999), as ``java.time.Instant.getNano()``."""
        return self.microsecond * 1000 + self.sub_micros

    def as_datetime(self) -> datetime:
        """The plain ``datetime`` of this instant's microsecond (the remainder dropped)."""
        return datetime(
            self.year,
            self.month,
            self.day,
            self.hour,
            self.minute,
            self.second,
            self.microsecond,
            self.tzinfo,
            fold=self.fold,
        )

    def astimezone(self, tz: Any = None) -> Self:
        """The same instant in ``tz``, remainder kept."""
        return type(self).of(self.as_datetime().astimezone(tz), self.sub_micros)

    def replace(self, *args: Any, **kwargs: Any) -> Self:
        """``datetime.replace``, remainder kept (``sub_micros=`` sets it)."""
        sub_micros = kwargs.pop("sub_micros", self.sub_micros)
        return type(self).of(self.as_datetime().replace(*args, **kwargs), sub_micros)

    # Arithmetic keeps the remainder (a timedelta has microsecond resolution).
    def __add__(self, other: timedelta) -> Self:
        if not isinstance(other, timedelta):
            return NotImplemented
        return type(self).of(self.as_datetime() + other, self.sub_micros)

    __radd__ = __add__

    def __sub__(self, other: Any) -> Any:
        if isinstance(other, timedelta):
            return type(self).of(self.as_datetime() - other, self.sub_micros)
        if isinstance(other, datetime):
            return self.as_datetime() - _base(other)
        return NotImplemented

    def __rsub__(self, other: Any) -> Any:
        if isinstance(other, datetime):
            return _base(other) - self.as_datetime()
        return NotImplemented

    # Ordering and equality by (microsecond instant, remainder).
    def _key(self, other: object) -> tuple[tuple[datetime, int], tuple[datetime, int]] | None:
        if not isinstance(other, datetime):
            return None
        return (self.as_datetime(), self.sub_micros), (_base(other), nanos_of(other))

    def __eq__(self, other: object) -> bool:
        keys = self._key(other)
        if keys is None:
            return NotImplemented
        return keys[0] == keys[1]

    def __ne__(self, other: object) -> bool:
        keys = self._key(other)
        if keys is None:
            return NotImplemented
        return keys[0] != keys[1]

    def __lt__(self, other: object) -> bool:
        keys = self._key(other)
        if keys is None:
            return NotImplemented
        return keys[0] < keys[1]

    def __le__(self, other: object) -> bool:
        keys = self._key(other)
        if keys is None:
            return NotImplemented
        return keys[0] <= keys[1]

    def __gt__(self, other: object) -> bool:
        keys = self._key(other)
        if keys is None:
            return NotImplemented
        return keys[0] > keys[1]

    def __ge__(self, other: object) -> bool:
        keys = self._key(other)
        if keys is None:
            return NotImplemented
        return keys[0] >= keys[1]

    def __hash__(self) -> int:
        base = self.as_datetime()
        return hash(base) if self.sub_micros == 0 else hash((base, self.sub_micros))

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (self.as_datetime(), self.sub_micros))

    def __reduce_ex__(self, protocol: Any) -> tuple[Any, ...]:
        return self.__reduce__()

    def __repr__(self) -> str:
        return f"Instant({self.as_datetime()!r}, sub_micros={self.sub_micros})"


def _rebuild(value: datetime, sub_micros: int) -> Instant:
    return Instant.of(value, sub_micros)


def _base(value: datetime) -> datetime:
    return value.as_datetime() if isinstance(value, Instant) else value


def nanos_of(value: datetime) -> int:
    """The sub-microsecond nanoseconds ``value`` carries (0 for a plain ``datetime``)."""
    return value.sub_micros if isinstance(value, Instant) else 0


def with_nanos(value: datetime, sub_micros: int) -> datetime:
    """``value`` carrying ``sub_micros``: an :class:`Instant` when it is not 0, else a plain ``datetime``."""
    if sub_micros == 0:
        return value.as_datetime() if isinstance(value, Instant) else value
    return Instant.of(value, sub_micros)
