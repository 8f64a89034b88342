"""Redis bytes per game in progress (MEMORY USAGE), over many games.

Run: `python bench/memory.py [--games 10000]` (uses REDIS_URL, else a private redis-server).
Games are opened, started and played a few random decisions through the game service,
without Telegram; the undelivered outboxes are then emptied, as the sender would.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import random
import sys
import tempfile
import time
from pathlib import Path

from redis.asyncio import Redis

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tgbot.config import DEFAULT_LOCALES, Deadlines
from tgbot.rendering import buttons
from tgbot.rendering.i18n import Catalogs
from tgbot.service.game_service import GameService
from tgbot.service.results import Person
from tgbot.storage.embedded import EmbeddedRedis
from tgbot.storage.keys import Keys
from tgbot.storage.store import Store

GEORGIAN_NAMES = ["ნიკა", "ანა", "გიორგი", "მარიამ", "ლევანი", "თამარი"]


async def make_games(service: GameService, games: int, rng: random.Random) -> list[str]:
    ids = []
    for g in range(games):
        chat = -(10_000_000 + g)
        people = [
            Person(1_000_000 + g * 10 + i, GEORGIAN_NAMES[i], "ka")
            for i in range(rng.randint(3, 6))
        ]
        for p in people:
            await service.store.set_user_prefs(p.id, dm="1", lang="ka", name=p.name)
        await service.new_game(chat, None, people[0])
        game_id = await service.store.get(service.keys.chat_game(chat))
        assert game_id
        for p in people[1:]:
            await service.join(game_id, p)
        await service.start_game(game_id, people[0])
        for _ in range(rng.randint(0, 6)):
            record = await service.game_of_chat(chat)
            if record is None or record.status != "playing":
                break
            game = record.game()
            waiting = game.awaiting()
            if waiting.kind is None:
                break
            pid = waiting.players[0]
            decision = rng.choice(game.legal_decisions(pid))
            person = next(p for p in people if p.id == pid)
            data = buttons.pack(
                game_id,
                record.context,
                buttons.encode_decision(decision, [p.id for p in game.players]),
            )
            await service.press(person, data, chat_id=person.id)
        ids.append(game_id)
    return ids


async def measure(redis: Redis, service: GameService, ids: list[str]) -> None:
    keys = service.keys
    for game_id in ids:  # the sender empties outboxes and remembers ~1 message per player
        await redis.delete(keys.outbox(game_id))
        record = await service.store.get_json(keys.game(game_id))
        for i, seat in enumerate(record["players"]):
            await service.store.remember_message(game_id, f"prompt:{seat['id']}", 1000 + i)
        await service.store.remember_message(game_id, "lobby", 999)
    record_bytes = games_bytes = 0
    for game_id in ids:
        record_bytes += await redis.memory_usage(keys.game(game_id)) or 0
        games_bytes += await redis.memory_usage(keys.messages(game_id)) or 0
        record = await service.store.get_json(keys.game(game_id))
        games_bytes += await redis.memory_usage(keys.chat_game(record["chat_id"])) or 0
        for seat in record["players"]:
            games_bytes += await redis.memory_usage(keys.user_game(seat["id"])) or 0
    total = record_bytes + games_bytes
    n = len(ids)
    info = await redis.info("memory")
    print(f"games in progress: {n}")
    print(f"game record (MEMORY USAGE): {record_bytes / n:.0f} bytes per game")
    print(f"record + message ids + chat/user indexes: {total / n:.0f} bytes per game")
    print(
        f"used_memory of the server: {info['used_memory'] / n:.0f} bytes per game "
        "(includes the per-user preference hashes and the deadline set)"
    )
    print(f"target: at most 4096 bytes per game -> {'met' if total / n <= 4096 else 'MISSED'}")


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=10_000)
    args = parser.parse_args()
    print(f"machine: {platform.machine()} cpus={os.cpu_count()} python {platform.python_version()}")
    url = os.environ.get("REDIS_URL")
    server = None
    if not url:
        server = EmbeddedRedis(Path(tempfile.mkdtemp(prefix="coup-bench-")), persistent=False)
        url = server.start()
    redis = Redis.from_url(url)
    try:
        store = Store(redis, Keys(f"bench{int(time.time())}"))
        service = GameService(store, Catalogs(DEFAULT_LOCALES), Deadlines(), "coup_bench_bot")
        started = time.perf_counter()
        ids = await make_games(service, args.games, random.Random(1))
        print(f"created {len(ids)} games in {time.perf_counter() - started:.1f} s")
        await measure(redis, service, ids)
    finally:
        await redis.aclose()
        if server:
            server.stop()


if __name__ == "__main__":
    asyncio.run(main())
