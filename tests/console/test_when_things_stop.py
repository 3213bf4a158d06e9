"""The console when things stop: a stopping console ends the responses that never finish on their own (the
signal tail); a store that does not answer is a 503, not an internal error."""

from __future__ import annotations

import http.client

import pytest
from starlette.testclient import TestClient

from aimon_mongo.console import SHUTDOWN_GRACE, ConsoleData, ConsoleSettings, create_app
from aimon_mongo.demo import transcript as demo
from aimon_mongo.standin import free_port
from tests.console.conftest import running


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


def test_a_store_that_does_not_answer_is_503_not_an_internal_error(caplog: pytest.LogCaptureFixture) -> None:
    data = ConsoleData(uri=f"mongodb://127.0.0.1:{free_port()}/", timeout_ms=200)
    try:
        client = TestClient(create_app(data, ConsoleSettings()), base_url="http://127.0.0.1:8008")
        page = client.get("/sessions")
        assert page.status_code == 503 and "the store did not answer; try again" in page.text
        answer = client.get("/api/sessions")
        assert (answer.status_code, answer.json()) == (503, {"detail": "the store did not answer; try again"})
    finally:
        data.close()
    said = [r.getMessage() for r in caplog.records if r.name == "aimon_mongo.console.app"]
    assert said == [
        "console request /sessions: the store did not answer (ServerSelectionTimeoutError)",
        "console request /api/sessions: the store did not answer (ServerSelectionTimeoutError)",
    ]
