"""Redis commands for one Income press, everything it causes included (the update's
handling, the step, and the delivery of what it queued), counted with INFO commandstats.

A 2-player game is opened and started through the real webhook app against the simulated
Bot API; once it is quiet, the commands of `--idle` seconds with nothing happening (the
deadline and sweep loops) are counted, then those of the same time after one Income press;
the difference is the press's. Run: `python bench/press.py [--presses 5] [--idle 5]`.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("PTB_TIMEDELTA", "1")

import redis

from tests.bot.play import first_income_press, open_and_start, players
from tests.redis_server import redis_url
from tests.telegram_sim.harness import running_bot

NOT_COUNTED = ("info", "config", "cluster", "command", "client", "hello", "select")


def commands(server: redis.Redis) -> Counter[str]:
    """Calls per command so far."""
    rows = server.info("commandstats").items()
    return Counter(
        {
            name.removeprefix("cmdstat_"): int(row["calls"])
            for name, row in rows
            if not name.removeprefix("cmdstat_").startswith(NOT_COUNTED)
        }
    )


async def one_press(url: str, group: int, first_id: int, idle: float) -> Counter[str]:
    """The commands one Income press costs, idle loops subtracted."""
    server = redis.Redis.from_url(url)
    async with running_bot(url) as h:
        users = players(2, first_id=first_id)
        await open_and_start(h, users, group)
        await asyncio.sleep(1.0)  # the start's deliveries
        before = commands(server)
        await asyncio.sleep(idle)
        quiet = commands(server) - before
        _actor, update = first_income_press(h, users)
        before = commands(server)
        response = await h.post(update)
        assert response.status_code == 200
        await asyncio.sleep(idle)
        spent = commands(server) - before
    server.close()
    return spent - quiet


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--presses", type=int, default=5)
    parser.add_argument("--idle", type=float, default=5.0)  # the gauges loop's period
    args = parser.parse_args()
    print(f"machine: {platform.machine()} cpus={os.cpu_count()} python {platform.python_version()}")
    with redis_url() as url:
        totals = []
        for i in range(args.presses):
            spent = await one_press(url, -(400_000 + i), 40_000 + i * 10, args.idle)
            totals.append(sum(spent.values()))
            top = ", ".join(f"{c} {n}" for c, n in spent.most_common())
            print(f"press {i + 1}: {totals[-1]} commands ({top})")
    median = sorted(totals)[len(totals) // 2]
    print(f"one Income press: {min(totals)}-{max(totals)} Redis commands, median {median}")


if __name__ == "__main__":
    asyncio.run(main())
