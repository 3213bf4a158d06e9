"""The instrumentation: what wraps an operation in a span and records its latency and outcome, sync and async
alike, with what each capability adds (its attributes and counters) looked up in
:mod:`aimon_mongo.telemetry.capabilities`.

Applied natively: :func:`traced` decorates a service class (and :func:`instrument_class` every virtual
filesystem class), once, at import; each operation the capability names is wrapped so that its rule reads
the call's arguments **by name** — bound once, at decoration, from the method's signature, so a rule naming
an argument the method does not have fails at import, never records ``None``. Without
``opentelemetry-api`` installed nothing is wrapped; installed but with no provider configured, a call pays
one cheap check (:func:`aimon_mongo.telemetry._otel.live`) and runs as is.

Only what a :class:`Rule` extracts goes on a span (ids, priorities, sizes, counts, outcomes), never a
message payload, a signal payload or file content; an error is recorded by its class name only. An
operation called by another operation of the same object (a filesystem's ``write`` opening its output)
records no span of its own: one call, one span.
"""

from __future__ import annotations

import contextvars
import functools
import inspect
import logging
import time
from collections.abc import Callable, Mapping
from typing import Any

from aimon_mongo.telemetry import _otel
from aimon_mongo.telemetry._otel import Instruments

Attributes = dict[str, str | int | bool]

OUTCOME = "aimon.outcome"
CAPABILITY = "aimon.capability"
OPERATION = "aimon.operation"
TRACED = "__aimon_traced__"
"""Set on a class whose operations are instrumented natively: the capability's name."""

log = logging.getLogger(__name__)

_RUNNING: contextvars.ContextVar[object | None] = contextvars.ContextVar("aimon_telemetry_running", default=None)
"""The object whose instrumented operation runs here (its nested calls of its own operations record nothing)."""


class Call:
    """One call of an instrumented operation: its arguments by name, then its result or error, and the
    attributes its span and latency point get (``outcome`` defaults to ``ok`` / ``error``)."""

    __slots__ = ("arguments", "attributes", "error", "instruments", "result")

    def __init__(self, instruments: Instruments, arguments: Mapping[str, Any]) -> None:
        self.instruments = instruments
        self.arguments = arguments
        self.result: Any = None
        self.error: BaseException | None = None
        self.attributes: Attributes = {}

    def arg(self, name: str) -> Any:
        """The argument ``name`` as the call passed it (by position or keyword), or its default."""
        return self.arguments.get(name)

    def set(self, key: str, value: Any) -> None:
        """Set a span attribute when the value is a str, int or bool (anything else is left out)."""
        if isinstance(value, str | int | bool):
            self.attributes[key] = value

    @property
    def outcome(self) -> str:
        return str(self.attributes.get(OUTCOME, "ok" if self.error is None else "error"))


class Rule:
    """What one operation records: the argument names it reads (checked against the operation's signature
    when it is instrumented) and the function that sets attributes and feeds counters from a finished call."""

    __slots__ = ("reads", "record")

    def __init__(self, reads: tuple[str, ...], record: Callable[[Call], None]) -> None:
        self.reads = reads
        self.record = record

    def __repr__(self) -> str:
        return f"Rule(reads={self.reads!r}, record={self.record.__name__})"


def reads(*names: str) -> Callable[[Callable[[Call], None]], Rule]:
    """Declare a rule reading the arguments ``names``: ``@reads("session_id") def _rule(call): ...``."""

    def declare(record: Callable[[Call], None]) -> Rule:
        return Rule(names, record)

    return declare


