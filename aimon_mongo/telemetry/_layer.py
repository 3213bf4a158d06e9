"""The instrumentation layer: one proxy class that wraps a store's (or a filesystem's) public operations in
a span and records their latency and outcome, sync and async alike, with what each capability adds (its
attributes and counters) looked up in :mod:`aimon_mongo.telemetry.capabilities`.

Only what ``Rule`` functions extract goes on a span (ids, priorities, sizes, counts, outcomes), never a
message payload, a signal payload or file content; an error is recorded by its class name only.
"""

from __future__ import annotations

import functools
import inspect
import time
from collections.abc import Callable, Mapping
from typing import Any

from aimon_mongo.telemetry._otel import Instruments

Attributes = dict[str, str | int | bool]
Rule = Callable[["Call"], None]
"""What a capability does with one finished call: set attributes, add to its counters."""


class Call:
    """One call of an instrumented operation: its arguments, then its result or error, and the attributes
    its span and latency point get (``outcome`` defaults to ``ok`` / ``error``)."""

    __slots__ = ("args", "attributes", "error", "instruments", "kwargs", "result")

    def __init__(self, instruments: Instruments, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> None:
        self.instruments = instruments
        self.args = args
        self.kwargs = kwargs
        self.result: Any = None
        self.error: BaseException | None = None
        self.attributes: Attributes = {}

    def arg(self, index: int, name: str) -> Any:
        """The argument at position ``index`` or given as ``name`` (``None`` when absent)."""
        if len(self.args) > index:
            return self.args[index]
        return self.kwargs.get(name)

    def set(self, key: str, value: Any) -> None:
        """Set a span attribute when the value is a str, int or bool (anything else is left out)."""
        if isinstance(value, str | int | bool):
            self.attributes[key] = value

    @property
    def outcome(self) -> str:
        return str(self.attributes.get(OUTCOME, "ok" if self.error is None else "error"))


OUTCOME = "aimon.outcome"
CAPABILITY = "aimon.capability"
OPERATION = "aimon.operation"


class Instrumented:
    """A store or filesystem whose operations named in ``rules`` run inside a span and are measured;
    every other attribute is the wrapped object's own."""

    def __init__(self, target: Any, capability: str, rules: Mapping[str, Rule], instruments: Instruments) -> None:
        self.__dict__["_target"] = target
        self.__dict__["_capability"] = capability
        self.__dict__["_rules"] = rules
        self.__dict__["_instruments"] = instruments
        self.__dict__["_wrapped"] = {}

    @property
    def wrapped(self) -> Any:
        """The object underneath."""
        return self.__dict__["_target"]

    def __getattr__(self, name: str) -> Any:
        cache: dict[str, Any] = self.__dict__["_wrapped"]
        if name in cache:
            return cache[name]
        value = getattr(self.__dict__["_target"], name)
        rule = self.__dict__["_rules"].get(name)
        if (
            rule is None
            or not callable(value)
            or inspect.isgeneratorfunction(value)
            or inspect.isasyncgenfunction(value)
        ):
            return value
        wrapped = _wrap(value, self.__dict__["_capability"], name, rule, self.__dict__["_instruments"])
        cache[name] = wrapped
        return wrapped

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self.__dict__["_target"], name, value)

    def __enter__(self) -> Instrumented:
        self.__dict__["_target"].__enter__()
        return self

    def __exit__(self, *exc: Any) -> Any:
        return self.__dict__["_target"].__exit__(*exc)

    async def __aenter__(self) -> Instrumented:
        await self.__dict__["_target"].__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> Any:
        return await self.__dict__["_target"].__aexit__(*exc)

    def __repr__(self) -> str:
        return f"Instrumented({self.__dict__['_target']!r})"


def _wrap(method: Callable[..., Any], capability: str, operation: str, rule: Rule, instruments: Instruments) -> Any:
    span_name = f"aimon.{capability}.{operation}"
    base: Attributes = {CAPABILITY: capability, OPERATION: operation}
    tracer = instruments.tracer
    duration = instruments.duration
    attach, detach, in_context = instruments.attach, instruments.detach, instruments.in_context

    def begin(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Call, float, Any, Any]:
        call = Call(instruments, args, kwargs)
        started = time.perf_counter()
        span = tracer.start_span(span_name)
        # the span becomes the current one only when it records (no SDK: no context switch to pay for)
        token = attach(in_context(span)) if span.is_recording() else None
        return call, started, span, token

    def finish(span: Any, call: Call, started: float, token: Any) -> None:
        try:
            try:
                rule(call)
            except Exception:  # a rule must never break the operation it observes
                call.attributes.pop(OUTCOME, None)
            outcome = call.outcome
            if call.error is not None:
                call.attributes["error.type"] = type(call.error).__name__
            if token is not None:
                span.set_attributes({**base, **call.attributes, OUTCOME: outcome})
                if call.error is not None and outcome == "error":
                    span.set_status(instruments.error_status)
            duration.record(time.perf_counter() - started, {**base, OUTCOME: outcome})
        finally:
            span.end()
            if token is not None:
                detach(token)

    if inspect.iscoroutinefunction(method):

        @functools.wraps(method)
        async def run_async(*args: Any, **kwargs: Any) -> Any:
            call, started, span, token = begin(args, kwargs)
            try:
                call.result = await method(*args, **kwargs)
                return call.result
            except BaseException as exc:
                call.error = exc
                raise
            finally:
                finish(span, call, started, token)

        return run_async

    @functools.wraps(method)
    def run(*args: Any, **kwargs: Any) -> Any:
        call, started, span, token = begin(args, kwargs)
        try:
            call.result = method(*args, **kwargs)
            return call.result
        except BaseException as exc:
            call.error = exc
            raise
        finally:
            finish(span, call, started, token)

    return run
