"""Telegram calls per turn and per game, the busiest minute in the group, and 429s.

Plays 6-player games through the real webhook app and Redis against the simulated Bot API,
each decision taken by a fixed policy on the player's own button, and counts every Bot API
call. Run: `python bench/calls.py [--games 3] [--group-rate 20]`.
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

from tests.redis_server import redis_url
from tests.resilience.test_kill9 import play_one, policy
from tests.telegram_sim.harness import TgUser, running_bot
from tgbot.engine import Game
from tgbot.engine.events import TurnStarted


def busiest_minute(times: list[float]) -> int:
    """The most calls in any 60-second window."""
    best = 0
    start = 0
    for end, t in enumerate(times):
        while t - times[start] > 60:
            start += 1
        best = max(best, end - start + 1)
    return best


async def run(games: int, group_rate: int) -> None:
    with redis_url() as url:
        async with running_bot(url, group_rate=group_rate) as h:
            turns = 0
            for g in range(games):
                group = -(700_000 + g)
                users = [TgUser(80_000 + g * 10 + i, f"P{g}{i}") for i in range(6)]
                game_id = await play_one(h, group, users)
                record = await h.record(game_id)
                assert record is not None and record.seed is not None
                replay, events = Game.new([u.id for u in users], record.seed)
                while not replay.over:
                    player = replay.awaiting().players[0]
                    events += replay.apply(player, policy(replay, player))
                turns += sum(isinstance(e, TurnStarted) for e in events)
            await asyncio.sleep(2)  # let the last deliveries land
            game_calls = [
                c
                for c in h.sim.calls
                if c.method not in ("getMe", "setWebhook", "setMyCommands", "deleteWebhook")
                and not (c.method == "sendMessage" and c.params.get("text", "").startswith("👋"))
            ]
            by_method = Counter(c.method for c in game_calls)
            groups = {-(700_000 + g) for g in range(games)}
            worst = max(
                busiest_minute(
                    sorted(
                        c.at
                        for c in h.sim.calls
                        if c.method in ("sendMessage", "editMessageText")
                        and c.status == 200
                        and int(c.params.get("chat_id", 0)) == group
                    )
                )
                for group in groups
            )
            too_many = sum(1 for c in h.sim.calls if c.status == 429)
            print(f"games: {games} (6 players), turns: {turns}")
            print(f"Bot API calls: {len(game_calls)} {dict(by_method)}")
            print(f"calls per turn: {len(game_calls) / turns:.2f} (target: at most 3)")
            requests = [c for c in game_calls if not c.via_webhook]
            print(
                f"  of which requests the bot made: {len(requests) / turns:.2f} per turn "
                f"(the rest rode in webhook responses: {len(game_calls) - len(requests)})"
            )
            print(f"calls per game: {len(game_calls) / games:.0f}")
            print(f"most group messages and edits in any 60 s: {worst} (target: at most 20)")
            print(f"429 answers: {too_many}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--group-rate", type=int, default=20, help="group messages a minute")
    args = parser.parse_args()
    print(f"machine: {platform.machine()} cpus={os.cpu_count()} python {platform.python_version()}")
    asyncio.run(run(args.games, args.group_rate))


if __name__ == "__main__":
    main()
