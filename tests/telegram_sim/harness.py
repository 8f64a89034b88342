"""Runs the real webhook app and the simulated Bot API on local ports, and plays through them."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import itertools
import json
import socket
import time
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import httpx
import uvicorn

from tgbot.config import DEFAULT_LOCALES, Config, Deadlines
from tgbot.contract import callbacks
from tgbot.rendering.i18n import Catalogs
from tgbot.run import server_config, webhook_app
from tgbot.service.records import GameRecord
from tgbot.storage.clients import connect
from tgbot.storage.keys import Keys, chat_owner
from tgbot.storage.store import Store

from ..redis_server import cluster_url
from ..store_probe import outbox_head
from .server import TelegramSim, build_sim_app

SECRET = "test-secret_1-of-32-characters-long"
WEBHOOK_PATH = "/telegram"


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.asynccontextmanager
async def serve(
    app: Any, port: int, bot_config: Config | None = None
) -> AsyncIterator[uvicorn.Server]:
    """Run an ASGI app with uvicorn in this event loop (the bot's app, given its
    `bot_config`, with the limits production serves it with)."""
    where: dict[str, Any] = {"host": "127.0.0.1", "port": port, "log_level": "warning"}
    if bot_config is not None:
        settings = server_config(app, bot_config, lifespan="on", **where)
        settings.timeout_graceful_shutdown = 5
    else:
        settings = uvicorn.Config(app, lifespan="on", timeout_graceful_shutdown=5, **where)
    server = uvicorn.Server(settings)
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.02)
    try:
        yield server
    finally:
        server.should_exit = True
        await task


@dataclass(frozen=True)
class TgUser:
    """A Telegram user of the tests."""

    id: int
    first_name: str
    language_code: str | None = "ka"

    def json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"id": self.id, "is_bot": False, "first_name": self.first_name}
        if self.language_code:
            data["language_code"] = self.language_code
        return data


class Updates:
    """Builds updates shaped like Telegram's, with increasing ids."""

    def __init__(self, first_update_id: int = 1000) -> None:
        self._update_ids = itertools.count(first_update_id)
        self._message_ids = itertools.count(1)

    def next_id(self) -> int:
        """A fresh update id."""
        return next(self._update_ids)

    def message(
        self,
        user: TgUser,
        chat_id: int,
        text: str,
        thread_id: int | None = None,
        sender_chat: int | None = None,
    ) -> dict[str, Any]:
        """An update carrying a text message (a command when it starts with /); with
        `sender_chat`, sent on behalf of that chat (as Telegram shows anonymous admins)."""
        chat: dict[str, Any] = {"id": chat_id, "type": "private" if chat_id > 0 else "supergroup"}
        if chat_id < 0:
            chat["title"] = "Coup group"
            if thread_id is not None:
                chat["is_forum"] = True
        message: dict[str, Any] = {
            "message_id": next(self._message_ids),
            "date": int(time.time()),
            "chat": chat,
            "from": user.json(),
            "text": text,
        }
        if text.startswith("/"):
            message["entities"] = [
                {"type": "bot_command", "offset": 0, "length": len(text.split()[0])}
            ]
        if thread_id is not None:
            message["message_thread_id"] = thread_id
            message["is_topic_message"] = True
        if sender_chat is not None:
            kind = "supergroup" if sender_chat == chat_id else "channel"
            message["sender_chat"] = {"id": sender_chat, "type": kind, "title": "On behalf"}
        return {"update_id": self.next_id(), "message": message}

    def press(
        self,
        user: TgUser,
        chat_id: int,
        message_id: int,
        data: Any,
        text: str = "?",
        keyboard: list[list[dict[str, Any]]] | None = None,
    ) -> dict[str, Any]:
        """An update for a button press on a message (which, as in Telegram, comes with
        its inline keyboard, if it has one)."""
        update_id = self.next_id()
        update = {
            "update_id": update_id,
            "callback_query": {
                "id": f"cb{update_id}",
                "from": user.json(),
                "chat_instance": "ci",
                "data": data,
                "message": {
                    "message_id": message_id,
                    "date": int(time.time()),
                    "chat": {"id": chat_id, "type": "private" if chat_id > 0 else "supergroup"},
                    "text": text,
                },
            },
        }
        if keyboard:
            update["callback_query"]["message"]["reply_markup"] = {"inline_keyboard": keyboard}
        return update


