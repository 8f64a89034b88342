"""Bytes per kept game record, and the time to replay and to count one (issue 19).

Games are played by the AI on every seat (as long as real games, unlike random play), noted
move by move as the bot does, archived, and stored in Redis with the record's TTL; Redis's
MEMORY USAGE gives what each costs there. Then every record is replayed by the engine and
counted on the boards and in the stats (each once).

Run: `python bench/records.py [--games 2000]` (uses REDIS_URL, else a private redis-server).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import random
import statistics
import tempfile
import time
from pathlib import Path

from redis.asyncio import Redis

from tgbot.ai import choose
from tgbot.config import DEFAULT_LOCALES
from tgbot.engine import Game, view_of
from tgbot.rendering.i18n import Catalogs
from tgbot.service.archive import archive_of, encode_archive, note_move, replay
from tgbot.service.history import History
from tgbot.service.records import GameRecord, Seat, Timing
from tgbot.storage.embedded import EmbeddedRedis
from tgbot.storage.keys import Keys
from tgbot.storage.store import Store


def ai_game(players: int, seed: int, game_id: str) -> dict:
    """One AI-only game, recorded as the bot records it; its archive."""
    record = GameRecord(
        id=game_id,
        chat_id=-1000 - seed % 50,
        thread_id=None,
        lang="ka",
        creator=1,
        timing=Timing(90, 30, 45, 60, 120, 2),
        players=[Seat(10_000 + seed % 97 * 7 + i, f"მოთამაშე {i}", "ka") for i in range(players)],
        seed=seed,
        created_ms=1_700_000_000_000,
    )
    game, _ = Game.new([s.id for s in record.players], seed, afk_limit=2)
    rng = random.Random(seed)
    now = record.created_ms
    while not game.over:
        player = rng.choice(game.awaiting().players)
        decision = choose(view_of(game, player), rng)
        game.apply(player, decision)
        now += rng.randint(2_000, 20_000)
        note_move(record, now, player, decision)
    return archive_of(record, game, now)


async def main() -> None:
    """Measure and print."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=2000)
    args = parser.parse_args()
    print(f"machine: {platform.machine()} cpus={os.cpu_count()} python {platform.python_version()}")
    url = os.environ.get("REDIS_URL")
    server = None
    if not url:
        server = EmbeddedRedis(Path(tempfile.mkdtemp(prefix="coup-bench-")), persistent=False)
        url = server.start()
    redis = Redis.from_url(url, decode_responses=True)
    try:
        store = Store(redis, Keys(f"bench{int(time.time())}"))

        async def nothing(_: str) -> None:
            return None

        history = History(store, Catalogs(DEFAULT_LOCALES), nothing)
        by_size: dict[int, list[int]] = {}
        memory: dict[int, list[int]] = {}
        archives = []
        for i in range(args.games):
            players = 2 + i % 5
            archive = ai_game(players, i, f"g{i:09d}")
            archives.append(archive)
            raw = encode_archive(archive)
            key = history.records.keys.archive(archive["id"])
            await redis.set(key, raw, ex=history.record_ttl_s)
            by_size.setdefault(players, []).append(len(raw.encode()))
            memory.setdefault(players, []).append(int(await redis.memory_usage(key) or 0))
        print("players | JSON bytes per record (mean, max) | Redis MEMORY USAGE (mean) | moves")
        for players in sorted(by_size):
            sizes, used = by_size[players], memory[players]
            moves = statistics.mean(
                len(a["moves"].split()) for a in archives if len(a["players"]) == players
            )
            print(
                f"{players} | {statistics.mean(sizes):.0f}, {max(sizes)} | "
                f"{statistics.mean(used):.0f} | {moves:.0f}"
            )
        every = [b for sizes in memory.values() for b in sizes]
        print(
            f"all: {statistics.mean(every):.0f} B per record in Redis; 30 days of 1,000 games a "
            f"day: {statistics.mean(every) * 30_000 / 1e6:.1f} MB"
        )
        started = time.perf_counter()
        for archive in archives:
            replay(archive)
        per = (time.perf_counter() - started) / len(archives) * 1000
        print(f"replay by the engine: {per:.2f} ms per game")
        started = time.perf_counter()
        for archive in archives:
            await history.settle(archive)
        per = (time.perf_counter() - started) / len(archives) * 1000
        print(f"count (2 boards + each person's stats, once each): {per:.2f} ms per game")
        started = time.perf_counter()
        for archive in archives[:200]:
            await history.settle(archive)
        per = (time.perf_counter() - started) / 200 * 1000
        print(f"count again (already counted: no-op): {per:.2f} ms per game")
    finally:
        await redis.aclose()
        if server:
            server.stop()


if __name__ == "__main__":
    asyncio.run(main())
