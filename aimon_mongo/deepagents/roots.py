"""Where a deepagents thread's files live in the VFS, and how agent paths map onto it (pure).

deepagents paths are absolute (``/notes/a.md``). The backend keeps each thread's files under a *root*
directory of the VFS, resolved at call time from the LangGraph run's config: by default
``deepagents/<thread_id>``, so ``/notes/a.md`` of thread ``t-1`` is the VFS path
``deepagents/t-1/notes/a.md``. A root is a template (``{thread_id}`` and any other ``configurable``
key, e.g. ``"users/{user_id}/{thread_id}"``), a fixed path (``""``: the whole filesystem), or a callable
that receives the run's config (``None`` outside a run) and returns the root.
"""

from __future__ import annotations

import functools
import string
from collections.abc import Callable, Mapping
from typing import Any

from aimon_mongo.errors import InvalidArgumentError
from aimon_mongo.vfs.paths import ROOT, SEPARATOR, is_root, validate_dir_path

DEFAULT_ROOT = "deepagents/{thread_id}"
"""The default root template: one directory per LangGraph thread."""

RootFactory = Callable[[Mapping[str, Any] | None], str]
Root = str | RootFactory


@functools.lru_cache(maxsize=64)
def _fields(template: str) -> tuple[str, ...]:
    return tuple(field for _, field, _, _ in string.Formatter().parse(template) if field is not None)


def _segment(name: str, value: object) -> str:
    text = str(value)
    if not text or SEPARATOR in text or text in (".", "..") or any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in text):
        raise InvalidArgumentError(f"configurable {name!r} = {text!r} cannot name a directory of the root")
    return text


def resolve_root(root: Root, config: Mapping[str, Any] | None) -> str:
    """The VFS directory (``""`` for the filesystem root) a call works in, from the run's ``config``."""
    if callable(root):
        resolved = root(config)
    else:
        fields = _fields(root)
        if not fields:
            resolved = root
        else:
            configurable = (config or {}).get("configurable") or {}
            missing = [field for field in fields if configurable.get(field) in (None, "")]
            if missing:
                where = "outside a LangGraph run" if config is None else "in this run's config"
                raise RuntimeError(
                    f"the AimonBackend root {root!r} needs configurable {', '.join(missing)} ({where}): invoke the "
                    "agent with config={'configurable': {'thread_id': ...}}, or give the backend a fixed root"
                )
            resolved = root.format(**{field: _segment(field, configurable[field]) for field in fields})
    if not isinstance(resolved, str):
        raise InvalidArgumentError(f"the AimonBackend root must be a str, got {type(resolved).__name__}")
    return _checked_root(resolved)


@functools.lru_cache(maxsize=1024)
def _checked_root(resolved: str) -> str:
    """A resolved root, validated once per distinct value (a thread's calls all resolve to the same)."""
    checked = validate_dir_path(resolved) if resolved else ""
    return "" if is_root(checked) else checked.rstrip(SEPARATOR)


def to_vfs(root: str, path: str) -> str:
    """The VFS path of an agent path (``/a/b`` under root ``r`` is ``r/a/b``; ``/`` is the root itself)."""
    if not isinstance(path, str):
        raise InvalidArgumentError(f"path must be a str, got {type(path).__name__}")
    relative = path.lstrip(SEPARATOR).rstrip(SEPARATOR) if path != SEPARATOR else ""
    if not relative:
        return root or ROOT
    return f"{root}{SEPARATOR}{relative}" if root else relative


def to_agent(root: str, vfs_path: str) -> str:
    """The agent path of a VFS path under ``root`` (always absolute)."""
    if not root:
        return SEPARATOR + vfs_path
    return SEPARATOR + vfs_path[len(root) + 1 :] if vfs_path != root else SEPARATOR
