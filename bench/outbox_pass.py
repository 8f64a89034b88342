"""What one delivery pass of a held-up outbox costs, by how much it holds.

A game's outbox holds N messages for a group whose minute is full (its window held, as
after a 429), half of them edits of the group's turn message and half new messages, and
one private message; a pass (`Sender.flush`) delivers the private one and defers the
group. After one pass to warm up, each pass is timed on the event loop (everything a pass
does in this process, Redis's answers included), and Redis's own time is read from INFO
commandstats. Real Redis, the real python-telegram-bot stack, the simulated Bot API.
Run: `python bench/outbox_pass.py [--sizes 10,1000,3000,10000] [--passes 5]`.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import statistics
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
from tgbot.contract.plan import Edit, Send
from tgbot.storage.clients import connect
from tgbot.storage.keys import Keys
from tgbot.storage.plan import Writes
from tgbot.storage.store import Store
from tgbot.telegram.sender import Sender


async def _nothing_moves(old_chat: int, new_chat: int) -> None:
    """No game follows a group here."""


async def _no_deadline(game_id: str, context: int, seconds: int) -> None:
    """No game's deadline waits for these messages."""


GROUP, PLAYER = -4242, 4242


async def redis_usec(store: Store) -> int:
    """Microseconds Redis has spent on commands so far."""
    stats = await store.redis.info("commandstats")
    return sum(int(v["usec"]) for v in stats.values())


async def measure(url: str, sim_port: int, size: int, passes: int) -> tuple[float, float]:
    """Median ms of a pass on the event loop and in Redis, with `size` held messages."""
    prefix = f"ob{size}x{time.time_ns() % 10**6}"
    config = Config(
        bot_token="123456:TEST-token",
        redis_url=url,
        api_base_url=f"http://127.0.0.1:{sim_port}/bot",
        key_prefix=prefix,
        group_messages_per_minute=20,
        private_messages_per_second=100_000,
    )
    store = Store(connect(url), Keys(prefix))
    bot = make_bot(config, store)
    await bot.initialize()
    sender = Sender(bot, store, _nothing_moves, _no_deadline, _nobody_refused)
    owner = f"bench{size}"
    await store.redis.set(store.keys.game(owner), "{}")
    await store.windows.hold_chat(GROUP, 3_600_000)  # the group's window: full for the whole run
    batch = 500
    for start in range(0, size, batch):
        writes = Writes()
        for i in range(start, min(size, start + batch)):
            if i % 2:
                op = Edit(
                    GROUP, "turn", f"turn state {i}", [[{"text": "Pass", "data": f"{owner}.{i}.P"}]]
                )
            else:
                op = Send(GROUP, f"line {i}")
            writes.send(owner, op.to_op())
        await store.commits.commit(writes)
    walls, usecs = [], []
    for n in range(-1, passes):  # pass -1 warms up (scripts loaded, connections made)
        writes = Writes()
        writes.send(owner, Send(PLAYER, f"private {n}").to_op())
        await store.commits.commit(writes)
        before = await redis_usec(store)
        started = time.perf_counter()
        await sender.flush(owner)
        if n >= 0:
            walls.append((time.perf_counter() - started) * 1000)
            usecs.append((await redis_usec(store) - before) / 1000)
    await bot.shutdown()
    await store.redis.aclose()
    return statistics.median(walls), statistics.median(usecs)


async def main(sizes: list[int], passes: int) -> None:
    """Print one row per outbox size."""
    print(f"machine: {platform.machine()} cpus={os.cpu_count()} python {platform.python_version()}")
    sim_port = free_port()
    with redis_url() as url:
        async with serve(build_sim_app(TelegramSim()), sim_port):
            print("| held messages | pass, event loop (ms) | pass, in Redis (ms) |")
            print("|---:|---:|---:|")
            for size in sizes:
                wall, in_redis = await measure(url, sim_port, size, passes)
                print(f"| {size:,} | {wall:.2f} | {in_redis:.2f} |")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="10,1000,3000,10000")
    parser.add_argument("--passes", type=int, default=5)
    args = parser.parse_args()
    asyncio.run(main([int(s) for s in args.sizes.split(",")], args.passes))


async def _nobody_refused(game_id: str, user_id: int, fallback: Fallback | None) -> None:
    raise AssertionError(f"no private message of {game_id} is refused here ({user_id})")
