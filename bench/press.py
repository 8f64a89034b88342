"""Redis commands for one Income press, split into (a) the hot path, what the webhook
request waits for, and (b) the delivery beside it; counted with INFO commandstats.

A 2-player game is opened and started through the real webhook app against the simulated
Bot API; once it is quiet, the commands of `--idle` seconds with nothing happening (the
deadline and sweep loops) are counted. Then one Income press is posted with the step's
delivery held back: the commands from the post to its answer are (a). The held delivery is
then let go, and the commands of the next `--idle` seconds, less the idle ones, are (b).
(a) is also counted on the client: commands sent (a script call is one, its commands run
inside Redis are not) and round trips (a pipeline is one, on a cluster too: its nodes'
parts go out side by side). With `--cluster`, the same on a private 3-master Redis Cluster
(commands summed over its primaries). Run:
`python bench/press.py [--presses 5] [--idle 5] [--cluster]`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextvars
import os
import platform
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("PTB_TIMEDELTA", "1")

from redis.asyncio import Redis
from redis.asyncio.client import Pipeline
from redis.asyncio.cluster import ClusterPipeline, RedisCluster

from bench.cluster import commands, nodes
from tests.bot.play import first_income_press, open_and_start, players
from tests.redis_server import redis_cluster_url, redis_url
from tests.telegram_sim.harness import running_bot
from tgbot.telegram.deliveries import Deliveries
from tgbot.telegram.handlers import Dispatcher

# The deadline loop's and the sweeper's look at their buckets (8 each, every 0.25 s and
# every sweep): neither a press nor its delivery sends it, so it is also shown apart.
POLL = "zrangebyscore"

_hot: contextvars.ContextVar[bool] = contextvars.ContextVar("hot", default=False)
sent: Counter[str] = Counter()  # the hot path's client-side commands and round trips
held: list[tuple[Deliveries, str]] = []


def instrument() -> None:
    """Count the hot path's commands and round trips on the client; hold deliveries."""
    execute_command = Redis.execute_command
    pipe_execute = Pipeline.execute
    process = Dispatcher.process

    async def counted_command(self: Any, *args: Any, **options: Any) -> Any:
        if _hot.get():
            sent["round trips"] += 1
            sent[f"sent {str(args[0]).lower()}"] += 1
        return await execute_command(self, *args, **options)

    async def counted_pipe(self: Any, *args: Any, **options: Any) -> Any:
        if _hot.get() and self.command_stack:
            sent["round trips"] += 1
            for cmd, _ in self.command_stack:
                sent[f"sent {str(cmd[0]).lower()}"] += 1
        return await pipe_execute(self, *args, **options)

    async def hot_process(self: Dispatcher, update: Any) -> Any:
        _hot.set(True)
        return await process(self, update)

    async def hold(self: Deliveries, owner: str) -> None:
        held.append((self, owner))

    cluster_command = RedisCluster.execute_command
    cluster_pipe = ClusterPipeline.execute

    async def counted_cluster_command(self: Any, *args: Any, **options: Any) -> Any:
        if _hot.get():
            sent["round trips"] += 1
            sent[f"sent {str(args[0]).lower()}"] += 1
        return await cluster_command(self, *args, **options)

    async def counted_cluster_pipe(self: Any, *args: Any, **options: Any) -> Any:
        stack = getattr(self._execution_strategy, "_command_queue", [])
        if _hot.get() and stack:
            sent["round trips"] += 1
            for cmd in stack:
                sent[f"sent {str(cmd.args[0]).lower()}"] += 1
        return await cluster_pipe(self, *args, **options)

    Redis.execute_command = counted_command  # type: ignore[method-assign]
    Pipeline.execute = counted_pipe  # type: ignore[method-assign]
    RedisCluster.execute_command = counted_cluster_command  # type: ignore[method-assign]
    ClusterPipeline.execute = counted_cluster_pipe  # type: ignore[method-assign]
    Dispatcher.process = hot_process  # type: ignore[method-assign]
    Deliveries.commit = hold  # type: ignore[method-assign]


async def one_press(
    url: str, group: int, first_id: int, idle: float
) -> tuple[Counter[str], Counter[str], Counter[str], float]:
    """(a) the hot path's commands, (b) delivery's, the client's count of (a), ms to answer."""
    server = nodes(url)
    async with running_bot(url) as h:
        users = players(2, first_id=first_id)
        await open_and_start(h, users, group)
        for deliveries, owner in held:  # the start's deliveries, as usual
            await deliveries.deliver(owner)
        held.clear()
        await asyncio.sleep(1.0)
        before = commands(server)
        await asyncio.sleep(idle)
        quiet = commands(server) - before
        _actor, update = first_income_press(h, users)
        sent.clear()
        before = commands(server)
        started = time.perf_counter()
        response = await h.post(update)
        took = (time.perf_counter() - started) * 1000
        hot = commands(server) - before
        client = Counter(sent)
        assert response.status_code == 200
        before = commands(server)
        for deliveries, owner in held:
            await deliveries.deliver(owner)
        held.clear()
        await asyncio.sleep(idle)
        delivery = commands(server) - before - quiet
    for node in server:
        node.close()
    return hot, delivery, client, took


def _line(spent: Counter[str]) -> str:
    return f"{sum(spent.values())} ({', '.join(f'{c} {n}' for c, n in spent.most_common())})"


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--presses", type=int, default=5)
    parser.add_argument("--idle", type=float, default=5.0)  # the gauges loop's period
    parser.add_argument("--cluster", action="store_true", help="on a 3-master Redis Cluster")
    args = parser.parse_args()
    print(f"machine: {platform.machine()} cpus={os.cpu_count()} python {platform.python_version()}")
    instrument()
    hots, deliveries, trips, sends = [], [], [], []
    hots_own: list[int] = []
    deliveries_own: list[int] = []
    print("backend:", "Redis Cluster, 3 masters" if args.cluster else "one Redis")
    with redis_cluster_url() if args.cluster else redis_url() as url:
        for i in range(args.presses):
            hot, delivery, client, took = await one_press(
                url, -(400_000 + i), 40_000 + i * 10, args.idle
            )
            hots.append(sum(hot.values()))
            deliveries.append(sum(delivery.values()))
            hots_own.append(sum(hot.values()) - hot[POLL])
            deliveries_own.append(sum(delivery.values()) - delivery[POLL])
            trips.append(client["round trips"])
            sends.append(sum(n for c, n in client.items() if c.startswith("sent ")))
            print(f"press {i + 1}: answered in {took:.1f} ms")
            print(f"  (a) hot path, server: {_line(hot)}")
            print(f"  (a) hot path, client: {_line(client)}")
            print(f"  (b) delivery, server: {_line(delivery)}")

    def span(values: list[int]) -> str:
        return f"{min(values)}-{max(values)}, median {sorted(values)[len(values) // 2]}"

    print(f"(a) hot path: Redis commands {span(hots)}; sent {span(sends)}")
    print(f"(a) less the loops' polls: {span(hots_own)}")
    print(f"(a) hot path: round trips {span(trips)}")
    print(f"(b) delivery: Redis commands {span(deliveries)}")
    print(f"(b) less the loops' polls: {span(deliveries_own)}")
    totals = [a + b for a, b in zip(hots, deliveries, strict=True)]
    print(f"one Income press, all: {span(totals)} Redis commands")


if __name__ == "__main__":
    asyncio.run(main())
