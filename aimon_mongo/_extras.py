"""What an optional feature needs installed; one line naming the extra when it is missing.

A package that needs an extra calls :func:`require_extra` first, so that importing it without the extra
raises :class:`~aimon_mongo.errors.MissingExtraError` (a ``ModuleNotFoundError``) whose message is the one
line ``<feature> needs the '<module>' package, which is not installed: pip install 'aimon-mongo[<extra>]'``
instead of an error from deep inside an import chain. It only looks modules up (no import runs), so a
package that loads its names lazily stays cheap to import.
"""

from __future__ import annotations

import importlib.util

from aimon_mongo.errors import MissingExtraError


def require_extra(feature: str, extra: str, *modules: str) -> None:
    """Raise :class:`MissingExtraError` naming ``extra`` unless every module of ``modules`` can be imported.

    ``feature`` names what needs them in the message (``"aimon_mongo.redis"``, ``"the aimon-mongo command"``).
    """
    for module in modules:
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):  # a parent package failed to import, or is not a package
            found = False
        if not found:
            raise MissingExtraError(feature, extra, module)
