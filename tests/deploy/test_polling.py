"""`coup-bot` without WEBHOOK_URL polls Telegram and serves the same handlers."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

from tests.telegram_sim.harness import TgUser, Updates, free_port, serve
from tests.telegram_sim.server import TelegramSim, build_sim_app
from tgbot.contract.plan import REPLY
from tgbot.telegram.rate_limit import group_caps, safe_group_limit

ROOT = Path(__file__).resolve().parents[2]


@contextlib.asynccontextmanager
async def polling_bot(sim_port: int, redis_url: str) -> AsyncIterator[subprocess.Popen[bytes]]:
    """`coup-bot` in polling mode as a process of its own; it must stop cleanly on SIGTERM."""
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("WEBHOOK_")},
        "BOT_TOKEN": "123456:polling",
        "TELEGRAM_API_URL": f"http://127.0.0.1:{sim_port}/bot",
        "REDIS_URL": redis_url,
        "REDIS_KEY_PREFIX": f"p{uuid.uuid4().hex[:8]}",
        "LOG_LEVEL": "WARNING",
    }
    bot = subprocess.Popen(
        [sys.executable, "-m", "tgbot"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        yield bot
    finally:
        bot.send_signal(signal.SIGTERM)
        try:
            # In a thread: the simulated Telegram runs in this event loop, and the bot
            # still talks to it while it shuts down.
            _, stderr = await asyncio.to_thread(bot.communicate, timeout=30)
        except subprocess.TimeoutExpired:
            bot.kill()
            raise
    assert bot.returncode == 0, stderr.decode()[-2000:]


async def until(check, timeout: float = 20.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.05)


async def test_polling_mode_plays_through_get_updates(redis_server_url: str) -> None:
    sim = TelegramSim()
    port = free_port()
    async with serve(build_sim_app(sim), port), polling_bot(port, redis_server_url):
        await until(lambda: any(c.method == "getUpdates" for c in sim.calls))
        assert any(c.method == "deleteWebhook" for c in sim.calls)
        assert any(c.method == "setMyCommands" for c in sim.calls)
        updates = Updates()
        nika = TgUser(4001, "Nika")
        sim.pending_updates.append(updates.message(nika, nika.id, "/start"))
        await until(lambda: any(m.text.startswith("👋") for m in sim.messages(nika.id)))
        sim.pending_updates.append(updates.message(nika, -4001, "/newgame"))
        await until(lambda: any(m.buttons() for m in sim.messages(-4001)))
        # A button press is answered by a request of the bot's own (no webhook response
        # to carry the answer when polling).
        lobby = next(m for m in sim.messages(-4001) if m.buttons())
        join = next(b for b in lobby.buttons() if "callback_data" in b)
        press = updates.press(nika, -4001, lobby.message_id, join["callback_data"])
        sim.pending_updates.append(press)
        query_id = press["callback_query"]["id"]
        await until(lambda: query_id in sim.callback_answers)
        answered = [c for c in sim.calls if c.method == "answerCallbackQuery"]
        assert answered and not any(c.via_webhook for c in answered)


async def test_polling_a_busy_group_does_not_delay_another_chat(redis_server_url: str) -> None:
    # A group far over its 20 a minute (counted in Redis, never waited for in a handler):
    # a private /help sent after all of it is answered while the group's replies wait.
    sim = TelegramSim(group_flood_per_minute=20)
    port = free_port()
    async with serve(build_sim_app(sim), port), polling_bot(port, redis_server_url):
        await until(lambda: any(c.method == "getUpdates" for c in sim.calls))
        updates, group, asked = Updates(), -4002, 150
        for i in range(asked):  # each from someone else: no one person is throttled
            sim.pending_updates.append(updates.message(TgUser(5000 + i, "P"), group, "/help"))
        nika = TgUser(4001, "Nika")
        sim.pending_updates.append(updates.message(nika, nika.id, "/help"))
        await until(lambda: bool(sim.messages(nika.id)))
        marker = sim.messages(nika.id)[0].text[:40]
        answered = sum(m.text.count(marker) for m in sim.messages(group))
        assert answered < asked
        # The group's replies fill the minute up to their share of it (the rest is kept for
        # the game's messages and its end), and no further.
        share = group_caps(safe_group_limit(20))[REPLY]
        await until(lambda: len(sim.messages(group)) >= share)
        assert len(sim.messages(group)) == share
        assert not [c for c in sim.calls_to(group) if c.status == 429]
