"""One configurable set of stored names per backend (MongoDB collection names, Redis key prefixes).

A :class:`NameSet` is a frozen dataclass with one ``str`` field per role whose default is the frozen
literal every build shares. The base checks every value once at construction (through the subclass's
:meth:`NameSet.check`) and builds a set from a partial mapping of role → name (:meth:`NameSet.of`), so
each backend declares only its roles and what makes one of its names unusable.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import ClassVar, Self

from aimon_mongo.errors import InvalidArgumentError


@dataclass(frozen=True)
class NameSet:
    """Base of the backends' name sets (see the module text)."""

    what: ClassVar[str] = "name"
    """How an error names one value (``"collection name"``, ``"key prefix"``)."""
    argument: ClassVar[str] = "names"
    """The bundle argument that takes the set (``collection_names``, ``key_prefixes``)."""

    def __post_init__(self) -> None:
        for spec in fields(self):
            value = getattr(self, spec.name)
            if not isinstance(value, str) or not value or "\x00" in value:
                raise InvalidArgumentError(f"{self.what} for {spec.name!r} is not usable: {value!r}")
            self.check(spec.name, value)

    def check(self, role: str, value: str) -> None:
        """Raise :class:`InvalidArgumentError` naming ``role`` and ``value`` when the backend cannot use it
        (``value`` is already a non-empty ``str`` without NUL)."""

    @classmethod
    def roles(cls) -> list[str]:
        """The role names, in declaration order."""
        return [spec.name for spec in fields(cls)]

    @classmethod
    def of(cls, overrides: Self | Mapping[str, str] | None) -> Self:
        """The defaults, or ``overrides``: a whole set of this class, or a partial mapping role → name."""
        if overrides is None:
            return cls()
        if isinstance(overrides, cls):
            return overrides
        if not isinstance(overrides, Mapping):
            raise InvalidArgumentError(
                f"{cls.argument} must be a {cls.__name__} or a mapping, got {type(overrides).__name__}"
            )
        unknown = sorted(set(overrides) - set(cls.roles()))
        if unknown:
            raise InvalidArgumentError(f"unknown roles {unknown} in {cls.argument}; known: {sorted(cls.roles())}")
        return replace(cls(), **dict(overrides))
