"""A stopping console ends the responses that never finish on their own (the signal tail)."""

from __future__ import annotations

import http.client

from aimon_mongo.console import SHUTDOWN_GRACE, ConsoleData, ConsoleSettings
from aimon_mongo.demo import transcript as demo
from tests.console.conftest import free_port, running


def test_a_stopping_console_ends_an_open_signal_tail(console_data: ConsoleData) -> None:
    settings = ConsoleSettings(bind_port=free_port())
    with running(console_data, settings) as console:
        tail = http.client.HTTPConnection("127.0.0.1", settings.bind_port, timeout=30)
        try:
            tail.request("GET", f"/signals/stream?session={demo.SESSION_ID}")
            response = tail.getresponse()
            assert (response.status, response.getheader("Content-Type")) == (200, "text/event-stream; charset=utf-8")
            assert response.readline() == b": connected\n"
            assert console.stop(within=SHUTDOWN_GRACE + 10), "the console is still waiting for the open signal tail"
        finally:
            tail.close()
