"""Redis commands per delivered message while many outboxes wait for the bot's pace.

K games each queue M private messages (to a chat of their own) and all K deliveries run
at once in one process, sharing the bot's 30 calls a second (its queued share), as when
many busy games wait on Telegram's pace. For `--seconds` the Redis commands (INFO
commandstats, summed) and the messages the simulated Bot API took are counted: what a
waiting delivery costs besides its sends shows in commands per message as K grows.
Real Redis, the real python-telegram-bot stack and rate limiter, the simulated Bot API.
Run: `python bench/outbox_busy.py [--games 10,200] [--messages 20] [--seconds 10]`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import platform
import sys
import time
from pathlib import Path

from tgbot.contract.plan import Fallback

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("PTB_TIMEDELTA", "1")

from tests.redis_server import redis_url
from tests.telegram_sim.harness import free_port, serve
from tests.telegram_sim.server import TelegramSim, build_sim_app
from tgbot.bootstrap import make_bot
from tgbot.config import Config
from tgbot.contract.plan import Send
from tgbot.storage.clients import connect
from tgbot.storage.keys import Keys
from tgbot.storage.plan import Writes
from tgbot.storage.store import Store
from tgbot.telegram.sender import Sender


async def _nothing_moves(old_chat: int, new_chat: int) -> None:
    """No game follows a group here."""


async def _no_deadline(game_id: str, context: int, seconds: int) -> None:
    """No game's deadline waits for these messages."""


async def commands(store: Store) -> int:
    """Commands Redis has run so far (scripts' inner commands included)."""
    stats = await store.redis.info("commandstats")
    return sum(int(v["calls"]) for v in stats.values())


async def measure(
    url: str, sim: TelegramSim, port: int, games: int, messages: int, seconds: float
) -> tuple[float, float]:
    """(messages a second, Redis commands per message) with `games` deliveries waiting."""
    prefix = f"busy{games}x{time.time_ns() % 10**6}"
    config = Config(
        bot_token="123456:TEST-token",
        redis_url=url,
        api_base_url=f"http://127.0.0.1:{port}/bot",
        key_prefix=prefix,
        messages_per_second=30,
        private_messages_per_second=100_000,
    )
    store = Store(connect(url), Keys(prefix))
    bot = make_bot(config, store)
    await bot.initialize()
    sender = Sender(bot, store, _nothing_moves, _no_deadline, _nobody_refused)
    owners = [f"busy{games}g{i}" for i in range(games)]
    for i, owner in enumerate(owners):
        await store.redis.set(store.keys.game(owner), "{}")
        writes = Writes()
        for n in range(messages):
            # A reference each, so that no two are joined into one message.
            chat = 700_000 + games * 1000 + i
            writes.send(owner, Send(chat, f"message {n}", ref=f"m{n}").to_op())
        await store.commits.commit(writes)
    tasks = [asyncio.create_task(sender.flush(owner)) for owner in owners]
    await asyncio.sleep(2)  # every delivery under way
    before, sent_before = await commands(store), len(sim.calls)
    await asyncio.sleep(seconds)
    ran, sent = await commands(store) - before, len(sim.calls) - sent_before
    for task in tasks:
        task.cancel()
    for task in tasks:
        with contextlib.suppress(BaseException):
            await task
    await bot.shutdown()
    await store.redis.aclose()
    return sent / seconds, ran / max(1, sent)


async def main(games: list[int], messages: int, seconds: float) -> None:
    """Print one row per number of waiting games."""
    print(f"machine: {platform.machine()} cpus={os.cpu_count()} python {platform.python_version()}")
    sim, port = TelegramSim(), free_port()
    with redis_url() as url:
        async with serve(build_sim_app(sim), port):
            print("| games waiting | messages/s | Redis commands per message |")
            print("|---:|---:|---:|")
            for k in games:
                rate, per = await measure(url, sim, port, k, messages, seconds)
                print(f"| {k} | {rate:.1f} | {per:.1f} |")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", default="10,200")
    parser.add_argument("--messages", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=10)
    args = parser.parse_args()
    asyncio.run(main([int(g) for g in args.games.split(",")], args.messages, args.seconds))


async def _nobody_refused(game_id: str, user_id: int, fallback: Fallback | None) -> None:
    raise AssertionError(f"no private message of {game_id} is refused here ({user_id})")
