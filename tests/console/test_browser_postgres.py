"""The console in a real browser (headless Chromium, as ``test_browser.py``) on PostgreSQL: the session list,
a session, its quarantined entry replayed with a corrected envelope, the tasks and the live signal tail,
served by uvicorn over a seeded schema (``aimon-mongo console --uri postgresql://…``)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import WebDriverWait

from aimon_mongo.codec.inbound import to_json_envelope
from aimon_mongo.console import ConsoleData, ConsoleSettings
from aimon_mongo.model import Priority, SessionSignal, SignalKind
from aimon_mongo.standin import free_port
from tests.backend_seed import OTHER, SESSION, Deployment, message, other_deployment  # noqa: F401 (fixture)
from tests.console.conftest import running
from tests.console.test_browser import browser, shots, snap, text, wait_for  # noqa: F401 (fixtures)

pytestmark = pytest.mark.parametrize("other_deployment", ["postgres"], indirect=True)


@pytest.fixture
def served_postgres(other_deployment: Deployment) -> Iterator[str]:  # noqa: F811
    data = ConsoleData(uri=other_deployment.uri, **other_deployment.console_options)
    settings = ConsoleSettings(bind_port=free_port(), allow_writes=True)
    with running(data, settings) as console:
        yield f"http://127.0.0.1:{settings.bind_port}"
        assert console.stop(), "the console did not stop within 10 s"


def test_sessions_quarantine_replay_tasks_signals_on_postgres(
    browser: WebDriver,  # noqa: F811
    served_postgres: str,
    other_deployment: Deployment,  # noqa: F811
    shots: Path,  # noqa: F811
) -> None:
    driver = browser
    driver.get(f"{served_postgres}/sessions")
    row = wait_for(driver, "#sessions tbody tr").text
    assert row.startswith(f"{SESSION} 1 1 1 3 1 ")  # NOW NEXT LATER total quarantined
    assert "held node-b" in row and f"token {other_deployment.lease_token}" in row
    assert f"{OTHER} 0 0 1 1 0" in text(driver, "#sessions")
    assert "PostgreSQL" in text(driver, "header")
    assert not driver.find_elements(By.LINK_TEXT, "Files")  # GridFS is MongoDB's
    snap(driver, shots, "postgres-sessions")

    driver.find_element(By.LINK_TEXT, SESSION).click()
    assert text(driver, "#session-id") == SESSION
    assert text(driver, "#depth") == "NOW 1 · NEXT 1 · LATER 1 · total 3"
    assert "node-b · token" in text(driver, "#lease")
    waiting = [r.text for r in driver.find_elements(By.CSS_SELECTOR, "#waiting tbody tr")]
    assert [r.split()[1] for r in waiting] == ["NOW", "NEXT", "LATER"]

    driver.find_element(By.ID, "quarantine-link").click()
    assert other_deployment.quarantine_id in text(driver, "#quarantine tbody tr")
    driver.find_element(By.LINK_TEXT, other_deployment.quarantine_id).click()
    assert json.loads(text(driver, "#raw")) == {"not": "an envelope"}
    driver.find_element(By.ID, "replay").click()
    wait_for(driver, "textarea[name=corrected]").send_keys(to_json_envelope(message(SESSION, "fixed", Priority.NEXT)))
    driver.find_element(By.ID, "confirm").click()
    assert text(driver, "#done-message").startswith(f"replayed {other_deployment.quarantine_id} as inbox entry ")
    driver.get(f"{served_postgres}/session?id={SESSION}")
    assert text(driver, "#depth") == "NOW 1 · NEXT 2 · LATER 1 · total 4"
    assert "0 entries" in text(driver, "#quarantine-link")

    driver.find_element(By.LINK_TEXT, "Tasks").click()
    tasks = text(driver, "#tasks")
    assert "COMPLETED" in tasks and "RUNNING" in tasks and "USER:alice" in tasks
    snap(driver, shots, "postgres-tasks")

    driver.get(f"{served_postgres}/signals?session={SESSION}")
    WebDriverWait(driver, 10).until(lambda d: d.find_element(By.ID, "tail-state").text == "connected")
    publisher = other_deployment.open("node-b")
    try:
        publisher.signals.publish(
            SessionSignal(session_id=SESSION, kind=SignalKind.TURN_RESULT, origin_node_id="node-b", payload={"n": 1})
        )
        item = wait_for(driver, "#signals li.signal", timeout=15)
    finally:
        publisher.close()
    assert "TURN_RESULT from node-b" in item.text
    assert [e for e in driver.get_log("browser") if e["level"] == "SEVERE"] == []  # no script error, no CSP violation
