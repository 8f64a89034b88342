"""Steps per second and Redis commands per step on one Redis and on a 3-master Redis
Cluster, in the same run; then the busiest single key's share of all commands.

Each backend gets a fresh server (or cluster) of its own. Two webhook instances of the bot
(in this process, each with its own bot object and Redis client) share the games, which
are played through the real webhook stack against the simulated Bot API by the kill -9
test's policy. Commands are counted with INFO commandstats over every node (commands a Lua
script runs count too, as Redis counts them); a step is one new revision of a game record.
The busiest key comes from MONITOR on every node while `--key-games` games are played.
Run: `python bench/cluster.py [--games 12] [--key-games 50]`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import platform
import sys
import threading
import time
from collections import Counter
from contextlib import ExitStack
from pathlib import Path

import redis

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("PTB_TIMEDELTA", "1")

from tests.redis_server import cluster_url, redis_cluster_url, redis_url
from tests.resilience.test_kill9 import play_one
from tests.telegram_sim.harness import TgUser, running_bot

# What the bench itself, or a client's start, sends: not the bot's work.
NOT_COUNTED = ("info", "config", "cluster", "command", "client", "hello", "monitor", "select")


def nodes(url: str) -> list[redis.Redis]:
    """A client for every primary of a cluster, or for the one server."""
    if not cluster_url(url):
        return [redis.Redis.from_url(url)]
    cluster = redis.RedisCluster.from_url(url)
    found = [redis.Redis(host=n.host, port=n.port) for n in cluster.get_primaries()]
    cluster.close()
    return found


def commands(servers: list[redis.Redis]) -> Counter[str]:
    """Calls per command, summed over the nodes."""
    total: Counter[str] = Counter()
    for server in servers:
        for name, row in server.info("commandstats").items():
            command = name.removeprefix("cmdstat_")
            if not command.startswith(NOT_COUNTED):
                total[command] += int(row["calls"])
    return total


class KeyCounter:
    """Counts the commands per key that MONITOR shows on every node (script bodies too)."""

    def __init__(self, servers: list[redis.Redis]) -> None:
        self.keys: Counter[str] = Counter()
        self.total = 0
        self._stop = False
        self._lock = threading.Lock()
        self._threads = [
            threading.Thread(target=self._watch, args=(s,), daemon=True) for s in servers
        ]

    def __enter__(self) -> KeyCounter:
        for t in self._threads:
            t.start()
        time.sleep(0.3)
        return self

    def __exit__(self, *_: object) -> None:
        self._stop = True

    def _watch(self, server: redis.Redis) -> None:
        with contextlib.suppress(redis.ConnectionError), server.monitor() as monitor:
            for entry in monitor.listen():
                if self._stop:
                    return
                parts = entry["command"].split(" ")
                name = parts[0].lower()
                if name.startswith(NOT_COUNTED) or name in ("evalsha", "eval", "exec", "multi"):
                    continue  # a script's own commands are shown one by one
                with self._lock:
                    self.total += 1
                    if len(parts) > 1:
                        self.keys[parts[1]] += 1


async def play(url: str, games: int, first_user: int) -> tuple[int, float]:
    """Play `games` games on two instances of the bot; return (steps, seconds)."""
    async with running_bot(url, instances=2, messages_per_second=1000) as h:
        urls = h.urls  # type: ignore[attr-defined]
        tables = []
        for g in range(games):
            users = [TgUser(first_user + g * 10 + j, f"P{g}{j}") for j in range(3 + g % 3)]
            tables.append((-(first_user + g), users))
        started = time.perf_counter()

        async def one(i: int, group: int, users: list[TgUser]) -> str:
            h.url = urls[i % 2]  # type: ignore[misc]
            return await play_one(h, group, users)

        ids = await asyncio.gather(*(one(i, g, u) for i, (g, u) in enumerate(tables)))
        seconds = time.perf_counter() - started
        steps = 0
        for game_id in ids:
            record = await h.record(game_id)
            assert record is not None and record.status == "over"
            steps += record.rev
        await asyncio.sleep(1.0)  # the last deliveries
    return steps, seconds


async def measure(name: str, url: str, games: int, first_user: int) -> None:
    servers = nodes(url)
    before = commands(servers)
    steps, seconds = await play(url, games, first_user)
    spent = commands(servers) - before
    calls = sum(spent.values())
    scripts = spent["evalsha"] + spent["eval"]
    print(
        f"{name}: {len(servers)} node(s), {games} games, {steps} steps in {seconds:.1f} s: "
        f"{steps / seconds:.1f} steps/s, {calls / steps:.1f} commands per step "
        f"(of which {scripts / steps:.1f} script calls)"
    )
    top = ", ".join(f"{c} {n / steps:.1f}" for c, n in spent.most_common(8))
    print(f"  per step: {top}")


async def busiest(url: str, games: int) -> None:
    with KeyCounter(nodes(url)) as counter:
        await play(url, games, 600_000)
        time.sleep(0.5)
    key, n = counter.keys.most_common(1)[0]
    print(
        f"busiest key with 2 instances and {games} games: {key} takes {n} of "
        f"{counter.total} commands ({100 * n / counter.total:.1f} %)"
    )
    for k, c in counter.keys.most_common(6)[1:]:
        print(f"  then {k}: {100 * c / counter.total:.1f} %")


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=12)
    parser.add_argument("--key-games", type=int, default=50)
    args = parser.parse_args()
    print(f"machine: {platform.machine()} cpus={os.cpu_count()} python {platform.python_version()}")
    with ExitStack() as stack:
        single = stack.enter_context(redis_url())
        cluster = stack.enter_context(redis_cluster_url())
        if args.games:
            await measure("one Redis", single, args.games, 100_000)
            await measure("Redis Cluster", cluster, args.games, 200_000)
        if args.key_games:
            await busiest(cluster, args.key_games)


if __name__ == "__main__":
    asyncio.run(main())
