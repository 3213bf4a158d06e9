"""``adk api_server`` resolves our ``aimon+…`` URIs through a ``services.py`` beside the agents: a session
created over its HTTP API is stored where our own service (another node) reads it."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from google.genai import types

from aimon_mongo.adk import AimonArtifactService, AimonSessionService
from tests.adk.conftest import with_database

AGENT = """from google.adk.agents import Agent

root_agent = Agent(name="hello", model="gemini-2.0-flash", instruction="Say hello.")
"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def post(url: str, body: object) -> object:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"content-type": "application/json"}, method="POST"
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())


async def test_adk_api_server_uses_our_services_from_the_aimon_uris(
    tmp_path: Path, mongo_uri: str, mongo_db_name: str
) -> None:
    agents = tmp_path / "agents"
    (agents / "hello").mkdir(parents=True)
    (agents / "services.py").write_text("from aimon_mongo.adk import register_services\n\nregister_services()\n")
    (agents / "hello" / "__init__.py").write_text("from . import agent\n")
    (agents / "hello" / "agent.py").write_text(AGENT)
    url = with_database(mongo_uri, mongo_db_name)
    port = free_port()
    adk = Path(sys.executable).with_name("adk")
    server = subprocess.Popen(
        [str(adk), "api_server", "--port", str(port), "--session_service_uri", f"aimon+{url}",
         "--artifact_service_uri", f"aimon+{url}", str(agents)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=tmp_path,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:  # poll until the server answers
            try:
                with urllib.request.urlopen(f"{base}/list-apps", timeout=5) as answer:
                    assert json.loads(answer.read()) == ["hello"]
                break
            except OSError:
                assert server.poll() is None and time.monotonic() < deadline, "adk api_server did not come up"
                time.sleep(0.2)
        made = post(f"{base}/apps/hello/users/ann/sessions/s-web", {"state": {"topic": "rain"}})
        assert isinstance(made, dict) and made["id"] == "s-web"
        node = AimonSessionService.from_url(url)
        artifacts = AimonArtifactService.from_url(url)
        try:
            stored = await node.get_session(app_name="hello", user_id="ann", session_id="s-web")
            assert stored is not None and stored.state == made["state"]
            scope = {"app_name": "hello", "user_id": "ann", "session_id": "s-web"}
            await artifacts.save_artifact(filename="notes.txt", artifact=types.Part(text="from a node"), **scope)
            with urllib.request.urlopen(f"{base}/apps/hello/users/ann/sessions/s-web/artifacts", timeout=30) as answer:
                assert json.loads(answer.read()) == ["notes.txt"]
            with urllib.request.urlopen(
                f"{base}/apps/hello/users/ann/sessions/s-web/artifacts/notes.txt/versions/metadata", timeout=30
            ) as answer:
                listed = json.loads(answer.read())
            assert [v["version"] for v in listed] == [0] and listed[0]["canonicalUri"].endswith("/0000000000")
        finally:
            await node.close()
            await artifacts.close()
    finally:
        server.terminate()
        server.communicate(timeout=30)
