"""The OpenTelemetry API objects the layer records with: one tracer, one meter and its instruments, made
once per process. ``instruments()`` answers ``None`` when ``opentelemetry-api`` is not installed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

INSTRUMENTATION_NAME = "aimon_mongo"


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


_made: list[Instruments | None] = []


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
    import aimon_mongo

    meter = metrics.get_meter(INSTRUMENTATION_NAME, aimon_mongo.__version__)
    made = Instruments(
        tracer=trace.get_tracer(INSTRUMENTATION_NAME, aimon_mongo.__version__),
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
    )
    _made.append(made)
    return made