class Harness:
    """The bot under test, the simulated Telegram, and helpers to act as players."""

    def __init__(
        self, sim: TelegramSim, webhook_url: str, http: httpx.AsyncClient, config: Config
    ) -> None:
        self.sim = sim
        self.config = config
        self.store = Store(
            connect(config.redis_url or "", cluster_url(config.redis_url)), Keys(config.key_prefix)
        )
        self.url = webhook_url
        self.urls = [webhook_url]
        # With several processes: each update goes to the next one in turn.
        self.spread = False
        self._next_url = itertools.count()
        self.http = http
        self.updates = Updates()
        self.catalogs = Catalogs(DEFAULT_LOCALES)

    async def record_of_chat(self, chat_id: int) -> GameRecord | None:
        """The stored game of a group, read straight from Redis."""
        game_id = await self.store.commits.get(self.store.keys.chat_game(chat_id))
        if not game_id:
            return None
        raw = await self.store.commits.get_json(self.store.keys.game(game_id))
        return None if raw is None else GameRecord.from_dict(raw)

    async def record(self, game_id: str) -> GameRecord | None:
        """A stored game by id."""
        raw = await self.store.commits.get_json(self.store.keys.game(game_id))
        return None if raw is None else GameRecord.from_dict(raw)

    def has_button(self, chat_id: int, text: str) -> bool:
        """True if a message in the chat shows a button with exactly this text."""
        return any(b["text"] == text for m in self.sim.messages(chat_id) for b in m.buttons())

    def tr(self, msgid: str, lang: str = "ka") -> str:
        """What the bot says for `msgid` in a language."""
        return self.catalogs.get(lang).gettext(msgid)

    async def post(
        self, update: dict[str, Any], secret: str | None = SECRET, url: str | None = None
    ) -> httpx.Response:
        """Deliver an update to the webhook (or to `url`), as Telegram would, running the
        method the response names."""
        headers = {} if secret is None else {"X-Telegram-Bot-Api-Secret-Token": secret}
        if url is None and self.spread:
            url = self.urls[next(self._next_url) % len(self.urls)]
        response = await self.http.post(url or self.url, json=update, headers=headers)
        _forward_webhook_reply(self.sim, response)
        return response

    async def post_raw(
        self, body: bytes | dict[str, Any], url: str | None = None
    ) -> httpx.Response:
        """Deliver a body as it is (a dict as ASCII JSON, so that lone surrogates travel as
        \\u escapes, the way Telegram's JSON may carry them), with the right secret."""
        content = body if isinstance(body, bytes) else json.dumps(body).encode()
        headers = {"X-Telegram-Bot-Api-Secret-Token": SECRET, "Content-Type": "application/json"}
        response = await self.http.post(url or self.url, content=content, headers=headers)
        _forward_webhook_reply(self.sim, response)
        return response

    def message_update(
        self,
        user: TgUser,
        chat_id: int,
        text: str,
        thread_id: int | None = None,
        sender_chat: int | None = None,
    ) -> dict[str, Any]:
        """An update carrying a text message (a command when it starts with /)."""
        return self.updates.message(user, chat_id, text, thread_id, sender_chat)

    async def say(
        self, user: TgUser, chat_id: int, text: str, thread_id: int | None = None
    ) -> httpx.Response:
        """Send a message (or command) as a user; return once its reply is delivered."""
        response = await self.post(self.message_update(user, chat_id, text, thread_id))
        assert response.status_code == 200, response.text
        await self.replied(chat_id)
        return response

    async def replied(self, chat_id: int, timeout: float = 10.0) -> None:
        """Wait until the bot has delivered every reply it queued for a chat (replies are
        queued before the webhook answers, so this follows any update posted before)."""
        await self.delivered(chat_owner(chat_id), timeout)
        # The reply to an update that changed a game waits in that game's outbox.
        keys = self.store.keys
        game_id = await self.store.commits.get(
            keys.chat_game(chat_id) if chat_id < 0 else keys.user_game(chat_id)
        )
        if game_id:
            deadline = time.monotonic() + timeout
            while any(
                op.get("chat") == chat_id
                for _, op in await self.store.outboxes.outbox_items(game_id)
            ):
                if time.monotonic() > deadline:
                    raise AssertionError(f"replies to chat {chat_id} still undelivered")
                await asyncio.sleep(0.01)

    def press_update(
        self, user: TgUser, chat_id: int, message_id: int, data: str
    ) -> dict[str, Any]:
        """An update for a button press on a message the simulated chat shows."""
        found = [m for m in self.sim.messages(chat_id) if m.message_id == message_id]
        if not found:
            return self.updates.press(user, chat_id, message_id, data)
        return self.updates.press(user, chat_id, message_id, data, found[0].text, found[0].keyboard)

    async def press(self, user: TgUser, chat_id: int, message_id: int, data: str) -> dict[str, Any]:
        """Press a button; return the callback answer the bot gave. A press that gives
        its message a new look (a target picker, Back, a setting) returns once that is
        delivered, as `say` returns once its reply is: the handler only answers, and
        the new look follows through the outbox."""
        update = self.press_update(user, chat_id, message_id, data)
        response = await self.post(update)
        assert response.status_code == 200, response.text
        if shows_anew(data):
            await self.replied(chat_id)
        return self.sim.callback_answers.get(update["callback_query"]["id"], {})

    async def press_text(
        self, user: TgUser, chat_id: int, text_part: str, timeout: float = 10.0
    ) -> dict[str, Any]:
        """Press the newest button whose text contains `text_part` in a chat (waiting
        `timeout` s for one to show: the messages of a step are delivered after it)."""
        deadline = time.monotonic() + timeout
        while True:
            for message in reversed(self.sim.messages(chat_id)):
                for button in message.buttons():
                    if text_part in button["text"] and "callback_data" in button:
                        return await self.press(
                            user, chat_id, message.message_id, button["callback_data"]
                        )
            if time.monotonic() > deadline:
                raise AssertionError(f"no button {text_part!r} in chat {chat_id}")
            await asyncio.sleep(0.02)

    async def delivered(self, game_id: str, timeout: float = 10.0, held: bool = True) -> None:
        """Wait until the bot has delivered every message the game's steps (or, for an
        outbox owner like chat_owner(chat), a chat's replies) queued; with `held` False,
        not a story edit still in its hold (STORY_HOLD_MS), which waits for a newer state
        to replace it, as the players do not: they press meanwhile."""
        deadline = time.monotonic() + timeout
        while await self._owes(game_id, held):
            if time.monotonic() > deadline:
                raise AssertionError(f"outbox {game_id} still has undelivered messages")
            await asyncio.sleep(0.01)

    async def _owes(self, owner: str, held: bool = True) -> bool:
        """Whether an outbox holds a message still to deliver (`held`: even one in its hold)."""
        if held:
            return await outbox_head(self.store, owner) is not None
        now_ms = int(time.time() * 1000)
        for _, entry in await self.store.outboxes.outbox_items(owner):
            hold, at = entry.get("hold_ms") or 0, entry.get("at")
            if not (hold and isinstance(at, int) and at + hold > now_ms):
                return True
        return False

    async def until(self, check: Callable[[], bool], timeout: float = 10.0) -> None:
        """Wait until `check()` holds (deliveries run in the background)."""
        deadline = time.monotonic() + timeout
        while not check():
            if time.monotonic() > deadline:
                raise AssertionError("timed out waiting for the bot")
            await asyncio.sleep(0.02)


