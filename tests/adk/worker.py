"""A node in its own process for the ADK cross-process tests.

``python -m tests.adk.worker save URL APP USER SESSION FILENAME COUNT TAG`` saves COUNT artifacts and prints
the versions it got, one per line. ``python -m tests.adk.worker append URL OPTIONS_JSON APP USER SESSION
COUNT TAG`` loads the session and appends COUNT events, reloading after each refusal; prints ``ok`` or
``stale`` per attempt.
"""

from __future__ import annotations

import asyncio
import json
import sys

from google.adk.errors._stale_session_error import StaleSessionError
from google.adk.events.event import Event
from google.genai import types

from aimon_mongo.adk import AimonArtifactService, AimonSessionService


async def save(url: str, app: str, user: str, session: str, filename: str, count: int, tag: str) -> None:
    service = AimonArtifactService.from_url(url)
    try:
        for i in range(count):
            version = await service.save_artifact(
                app_name=app,
                user_id=user,
                session_id=session,
                filename=filename,
                artifact=types.Part(text=f"{tag}-{i}"),
            )
            print(version, flush=True)
    finally:
        await service.close()


async def append(url: str, options: str, app: str, user: str, session_id: str, count: int, tag: str) -> None:
    service = AimonSessionService.from_url(url, **json.loads(options))
    try:
        for i in range(count):
            session = await service.get_session(app_name=app, user_id=user, session_id=session_id)
            assert session is not None
            text = f"{tag}-{i}"
            made = Event(
                author="user", invocation_id=tag, content=types.Content(role="user", parts=[types.Part(text=text)])
            )
            try:
                await service.append_event(session, made)
                print("ok", text, flush=True)
            except StaleSessionError:
                print("stale", text, flush=True)
    finally:
        await service.close()


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    if command == "save":
        asyncio.run(save(args[0], args[1], args[2], args[3], args[4], int(args[5]), args[6]))
    else:
        asyncio.run(append(args[0], args[1], args[2], args[3], args[4], int(args[5]), args[6]))
