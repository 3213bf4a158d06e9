"""A stopping console ends the responses that never finish on their own (the signal tail)."""

from __future__ import annotations

import http.client
import threading
import time

from aimon_mongo.console import SHUTDOWN_GRACE, ConsoleData, ConsoleSettings
from aimon_mongo.console import server as console_server
from aimon_mongo.demo import transcript as demo
from tests.console.conftest import free_port


def test_a_stopping_console_ends_an_open_signal_tail(console_data: ConsoleData) -> None:
    settings = ConsoleSettings(bind_port=free_port())
    server = console_server(console_data, settings)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline, "the console did not start"
        time.sleep(0.05)
    tail = http.client.HTTPConnection("127.0.0.1", settings.bind_port, timeout=30)
    try:
        tail.request("GET", f"/signals/stream?session={demo.SESSION_ID}")
        response = tail.getresponse()
        assert (response.status, response.getheader("Content-Type")) == (200, "text/event-stream; charset=utf-8")
        assert response.readline() == b": connected\n"
        server.should_exit = True  # what Ctrl-C does
        thread.join(SHUTDOWN_GRACE + 10)
        assert not thread.is_alive(), "the console is still waiting for the open signal tail"
    finally:
        tail.close()