def shows_anew(data: str) -> bool:
    """Whether a press's only effect is a new look of its message (a target picker, Back,
    a setting), queued in an outbox and delivered after the press is answered."""
    if data.startswith(callbacks.SETTING_PREFIX):
        return True
    try:
        code = callbacks.unpack(data).code
    except callbacks.BadButton:
        return False
    return code == callbacks.BACK or callbacks.picker_action(code) is not None


def _forward_webhook_reply(sim: TelegramSim, response: httpx.Response) -> None:
    """Telegram runs the Bot API method a successful webhook response names."""
    if response.status_code == 200 and response.headers.get("content-type", "").startswith(
        "application/json"
    ):
        body = response.json()
        if isinstance(body, dict) and "method" in body:
            sim.webhook_reply(body)


def config_for_tests(
    redis_url: str,
    sim_port: int,
    deadlines: Deadlines | None = None,
    group_rate: int = 6000,
    person_rate: int = 100_000,
    messages_per_second: int = 300,
    private_rate: int = 100_000,
    record_days: int = 30,
    hold_ms: int = 0,
    webapp_short_name: str | None = None,
    webapp_url: str | None = None,
) -> Config:
    """A configuration pointing at the simulated Telegram and a private key prefix."""
    return Config(
        bot_token="123456:TEST-token",
        redis_url=redis_url,
        webhook_url="https://coup.example.test",
        webhook_secret=SECRET,
        webhook_path=WEBHOOK_PATH,
        api_base_url=f"http://127.0.0.1:{sim_port}/bot",
        key_prefix=f"t{uuid.uuid4().hex[:8]}",
        deadlines=deadlines or Deadlines(),
        group_messages_per_minute=group_rate,
        ai_pause_ms=(30, 80),
        person_updates_per_10s=person_rate,  # the tests press faster than any person
        # Ten times Telegram's bot pace, as the group's minute is raised: an optional close
        # finds the second's spare room at once (test_private_closes and kill -9 run at 30).
        messages_per_second=messages_per_second,
        private_messages_per_second=private_rate,  # Telegram-like pacing: the tests that ask
        record_days=record_days,
        answer_edit_hold_ms=hold_ms,  # 0: the tests press as soon as a step is delivered
        webapp_short_name=webapp_short_name,  # None: no Mini App buttons, as before
        webapp_url=webapp_url,
    )


