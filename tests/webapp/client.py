"""A Mini App page's calls, as a test makes them: initData signed with the test token."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from typing import Any

import httpx

from tests.telegram_sim.harness import Harness, TgUser
from tgbot.webapp.auth import sign


def init_data(h: Harness, user: TgUser, token: str | None = None, age_s: int = 0) -> str:
    """What Telegram gives the page of `user` (signed with the bot's token unless told)."""
    fields = {
        "query_id": "AAE" + uuid.uuid4().hex[:8],
        "user": json.dumps(
            {"id": user.id, "first_name": user.first_name, "language_code": user.language_code}
        ),
        "auth_date": str(int(time.time()) - age_s),
    }
    return sign(fields, token or h.config.bot_token)


def base_url(h: Harness, instance: int = 0) -> str:
    """The address of one bot process (its webhook URL without the path)."""
    url: str = getattr(h, "urls", [h.url])[instance]
    return url.removesuffix(h.config.webhook_path)


class Page:
    """One user's Mini App page against one bot process."""

    def __init__(self, h: Harness, user: TgUser, instance: int = 0) -> None:
        self.h = h
        self.user = user
        self.base = base_url(h, instance)
        self.auth = {"Authorization": "tma " + init_data(h, user)}

    async def view(self, game: str | None = None) -> httpx.Response:
        """GET the view (of the user's current game when `game` is None)."""
        params = {} if game is None else {"game": game}
        return await self.h.http.get(f"{self.base}/app/api/view", params=params, headers=self.auth)

    async def shown(self, game: str | None = None) -> dict[str, Any]:
        """The view's JSON (asserting a 200)."""
        response = await self.view(game)
        assert response.status_code == 200, response.text
        data: dict[str, Any] = response.json()
        return data

    async def decide(
        self, game: str, revision: int, decision: str, request_id: str | None = None
    ) -> httpx.Response:
        """POST a decision."""
        body = {
            "game": game,
            "revision": revision,
            "decision": decision,
            "request_id": request_id or uuid.uuid4().hex,
        }
        return await self.h.http.post(f"{self.base}/app/api/decide", json=body, headers=self.auth)

    async def ticket(self, game: str) -> str:
        """A single-use ticket for the game's event stream (asserting a 200)."""
        response = await self.h.http.post(
            f"{self.base}/app/api/ticket", params={"game": game}, headers=self.auth
        )
        assert response.status_code == 200, response.text
        issued: str = response.json()["ticket"]
        return issued

    async def events_url(self, game: str, after: int = -1) -> str:
        """The address of a new event stream of the game, its ticket in it."""
        return f"{self.base}/app/api/events?ticket={await self.ticket(game)}&after={after}"


async def follow(
    h: Harness,
    instance: int,
    game_id: str,
    after: int,
    got: list[int],
    open_: asyncio.Event,
    reader: TgUser | None = None,
) -> None:
    """Follow the game's event stream on one process, noting each revision it sends
    (`open_` set once it listens) until the stream ends."""
    page = Page(h, reader or TgUser(999_000, "Reader"), instance)
    async with h.http.stream("GET", await page.events_url(game_id, after)) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        event = None
        async for line in response.aiter_lines():
            if line == ": listening":
                open_.set()
            if line.startswith("event: "):
                event = line.removeprefix("event: ")
            elif line.startswith("data: ") and event == "revision":
                data = json.loads(line.removeprefix("data: "))
                assert data["game"] == game_id
                got.append(int(data["revision"]))
