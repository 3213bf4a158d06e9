"""The OpenTelemetry API objects the instrumentation records with: one tracer, one meter and its instruments,
made once per process — and the two cheap checks that decide whether anything is recorded at all.

* :func:`installed` (once per process, at decoration time): whether ``opentelemetry-api`` can be imported,
  found without importing it. When it cannot, the operations are left undecorated: no cost per call.
* :func:`live` (every call): the instruments once an application has configured a tracer or meter provider,
  ``None`` before. It reads the API's global provider slots from modules the application has already
  imported (no import, no environment read per call); once a provider is set it stays set (the API refuses
  to replace one), so the answer is cached from then on.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from dataclasses import dataclass
from typing import Any

INSTRUMENTATION_NAME = "aimon_mongo"

_TRACE_MODULE, _TRACER_SLOT = "opentelemetry.trace", "_TRACER_PROVIDER"
_METRICS_MODULE, _METER_SLOT = "opentelemetry.metrics._internal", "_METER_PROVIDER"
"""Where the API keeps the provider an application set (``None`` until then)."""
_PROVIDER_VARIABLES = ("OTEL_PYTHON_TRACER_PROVIDER", "OTEL_PYTHON_METER_PROVIDER")
"""Environment variables that configure a provider, loaded by the API on the first ``get_*_provider``."""
_UNKNOWN = object()


@dataclass(frozen=True)
class Instruments:
    """The tracer and the metric instruments (names in ``docs/telemetry.md``)."""

    tracer: Any
    error_status: Any
    in_context: Any
    """``trace.set_span_in_context``."""
    attach: Any
    detach: Any
    duration: Any
    delivered: Any
    collected: Any
    quarantined: Any
    replayed: Any
    collect_batch_size: Any
    lease_acquisitions: Any
    lease_handovers: Any
    stale_token_refusals: Any
    vfs_bytes_written: Any
    vfs_bytes_read: Any
    host_turns: Any
    host_adoption_time: Any


_found: list[bool] = []
_made: list[Instruments | None] = []
_live: list[Instruments] = []
_modules = sys.modules


def installed() -> bool:
    """Whether ``opentelemetry-api`` is importable (looked up once per process, never imported here unless
    an environment variable configures a provider, which the API then loads)."""
    if not _found:
        try:  # the namespace package's locations, without importing it
            spec = importlib.util.find_spec("opentelemetry")
        except (ImportError, ValueError):
            spec = None
        places = () if spec is None else (spec.submodule_search_locations or ())
        found = any(os.path.isfile(os.path.join(place, "trace", "__init__.py")) for place in places)
        if places and not found:  # not a plain directory (a zip, a custom loader): ask the import system
            try:
                found = importlib.util.find_spec("opentelemetry.trace") is not None
            except (ImportError, ValueError):
                found = False
        _found.append(found)
        if _found[0] and any(name in os.environ for name in _PROVIDER_VARIABLES) and instruments() is not None:
            from opentelemetry import metrics, trace

            trace.get_tracer_provider()  # the API loads an environment-configured provider here
            metrics.get_meter_provider()
    return _found[0]


def live() -> Instruments | None:
    """The instruments when an application configured a tracer or a meter provider, else ``None``."""
    return _live[0] if _live else probe()


_trace_globals: dict[str, Any] | None = None
_metrics_globals: dict[str, Any] | None = None


def probe() -> Instruments | None:
    """:func:`live` before a provider was seen: reads the API's provider slots, when its modules are loaded."""
    global _trace_globals, _metrics_globals
    if _trace_globals is None and (module := _modules.get(_TRACE_MODULE)) is not None:
        _trace_globals = module.__dict__
    if _metrics_globals is None and (module := _modules.get(_METRICS_MODULE)) is not None:
        _metrics_globals = module.__dict__
    if (_trace_globals is None or _trace_globals.get(_TRACER_SLOT, _UNKNOWN) is None) and (
        _metrics_globals is None or _metrics_globals.get(_METER_SLOT, _UNKNOWN) is None
    ):
        return None
    made = instruments()
    if made is not None:
        _live.append(made)
    return made


def instruments() -> Instruments | None:
    """The process's instruments, or ``None`` without ``opentelemetry-api``. Tracer and meter come from the
    global providers through the API's proxies, so an SDK configured later still receives everything."""
    if _made:
        return _made[0]
    try:
        from opentelemetry import context, metrics, trace
        from opentelemetry.trace import Status, StatusCode
    except ImportError:
        _made.append(None)
        return None
    # the package is imported before any of its modules (no import here: the package's lazy names reach
    # every backend, and telemetry sits below them)
    version = str(getattr(sys.modules.get("aimon_mongo"), "__version__", "0"))

    meter = metrics.get_meter(INSTRUMENTATION_NAME, version)
    made = Instruments(
        tracer=trace.get_tracer(INSTRUMENTATION_NAME, version),
        error_status=Status(StatusCode.ERROR),
        in_context=trace.set_span_in_context,
        attach=context.attach,
        detach=context.detach,
        duration=meter.create_histogram(
            "aimon.operation.duration", unit="s", description="Latency of each store and filesystem operation."
        ),
        delivered=meter.create_counter("aimon.inbox.delivered", unit="{message}", description="Messages delivered."),
        collected=meter.create_counter("aimon.inbox.collected", unit="{message}", description="Messages collected."),
        quarantined=meter.create_counter(
            "aimon.inbox.quarantined", unit="{entry}", description="Unreadable entries reported and quarantined."
        ),
        replayed=meter.create_counter(
            "aimon.inbox.replayed", unit="{entry}", description="Quarantined entries replayed."
        ),
        collect_batch_size=meter.create_histogram(
            "aimon.inbox.collect.batch_size", unit="{entry}", description="Entries one collect returned."
        ),
        lease_acquisitions=meter.create_counter(
            "aimon.lease.acquisitions", unit="{attempt}", description="try_acquire calls, by outcome."
        ),
        lease_handovers=meter.create_counter(
            "aimon.lease.handovers", unit="{lease}", description="Leases taken over from an earlier lease (token > 1)."
        ),
        stale_token_refusals=meter.create_counter(
            "aimon.fencing.stale_refusals", unit="{write}", description="Writes and extends refused for a stale token."
        ),
        vfs_bytes_written=meter.create_counter("aimon.vfs.bytes_written", unit="By", description="Bytes written."),
        vfs_bytes_read=meter.create_counter("aimon.vfs.bytes_read", unit="By", description="Bytes read."),
        host_turns=meter.create_counter(
            "aimon.host.turns", unit="{turn}", description="Turns a session host ran, by outcome."
        ),
        host_adoption_time=meter.create_histogram(
            "aimon.host.adoption_time",
            unit="s",
            description="From a host noticing a session without a holder to the first turn it ran under its lease.",
        ),
    )
    _made.append(made)
    return made
