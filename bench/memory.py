"""Redis bytes per game in progress and left behind by a finished game, over many games.

Run: `python bench/memory.py [--games 10000] [--finished 1000]` (REDIS_URL, else a private
redis-server). Games are opened, joined, started and played through the game service,
without Telegram, each update marked the way the webhook handler marks it (the chat's
latest update ids) and each game's (its record's); the outboxes are then emptied and ~1
message id per player remembered, as the sender would. Answers to a claim are pressed
where the bot offers them (the group's turn message, or the prompt if the group answers in
private); a press that changes nothing, or a game not over after MAX_MOVES decisions, stops
the bench with an error (Stuck) rather than loop. Every key under the bench's prefix
is weighed with MEMORY USAGE. For finished games, what is left after 24 h is every key
without a TTL or with more than 24 h to live, less the stats (kept for good by design).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import os
import platform
import random
import re
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tgbot.config import DEFAULT_LOCALES, Config
from tgbot.contract import callbacks
from tgbot.engine import DecisionKind
from tgbot.rendering.i18n import Catalogs
from tgbot.service.game_service import GameService, ServiceSettings
from tgbot.service.results import Person
from tgbot.storage.clients import Client, open_client
from tgbot.storage.commit import Duplicate
from tgbot.storage.embedded import EmbeddedRedis
from tgbot.storage.keys import Keys
from tgbot.storage.store import Store

GEORGIAN_NAMES = ["ნიკა", "ანა", "გიორგი", "მარიამ", "ლევანი", "თამარი"]
DAY_S = 24 * 3600
_updates = itertools.count(1)


# A game played to its end takes ~50 decisions; one that takes this many is stuck.
MAX_MOVES = 2_000


class Stuck(RuntimeError):
    """A game of the bench made no progress: the bench stops rather than loop."""


async def handled(store: Store, chat_id: int, call: object) -> object:
    """Run one service call as the handler would: the update taken, applied, marked; its
    result (None for a duplicate)."""
    result = None
    async with store.update(chat_id, next(_updates)) as handling:
        assert not handling.applied_before
        with contextlib.suppress(Duplicate):
            result = await call(handling)  # type: ignore[operator]
    return result


async def make_game(
    service: GameService, g: int, rng: random.Random, moves: int | None
) -> tuple[str, int]:
    """One game, `moves` decisions in (None: to its end); (game id, chat)."""
    store = service.store
    chat = -(10_000_000 + g)
    people = [
        Person(1_000_000 + g * 10 + i, GEORGIAN_NAMES[i], "ka") for i in range(rng.randint(3, 6))
    ]
    for p in people:
        await store.prefs.set_user_prefs(p.id, dm="1", lang="ka", name=p.name)
    await handled(store, chat, lambda u: service.lobby.new_game(chat, None, people[0], u))
    game_id = await store.commits.get(service.store.keys.chat_game(chat))
    assert game_id
    for p in people[1:]:
        await handled(store, chat, lambda u, p=p: service.lobby.join(game_id, p, u))
    await handled(store, chat, lambda u: service.lobby.start_game(game_id, people[0], u))
    # The sender delivers the lobby and the first prompts at once and notes their ids (a
    # group's under its chat, as the sender keeps them).
    ids = {f"lobby@{chat}": 999} | {f"prompt:{p.id}": 1000 + i for i, p in enumerate(people)}
    await store.outboxes.outbox_delivered(game_id, {}, ids)
    done = 0
    while moves is None or done < moves:
        record = await service.queries.game_of_chat(chat)
        if record is None or record.status != "playing":
            break
        game = record.game()
        waiting = game.awaiting()
        if waiting.kind is None:
            break
        if done >= MAX_MOVES:
            raise Stuck(f"game {game_id}: not over after {done} decisions")
        pid = waiting.players[0]
        decision = rng.choice(game.legal_decisions(pid))
        person = next(p for p in people if p.id == pid)
        data = callbacks.pack(
            game_id,
            record.context,
            callbacks.encode_decision(decision, [p.id for p in game.players]),
        )
        # Answers to a claim are pressed where the bot offers them: on the group's turn
        # message, unless the group answers in private (then in the prompt, as the rest).
        at_table = waiting.kind is DecisionKind.RESPONSE and record.answers != "private"
        where = chat if at_table else pid
        result = await handled(
            store,
            where,
            lambda u, p=person, d=data, c=where: service.play.press(p, d, u, chat_id=c),
        )
        after = await store.commits.get_json(service.store.keys.game(game_id))
        if after is None or after["rev"] == record.rev:
            raise Stuck(
                f"game {game_id}: {decision} by {pid} in chat {where} changed nothing: {result}"
            )
        done += 1
    return game_id, chat


async def _undelivered(owner: str) -> None:
    """Nothing is delivered here: the outboxes stay as the games left them."""


async def settle(service: GameService, game_id: str) -> None:
    """What the sender leaves: empty outboxes (their marks gone)."""
    store, keys = service.store, service.store.keys
    await store.outboxes.outbox_drop(game_id)
    record = await store.commits.get_json(keys.game(game_id))
    for chat in {record["chat_id"], *(s["id"] for s in record["players"])}:
        await store.outboxes.outbox_drop(f"c:{chat}")


def kind(key: str) -> str:
    """A key's kind: its name with ids replaced."""
    return re.sub(r"-?\d+", "N", re.sub(r"\{g:[a-z0-9]+\}", "{g:ID}", key.split(":", 1)[1]))