class _Binder:
    """Maps a call's positional and keyword arguments to parameter names (with defaults), as laid out by
    the signature read once at decoration."""

    __slots__ = ("defaults", "positional")

    def __init__(self, function: Callable[..., Any], rule: Rule, where: str) -> None:
        parameters = inspect.signature(function).parameters
        missing = [name for name in rule.reads if name not in parameters]
        if missing:
            raise TypeError(f"telemetry rule of {where} reads {', '.join(map(repr, missing))}, not a parameter "
                            f"of {where}{inspect.signature(function)}")  # fmt: skip
        kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
        self.positional = tuple(name for name, p in parameters.items() if p.kind in kinds)
        self.defaults = {name: p.default for name, p in parameters.items() if p.default is not inspect.Parameter.empty}

    def bind(self, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> dict[str, Any]:
        bound = dict(self.defaults)
        bound.update(zip(self.positional, args, strict=False))
        bound.update(kwargs)
        return bound


def operation(
    function: Callable[..., Any], capability: str, name: str, rule: Rule, *, owner: object | None = None
) -> Any:
    """``function`` wrapped in the span ``aimon.<capability>.<name>``; unchanged without ``opentelemetry-api``.

    ``function`` is a method as defined in its class (``self`` first) or, with ``owner``, a bound method of
    ``owner``. Async functions stay async.
    """
    if not _otel.installed():
        return function
    binder = _Binder(function, rule, f"{capability}.{name}")
    span_name = f"aimon.{capability}.{name}"
    base: Attributes = {CAPABILITY: capability, OPERATION: name}
    on = _otel._live  # the instruments, once a provider is configured
    probe = _otel.probe
    running = _RUNNING

    def begin(made: Instruments, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Call, float, Any, Any]:
        call = Call(made, binder.bind(args, kwargs))
        started = time.perf_counter()
        span = made.tracer.start_span(span_name)
        # the span becomes the current one only when it records (no SDK: no context switch to pay for)
        token = made.attach(made.in_context(span)) if span.is_recording() else None
        return call, started, span, token

    def finish(made: Instruments, span: Any, call: Call, started: float, token: Any) -> None:
        try:
            try:
                rule.record(call)
            except Exception:  # a rule must never break the operation it observes
                call.attributes.pop(OUTCOME, None)
            outcome = call.outcome
            if call.error is not None:
                call.attributes["error.type"] = type(call.error).__name__
            if token is not None:
                span.set_attributes({**base, **call.attributes, OUTCOME: outcome})
                if call.error is not None and outcome == "error":
                    span.set_status(made.error_status)
            made.duration.record(time.perf_counter() - started, {**base, OUTCOME: outcome})
        finally:
            span.end()
            if token is not None:
                made.detach(token)

    if inspect.iscoroutinefunction(function):

        @functools.wraps(function)
        async def run_async(*args: Any, **kwargs: Any) -> Any:
            made = on[0] if on else probe()
            if made is None:
                return await function(*args, **kwargs)
            this = args[0] if owner is None else owner
            if running.get() is this:
                return await function(*args, **kwargs)
            call, started, span, token = begin(made, args, kwargs)
            inside = running.set(this)
            try:
                call.result = await function(*args, **kwargs)
                return call.result
            except BaseException as exc:
                call.error = exc
                raise
            finally:
                running.reset(inside)
                finish(made, span, call, started, token)

        setattr(run_async, TRACED, span_name)
        return run_async

    @functools.wraps(function)
    def run(*args: Any, **kwargs: Any) -> Any:
        made = on[0] if on else probe()
        if made is None:
            return function(*args, **kwargs)
        this = args[0] if owner is None else owner
        if running.get() is this:
            return function(*args, **kwargs)
        call, started, span, token = begin(made, args, kwargs)
        inside = running.set(this)
        try:
            call.result = function(*args, **kwargs)
            return call.result
        except BaseException as exc:
            call.error = exc
            raise
        finally:
            running.reset(inside)
            finish(made, span, call, started, token)

    setattr(run, TRACED, span_name)
    return run


def instrument_class(cls: type, capability: str, rules: Mapping[str, Rule]) -> None:
    """Wrap every operation of ``rules`` that ``cls`` itself defines (inherited ones were wrapped where they
    are defined; generators pass through). Marks ``cls`` as traced for ``capability``."""
    for name, rule in rules.items():
        value = cls.__dict__.get(name)
        if (
            not inspect.isfunction(value)
            or hasattr(value, TRACED)
            or getattr(value, "__isabstractmethod__", False)
            or inspect.isgeneratorfunction(value)
            or inspect.isasyncgenfunction(value)
        ):
            continue
        setattr(cls, name, operation(value, capability, name, rule))
    setattr(cls, TRACED, capability)


def traced_as(target: object) -> str | None:
    """The capability ``target``'s class records natively, or ``None``."""
    found = getattr(type(target), TRACED, None)
    return found if isinstance(found, str) else None


class Instrumented:
    """A store whose class is not instrumented natively (a snapshot store, a third party's store): the
    operations named in ``rules`` run inside a span and are measured; every other attribute is the wrapped
    object's own."""

    def __init__(self, target: Any, capability: str, rules: Mapping[str, Rule]) -> None:
        self.__dict__["_target"] = target
        self.__dict__["_capability"] = capability
        self.__dict__["_rules"] = rules
        self.__dict__["_wrapped"] = {}

    @property
    def wrapped(self) -> Any:
        """The object underneath."""
        return self.__dict__["_target"]

    def __getattr__(self, name: str) -> Any:
        cache: dict[str, Any] = self.__dict__["_wrapped"]
        if name in cache:
            return cache[name]
        target = self.__dict__["_target"]
        value = getattr(target, name)
        rule = self.__dict__["_rules"].get(name)
        if (
            rule is None
            or not callable(value)
            or inspect.isgeneratorfunction(value)
            or inspect.isasyncgenfunction(value)
        ):
            return value
        try:
            wrapped = operation(value, self.__dict__["_capability"], name, rule, owner=target)
        except TypeError as exc:  # a third party's signature the rule cannot read: run it unrecorded
            log.warning("%s: not instrumented: %s", type(target).__name__, exc)
            wrapped = value
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