@contextlib.asynccontextmanager
async def running_bot(
    redis_url: str,
    deadlines: Deadlines | None = None,
    sim: TelegramSim | None = None,
    instances: int = 1,
    group_rate: int = 6000,
    person_rate: int = 100_000,
    messages_per_second: int = 300,
    private_rate: int = 100_000,
    record_days: int = 30,
    hold_ms: int = 0,
    webapp_short_name: str | None = None,
    webapp_url: str | None = None,
    settings: dict[str, Any] | None = None,
) -> AsyncIterator[Harness]:
    """The simulated Telegram plus `instances` webhook processes' worth of the bot
    (`settings`: more fields of its Config, by name)."""
    sim = sim or TelegramSim()
    sim_port = free_port()
    async with contextlib.AsyncExitStack() as stack:
        await stack.enter_async_context(serve(build_sim_app(sim), sim_port))
        config = config_for_tests(
            redis_url,
            sim_port,
            deadlines,
            group_rate,
            person_rate,
            messages_per_second,
            private_rate,
            record_days,
            hold_ms,
            webapp_short_name,
            webapp_url,
        )
        config = dataclasses.replace(config, **(settings or {}))
        urls = []
        for _ in range(instances):
            port = free_port()
            await stack.enter_async_context(serve(webhook_app(config), port, config))
            urls.append(f"http://127.0.0.1:{port}{WEBHOOK_PATH}")
        http = await stack.enter_async_context(httpx.AsyncClient(timeout=30))
        harness = Harness(sim, urls[0], http, config)
        harness.urls = urls
        try:
            yield harness
        finally:
            await harness.store.redis.aclose()