async def weigh(redis: Client, prefix: str) -> tuple[Counter[str], Counter[str], Counter[str]]:
    """Bytes per key kind: all, and of the keys still there after 24 h; keys per kind."""
    total: Counter[str] = Counter()
    lasting: Counter[str] = Counter()
    count: Counter[str] = Counter()
    async for key in redis.scan_iter(match=f"{prefix}:*", count=1000):
        size = await redis.memory_usage(key) or 0
        ttl = await redis.ttl(key)
        k = kind(key)
        total[k] += size
        count[k] += 1
        if ttl == -1 or ttl > DAY_S:
            lasting[k] += size
    return total, lasting, count


def table(title: str, sizes: Counter[str], count: Counter[str], n: int) -> float:
    print(title)
    for k, size in sizes.most_common():
        print(f"  {k:<42} {count[k]:>7} keys {size / n:>8.0f} bytes per game")
    per_game = sum(sizes.values()) / n
    keys = sum(count[k] for k in sizes)
    print(f"  {'all':<42} {keys:>7} keys {per_game:>8.0f} bytes per game")
    return per_game


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--finished", type=int, default=1_000)
    args = parser.parse_args()
    print(f"machine: {platform.machine()} cpus={os.cpu_count()} python {platform.python_version()}")
    url = os.environ.get("REDIS_URL")
    server = None
    if not url:
        server = EmbeddedRedis(Path(tempfile.mkdtemp(prefix="coup-bench-")), persistent=False)
        url = server.start()
    redis = await open_client(url)
    catalogs = Catalogs(DEFAULT_LOCALES)
    try:
        rng = random.Random(1)
        for label, games, moves in (
            ("in progress", args.games, None),
            ("finished", args.finished, None),
        ):
            prefix = f"bench{label[0]}{int(time.time())}"
            store = Store(redis, Keys(prefix))
            settings = ServiceSettings.from_config(Config(bot_token="1:x"), "coup_bench_bot")
            service = GameService(store, catalogs, settings, notify=_undelivered)
            started = time.perf_counter()
            ids = []
            for g in range(games):
                game_id, _ = await make_game(
                    service, g, rng, rng.randint(0, 6) if label == "in progress" else moves
                )
                await settle(service, game_id)
                ids.append(game_id)
            print(f"\n{label}: {len(ids)} games in {time.perf_counter() - started:.1f} s")
            total, lasting, count = await weigh(redis, prefix)
            if label == "in progress":
                per_game = table("every key, by kind:", total, count, len(ids))
                verdict = "met" if per_game <= 4096 else "MISSED"
                print(f"target: at most 4096 bytes per game in progress -> {verdict}")
            else:
                over = [await store.commits.get_json(service.store.keys.game(i)) for i in ids]
                assert all(r is not None and r["status"] == "over" for r in over)
                table("every key, by kind, right after the games:", total, count, len(ids))
                stats = Counter(
                    {
                        k: v
                        for k, v in lasting.items()
                        if k.startswith(("stats:", "{u:", "{r:")) or k.endswith(":archive")
                    }
                )
                prefs = Counter({k: v for k, v in lasting.items() if k.endswith(":prefs")})
                left = lasting - stats - prefs
                per_game = table(
                    "still there after 24 h, less stats and preferences:", left, count, len(ids)
                )
                table(
                    "  the stats, boards and kept game records (issue 19, kept by design):",
                    stats,
                    count,
                    len(ids),
                )
                table(
                    "  the players' preferences (a person's, not a game's):", prefs, count, len(ids)
                )
                verdict = "met" if per_game <= 1024 else "MISSED"
                print(f"target: at most 1024 bytes per finished game after 24 h -> {verdict}")
    finally:
        await redis.aclose()
        if server:
            server.stop()


if __name__ == "__main__":
    asyncio.run(main())
