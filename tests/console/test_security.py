"""The console's safety rules, against the stand-in with real data: the token on a non-loopback bind,
CSRF and confirmation on every write, writes absent unless allowed, stored strings inert, traversal
refused, no traceback ever shown."""

from __future__ import annotations

import re
from typing import Any

import pytest
from typer.testing import CliRunner

from aimon_mongo.cli import get_app
from aimon_mongo.console import ConsoleConfigError, ConsoleData, ConsoleSettings, create_app
from tests.console.conftest import XSS_TASK, AppClient, Seeded

TOKEN = "s3cret-token-for-tests"


def _csrf(page: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', page)
    assert found, "the confirmation form carries no CSRF token"
    return found.group(1)


def test_non_loopback_bind_requires_a_token_on_every_request(app_client: AppClient) -> None:
    client = app_client(bind_host="0.0.0.0", token=TOKEN)
    for url in ("/sessions", "/api/sessions", "/openapi.json", "/static/console.css", "/files/raw?path=x"):
        refused = client.get(url)
        assert refused.status_code == 401, url
        assert refused.headers["www-authenticate"] == "Bearer"
    for url in ("/api/sessions", "/api/server", "/api/no-such-route"):  # JSON, as every other API error
        refused = client.get(url)
        assert refused.headers["content-type"] == "application/json", url
        assert refused.json() == {"detail": "authentication required"}, url
    assert client.get("/sessions", headers={"Authorization": "Bearer wrong"}).status_code == 401
    assert client.get("/api/sessions", headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 200
    # a browser visits ?token= once: it gets the token as an HttpOnly cookie and a URL without it
    login = client.get(f"/sessions?token={TOKEN}&after=", follow_redirects=False)
    assert login.status_code == 303 and "token" not in login.headers["location"]
    assert "httponly" in login.headers["set-cookie"].lower()
    assert client.get("/sessions").status_code == 200  # the cookie now
    client.cookies.clear()
    assert client.get("/sessions").status_code == 401


def test_non_loopback_bind_without_token_refuses_to_start(console_data: ConsoleData) -> None:
    for host in ("0.0.0.0", "192.0.2.7", "::", "example.org"):
        with pytest.raises(ConsoleConfigError, match="requires a token"):
            create_app(console_data, ConsoleSettings(bind_host=host))
    for host in ("127.0.0.1", "127.0.0.2", "localhost", "::1", "[::1]"):
        ConsoleSettings(bind_host=host).check()
    with pytest.raises(ConsoleConfigError, match="empty"):
        ConsoleSettings(token="  ").check()


def test_console_command_refuses_a_public_bind_without_token(mongo_uri: str) -> None:
    result = CliRunner().invoke(
        get_app(), ["--uri", mongo_uri, "console", "--bind", "0.0.0.0:8008"], env={"AIMON_CONSOLE_TOKEN": None}
    )
    assert result.exit_code == 2
    assert "requires a token" in result.stderr and "Traceback" not in result.stderr


def test_loopback_console_answers_loopback_host_names_only(app_client: AppClient) -> None:
    client = app_client()
    assert client.get("/sessions").status_code == 200
    assert client.get("/sessions", headers={"Host": "attacker.example:8008"}).status_code == 421
    refused = client.get("/api/sessions", headers={"Host": "attacker.example:8008"})
    assert (refused.status_code, refused.json()) == (421, {"detail": "this console answers loopback host names only"})


def test_write_actions_absent_without_allow_writes(app_client: AppClient, seeded: Seeded) -> None:
    client = app_client()
    entry = client.get(f"/quarantine/entry?id={seeded.quarantine_id}")
    assert entry.status_code == 200 and seeded.quarantine_id in entry.text
    assert "Replay" not in entry.text and "Delete" not in entry.text and "<form" not in entry.text
    assert "read-only" in entry.text
    for action in ("replay", "delete"):
        assert client.get(f"/quarantine/{action}?id={seeded.quarantine_id}").status_code == 404
        posted = client.post(f"/quarantine/{action}", data={"id": seeded.quarantine_id, "confirm": "yes"})
        assert posted.status_code in (404, 405)
    assert client.get("/api/quarantine").json()["items"][0]["id"] == seeded.quarantine_id
    assert all(set(ops) == {"get"} for ops in client.get("/openapi.json").json()["paths"].values())


def test_post_without_csrf_or_confirmation_is_refused(app_client: AppClient, seeded: Seeded) -> None:
    client = app_client(allow_writes=True)
    confirm = client.get(f"/quarantine/replay?id={seeded.quarantine_id}")
    assert confirm.status_code == 200
    token = _csrf(confirm.text)
    form: dict[str, Any] = {"id": seeded.quarantine_id, "confirm": "yes"}
    assert client.post("/quarantine/replay", data=form).status_code == 403
    assert client.post("/quarantine/replay", data={**form, "csrf": "x" * 43}).status_code == 403
    assert client.post("/quarantine/delete", data=form).status_code == 403
    assert client.post("/quarantine/replay", data={"id": seeded.quarantine_id, "csrf": token}).status_code == 400
    cross = client.post("/quarantine/delete", data={**form, "csrf": token}, headers={"Origin": "http://evil.example"})
    assert cross.status_code == 403
    stranger = app_client(allow_writes=True)  # another browser: its own cookie, not this form's token
    stranger.get("/sessions")
    assert stranger.post("/quarantine/delete", data={**form, "csrf": token}).status_code == 403
    assert client.get("/api/quarantine").json()["items"][0]["id"] == seeded.quarantine_id  # nothing happened
    done = client.post("/quarantine/delete", data={**form, "csrf": token})
    assert done.status_code == 200 and f"deleted quarantined entry {seeded.quarantine_id}" in done.text
    assert client.get("/api/quarantine").json()["items"] == []


def test_xss_in_a_transcript_and_a_file_name_is_inert(app_client: AppClient) -> None:
    client = app_client()
    transcript = client.get(f"/snapshots/view?task={XSS_TASK}")
    assert transcript.status_code == 200
    assert "&lt;script&gt;alert(&#34;pwned&#34;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;" in transcript.text
    assert "<script>alert" not in transcript.text and "<img src=x" not in transcript.text
    assert "script-src 'self'" in transcript.headers["content-security-policy"]
    listing = client.get("/files?path=workspace/c-1")
    assert "&lt;img src=x onerror=alert(1)&gt;.md" in listing.text and "<img src=x" not in listing.text
    assert "path=workspace/c-1/%3Cimg%20src%3Dx%20onerror%3Dalert%281%29%3E.md" in listing.text
    view = client.get("/files/view", params={"path": "workspace/c-1/<img src=x onerror=alert(1)>.md"})
    assert view.status_code == 200
    assert "<script>alert" not in view.text and "<img src=x" not in view.text and "&lt;script&gt;" in view.text
    raw = client.get("/files/raw", params={"path": "workspace/c-1/<img src=x onerror=alert(1)>.md"})
    assert raw.headers["content-type"] == "application/octet-stream"
    assert raw.headers["content-disposition"].startswith("attachment;")
    assert "sandbox" in raw.headers["content-security-policy"]


@pytest.mark.parametrize(
    "url",
    [
        "/files/view?path=../etc/passwd",
        "/files/view?path=workspace/../../etc/passwd",
        "/files/raw?path=workspace/%2e%2e/%2e%2e/etc/passwd",
        "/files/raw?path=..%5C..%5Cetc%5Cpasswd",
        "/files?path=/etc",
        "/files?path=workspace/..",
        "/api/files?path=..",
        "/api/files/info?path=workspace/c-1/../../x",
        "/api/usage?path=../",
    ],
)
def test_traversal_is_refused(app_client: AppClient, url: str) -> None:
    refused = app_client().get(url)
    assert refused.status_code == 400, refused.text
    assert "Traceback" not in refused.text and "passwd" not in refused.headers.get("content-disposition", "")


def test_no_stack_trace_reaches_the_browser(
    app_client: AppClient, console_data: ConsoleData, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken() -> Any:
        raise RuntimeError("secret internals /srv/app.py line 42")

    monkeypatch.setattr(console_data, "fsck", broken)
    client = app_client()
    for url in ("/files/fsck", "/api/fsck"):
        failed = client.get(url)
        assert failed.status_code == 500
        assert "internal error (reference" in failed.text
        assert "Traceback" not in failed.text and "secret internals" not in failed.text
        assert "RuntimeError" not in failed.text
    missing = client.get("/snapshots/view?task=nope")
    assert missing.status_code == 404 and "no snapshot for task" in missing.text


def test_console_command_serves_with_its_token(mongo_uri: str, seeded: Seeded) -> None:
    """The real command in a process: it serves on the loopback port it was given and asks for the token."""
    import os
    import subprocess
    import sys
    import time
    import urllib.error
    import urllib.request

    from aimon_mongo.standin import free_port

    port = free_port()
    env = {**os.environ, "AIMON_CONSOLE_TOKEN": TOKEN, "MONGODB_URI": ""}
    command = [sys.executable, "-m", "aimon_mongo", "--session-db", seeded.db_name, "--db", seeded.db_name]
    process = subprocess.Popen(
        [*command, "console", "--uri", mongo_uri, "--bind", f"127.0.0.1:{port}"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        url = f"http://127.0.0.1:{port}/api/sessions"
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(url, timeout=5)
            except urllib.error.HTTPError as refused:
                assert refused.code == 401
                break
            except OSError:
                assert process.poll() is None and time.monotonic() < deadline, "the console did not start"
                time.sleep(0.2)
        request = urllib.request.Request(url, headers={"Authorization": f"Bearer {TOKEN}"})
        with urllib.request.urlopen(request, timeout=10) as answer:
            body = answer.read().decode()
        assert '"session_id":"c-1"' in body
    finally:
        process.terminate()
        process.wait(20)
