"""The Mini App on your own machine, without Telegram: `python -m tests.webapp.demo`.

It starts a private Redis (or uses REDIS_URL), the simulated Bot API of the tests, one
webhook process of the bot with its Mini App, and a game of three players, then prints one
address per player. Each address serves the real page with a stand-in for Telegram's
script that carries that player's initData, signed with the bot's token as Telegram signs
it, so each seat is played in a tab of its own (the others' private chats are not needed).
Ctrl-C stops it all. Needs the test extras: `python -m pip install -e '.[test]'`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qs

import httpx

from tests.bot.play import open_and_start
from tests.redis_server import redis_url
from tests.telegram_sim.harness import (
    WEBHOOK_PATH,
    Harness,
    TgUser,
    config_for_tests,
    free_port,
    serve,
)
from tests.telegram_sim.server import TelegramSim, build_sim_app
from tests.webapp.browser import TELEGRAM_SCRIPT, signed_init_data, stub_script
from tgbot.run import webhook_app
from tgbot.webapp.page import PAGE_PATH, SECURITY_HEADERS, assets

NAMES = {"ka": ["ნინო", "გიორგი", "თამარ"], "en": ["Nino", "Giorgi", "Tamar"]}
FIRST_ID = 7001
STUB_PATH = PAGE_PATH + "/demo-telegram.js"
BUTTONS_URL = "https://coup.example.test/app"

Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]
App = Callable[[dict[str, Any], Receive, Send], Awaitable[None]]


class Demo:
    """The bot's webhook app, plus the page as each demo player opens it:
    `/app?as=<id>` (the page, Telegram's script replaced by `/app/demo-telegram.js`)."""

    def __init__(self, inner: App, token: str, users: list[TgUser]) -> None:
        self.inner = inner
        self.token = token
        self.users = {u.id: u for u in users}
        self.game_id = ""

    async def __call__(self, scope: dict[str, Any], receive: Receive, send: Send) -> None:
        """Serve the demo's two addresses; everything else is the bot's."""
        if scope["type"] == "http" and scope["path"] in (PAGE_PATH, STUB_PATH):
            query = parse_qs(scope.get("query_string", b"").decode())
            user = self.users.get(int((query.get("as") or ["0"])[0] or 0))
            scheme = "dark" if query.get("scheme") == ["dark"] else "light"
            if user is not None:
                if scope["path"] == PAGE_PATH:
                    await self._page(send, user, scheme)
                else:
                    await self._stub(send, user, scheme)
                return
        await self.inner(scope, receive, send)

    async def _page(self, send: Send, user: TgUser, scheme: str) -> None:
        page = assets()["index.html"].body.decode()
        stub = f"app/demo-telegram.js?as={user.id}&scheme={scheme}"
        body = page.replace(TELEGRAM_SCRIPT, stub).encode()
        await _answer(send, body, "text/html; charset=utf-8")

    async def _stub(self, send: Send, user: TgUser, scheme: str) -> None:
        person = {"id": user.id, "first_name": user.first_name, "language_code": user.language_code}
        init = signed_init_data(self.token, person, self.game_id)
        body = stub_script(init, person, self.game_id, scheme).encode()
        await _answer(send, body, "text/javascript; charset=utf-8")


async def _answer(send: Send, body: bytes, media_type: str) -> None:
    headers = [(k.lower().encode(), v.encode()) for k, v in SECURITY_HEADERS.items()]
    headers += [(b"content-type", media_type.encode()), (b"cache-control", b"no-store")]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def run(redis: str, port: int, lang: str, stop: asyncio.Event) -> None:
    """Serve the demo until `stop` is set; print the players' addresses once it is up."""
    users = [TgUser(FIRST_ID + i, name, lang) for i, name in enumerate(NAMES[lang])]
    sim = TelegramSim()
    sim_port = free_port()
    base = f"http://127.0.0.1:{port}"
    async with contextlib.AsyncExitStack() as stack:
        await stack.enter_async_context(serve(build_sim_app(sim), sim_port))
        # The chats' Mini App buttons (https only, as Telegram's) are not used here: each
        # player opens the page at the address printed below.
        config = config_for_tests(
            redis, sim_port, webapp_short_name="table", webapp_url=BUTTONS_URL
        )
        demo = Demo(webhook_app(config), config.bot_token, users)
        await stack.enter_async_context(serve(demo, port, config))
        http = await stack.enter_async_context(httpx.AsyncClient(timeout=30))
        h = Harness(sim, base + WEBHOOK_PATH, http, config)
        stack.push_async_callback(h.store.redis.aclose)
        demo.game_id = await open_and_start(h, users)
        print(f"The Mini App's demo: game {demo.game_id}, on the simulated Bot API.")
        print("Open each player in a browser tab of their own (add &scheme=dark for dark):")
        for u in users:
            print(f"  {u.first_name}: {base}{PAGE_PATH}?as={u.id}")
        print("Ctrl-C stops it.", flush=True)
        await stop.wait()


def main(argv: list[str] | None = None) -> int:
    """Run the demo until Ctrl-C (or SIGTERM)."""
    parser = argparse.ArgumentParser(prog="python -m tests.webapp.demo", description=__doc__)
    parser.add_argument("--port", type=int, default=8390, help="the page's port (8390)")
    parser.add_argument("--lang", choices=sorted(NAMES), default="ka", help="the players' language")
    args = parser.parse_args(argv)

    async def until_stopped(redis: str) -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await run(redis, args.port, args.lang, stop)

    with redis_url() as redis:
        asyncio.run(until_stopped(redis))
    return 0


if __name__ == "__main__":
    sys.exit(main())
