"""The console in a real browser: Debian's chromium, driven headless by Selenium through chromedriver,
against the console served by uvicorn over the MongoDB stand-in with real data.

Screenshots of the main pages go to ``$AIMON_CONSOLE_SCREENSHOTS`` when set (``docs/img`` holds the
committed ones: ``AIMON_CONSOLE_SCREENSHOTS=docs/img pytest tests/console/test_browser.py``), else to
the test's temporary directory.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pymongo import MongoClient
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.ui import WebDriverWait

from aimon_mongo.demo import transcript as demo
from aimon_mongo.model import SessionSignal, SignalKind
from aimon_mongo.mongo import MongoSessionBackends
from tests.console.conftest import Seeded

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"


@pytest.fixture(scope="module")
def browser() -> Iterator[WebDriver]:
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--window-size=1280,860",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


@pytest.fixture
def shots(tmp_path: Path) -> Path:
    target = Path(os.environ.get("AIMON_CONSOLE_SCREENSHOTS") or tmp_path)
    target.mkdir(parents=True, exist_ok=True)
    return target


def wait_for(driver: WebDriver, css: str, timeout: float = 10) -> WebElement:
    found: WebElement = WebDriverWait(driver, timeout).until(ec.presence_of_element_located((By.CSS_SELECTOR, css)))
    return found


def snap(driver: WebDriver, directory: Path, name: str) -> None:
    path = directory / f"console-{name}.png"
    assert driver.save_screenshot(str(path))
    assert path.stat().st_size > 5000  # a rendered page, not an empty one


def text(driver: WebDriver, css: str) -> str:
    return wait_for(driver, css).text


def test_session_quarantine_replay_snapshot_file_preview(
    browser: WebDriver, served: str, seeded: Seeded, shots: Path
) -> None:
    driver = browser
    driver.get(f"{served}/sessions")
    row = wait_for(driver, "#sessions tbody tr").text
    assert row.startswith(f"{demo.SESSION_ID} 1 1 1 3 1 ")  # NOW NEXT LATER total quarantined
    assert "held node-b" in row and f"token {seeded.lease_token}" in row
    assert "c-2 0 0 1 1 0" in text(driver, "#sessions")
    snap(driver, shots, "sessions")

    driver.find_element(By.LINK_TEXT, demo.SESSION_ID).click()
    assert text(driver, "#session-id") == demo.SESSION_ID
    assert text(driver, "#depth") == "NOW 1 · NEXT 1 · LATER 1 · total 3"
    assert "node-b · token" in text(driver, "#lease") and "expires" in text(driver, "#lease")
    waiting = [r.text for r in driver.find_elements(By.CSS_SELECTOR, "#waiting tbody tr")]
    assert [r.split()[1] for r in waiting] == ["NOW", "NEXT", "LATER"]
    assert text(driver, "#claimed-count") == "0 entries" and "no claimed entries" in text(driver, "#claimed")
    snap(driver, shots, "session")

    driver.find_element(By.ID, "quarantine-link").click()
    entry_row = text(driver, "#quarantine tbody tr")
    assert seeded.quarantine_id in entry_row and "deliveredAt" in entry_row
    driver.find_element(By.LINK_TEXT, seeded.quarantine_id).click()
    raw: dict[str, Any] = json.loads(text(driver, "#raw"))
    assert raw["payload"]["deliveredAt"] == "yesterday"
    snap(driver, shots, "quarantine-entry")

    driver.find_element(By.ID, "replay").click()
    raw["payload"]["deliveredAt"] = {"$date": "2026-01-02T03:04:05Z"}
    wait_for(driver, "textarea[name=corrected]").send_keys(json.dumps(raw))
    snap(driver, shots, "replay-confirm")
    driver.find_element(By.ID, "confirm").click()
    done = text(driver, "#done-message")
    assert done.startswith(f"replayed {seeded.quarantine_id} as inbox entry ")
    driver.get(f"{served}/session?id={demo.SESSION_ID}")
    assert text(driver, "#depth") == "NOW 1 · NEXT 2 · LATER 1 · total 4"
    assert "0 entries" in text(driver, "#quarantine-link")

    driver.find_element(By.LINK_TEXT, "Snapshots").click()
    wait_for(driver, "#snapshots")
    driver.find_element(By.LINK_TEXT, demo.TASK_ID).click()
    transcript = text(driver, "#transcript")
    assert demo.CHART_REQUEST in transcript and demo.TEXT_REQUEST in transcript
    assert "tool call write_file" in transcript and "tool result" in transcript
    assert "rewind point" in text(driver, "#rewind-point")
    image = wait_for(driver, "img.inline-image")
    assert driver.execute_script("return arguments[0].complete && arguments[0].naturalWidth", image) == 1
    snap(driver, shots, "transcript")

    driver.find_element(By.CSS_SELECTOR, "a.artifact-link").click()
    assert text(driver, "#file-name") == "report.md"
    preview = wait_for(driver, "#preview-text .hl")
    assert "Weekly signups" in preview.text and "Signups grew for the third week" in preview.text
    assert driver.find_elements(By.CSS_SELECTOR, "#preview-text .hl span")  # highlighted, not plain text
    snap(driver, shots, "file")

    driver.find_element(By.LINK_TEXT, "c-1").click()
    listing = text(driver, "#files")
    assert "inputs/" in listing and "notes.md" in listing and "<img src=x onerror=alert(1)>.md" in listing
    assert "below here" in text(driver, "#usage")
    snap(driver, shots, "files")
    driver.find_element(By.LINK_TEXT, "fsck report").click()
    assert text(driver, "#fsck-verdict").startswith("clean: nothing wrong was found")
    driver.back()
    driver.find_element(By.LINK_TEXT, "inputs/").click()
    driver.find_element(By.LINK_TEXT, "chart.png").click()
    picture = wait_for(driver, "#preview-image")
    assert driver.execute_script("return arguments[0].complete && arguments[0].naturalWidth", picture) == 1

    driver.find_element(By.LINK_TEXT, "Tasks").click()
    tasks = text(driver, "#tasks")
    assert "COMPLETED" in tasks and "RUNNING" in tasks and "USER:alice" in tasks
    snap(driver, shots, "tasks")
    driver.get(f"{served}/tasks?state=RUNNING")
    assert "COMPLETED" not in text(driver, "#tasks")
    assert [e for e in driver.get_log("browser") if e["level"] == "SEVERE"] == []  # no script error, no CSP violation


def test_session_page_shows_claimed_entries_and_their_attempts(
    browser: WebDriver, served: str, seeded: Seeded, mongo_client: MongoClient[Any], shots: Path
) -> None:
    node = MongoSessionBackends(mongo_client[seeded.db_name], "node-b")
    try:
        first = node.inbox.claim(demo.SESSION_ID, seeded.lease_token)
        again = node.inbox.claim(demo.SESSION_ID, seeded.lease_token)  # handed out again: attempt 2
    finally:
        node.close()
    assert len(first.messages) == 3 and set(again.attempts.values()) == {2}
    driver = browser
    driver.get(f"{served}/sessions")
    assert wait_for(driver, "#sessions tbody tr").text.startswith(f"{demo.SESSION_ID} 1 1 1 3 1 3 ")
    driver.find_element(By.LINK_TEXT, "3").click()
    assert text(driver, "#claimed-count") == "3 entries"
    rows = [r.text.split() for r in driver.find_elements(By.CSS_SELECTOR, "#claimed tbody tr")]
    assert sorted(r[0] for r in rows) == sorted(m.id or "" for m in first.messages)
    assert {(r[1], r[2], r[3]) for r in rows} == {("node-b", str(seeded.lease_token), "2")}
    assert len(driver.find_elements(By.CSS_SELECTOR, "#claimed tbody tr.bad")) == 3  # attempts above 1 stand out
    snap(driver, shots, "session-claimed")


def test_signal_tail_shows_signals_as_they_are_published(
    browser: WebDriver, served: str, seeded: Seeded, mongo_client: MongoClient[dict[str, Any]], shots: Path
) -> None:
    driver = browser
    driver.get(f"{served}/signals?session={demo.SESSION_ID}")
    WebDriverWait(driver, 10).until(lambda d: d.find_element(By.ID, "tail-state").text == "connected")
    publisher = MongoSessionBackends(mongo_client[seeded.db_name], "node-b")
    try:
        publisher.signals.publish(
            SessionSignal(
                session_id=demo.SESSION_ID,
                kind=SignalKind.TURN_RESULT,
                origin_node_id="node-b",
                payload={"taskId": demo.TASK_ID, "note": "<b>not bold</b>"},
            )
        )
        publisher.signals.publish(SessionSignal(session_id="c-2", kind=SignalKind.INTERRUPT, origin_node_id="node-b"))
        item = wait_for(driver, "#signals li.signal", timeout=15)
    finally:
        publisher.close()
    assert "TURN_RESULT from node-b" in item.text and "<b>not bold</b>" in item.text
    assert not driver.find_elements(By.CSS_SELECTOR, "#signals b")
    snap(driver, shots, "signals")
    assert len(driver.find_elements(By.CSS_SELECTOR, "#signals li")) == 1  # c-2's signal is not this tail's
