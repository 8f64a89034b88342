"""Telegram calls per turn and per game, the busiest minute in the group, and 429s.

Plays 6-player games through the real webhook app and Redis against the simulated Bot API,
each decision taken by a fixed policy on the player's own button, and counts every Bot API
call. Run: `python bench/calls.py [--games 3] [--group-rate 20] [--pace 1.5-5]`.
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
from tgbot import metrics
from tgbot.config import Config
from tgbot.engine import Game
from tgbot.engine.events import TurnStarted

ANSWER_HOLD_MS = Config(bot_token="1:x").answer_edit_hold_ms  # the production default


def busiest_minute(times: list[float]) -> int:
    """The most calls in any 60-second window."""
    best = 0
    start = 0
    for end, t in enumerate(times):
        while t - times[start] > 60:
            start += 1
        best = max(best, end - start + 1)
    return best


async def run(games: int, group_rate: int, pace: tuple[float, float] | None) -> None:
    # (chat, optional, seconds since the oldest state it carries was queued)
    lags: list[tuple[int, bool, float]] = []
    observe = metrics.observe_delivery

    def watch(chat: int, optional: bool, queued_ms: int | None, now_ms: int) -> None:
        observe(chat, optional, queued_ms, now_ms)
        if queued_ms is not None:
            lags.append((chat, optional, (now_ms - queued_ms) / 1000))

    metrics.observe_delivery = watch  # the sender calls it for every message it delivers
    with redis_url() as url:
        async with running_bot(url, group_rate=group_rate, hold_ms=ANSWER_HOLD_MS) as h:
            turns = 0
            groups = [-(700_000 + g) for g in range(games)]
            for g, group in enumerate(groups):
                users = [TgUser(80_000 + g * 10 + i, f"P{g}{i}") for i in range(6)]
                game_id = await play_one(h, group, users, pace)
                record = await h.record(game_id)
                assert record is not None and record.seed is not None
                replay, events = Game.new([u.id for u in users], record.seed)
                while not replay.over:
                    player = replay.awaiting().players[0]
                    events += replay.apply(player, policy(replay, player))
                turns += sum(isinstance(e, TurnStarted) for e in events)
            await asyncio.sleep(3)  # let the last deliveries land
            game_calls = [
                c
                for c in h.sim.calls
                if c.method not in ("getMe", "setWebhook", "setMyCommands", "deleteWebhook")
                and not (c.method == "sendMessage" and c.params.get("text", "").startswith("👋"))
            ]
            by_method = Counter(c.method for c in game_calls)
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
            messages = Counter(
                ("group" if int(c.params.get("chat_id", 0)) in groups else "private", c.method)
                for c in game_calls
                if c.method in ("sendMessage", "editMessageText") and c.status == 200
            )
            too_many = sum(1 for c in h.sim.calls if c.status == 429)
            unanswered = sum(
                1 for c in h.sim.calls if c.method == "answerCallbackQuery" and c.status != 200
            )
            print(f"games: {games} (6 players), turns: {turns}, pace: {pace or 'machine'}")
            print(f"Bot API calls: {len(game_calls)} {dict(by_method)}")
            sent_or_edited = sum(messages.values())
            print(
                f"messages sent or edited per turn, all chats: {sent_or_edited / turns:.2f} "
                "(target: at most 6; press answers not counted)"
            )
            for (where, method), n in sorted(messages.items()):
                print(f"  {where} {method}: {n / turns:.2f} per turn")
            print(f"calls per turn (press answers too): {len(game_calls) / turns:.2f}")
            print(f"calls per game: {len(game_calls) / games:.0f}")
            print(f"most group messages and edits in any 60 s: {worst} (target: at most 20)")
            for optional in (False, True):
                group_lags = sorted(
                    lag for chat, opt, lag in lags if chat in groups and opt == optional
                )
                if group_lags:
                    p50 = group_lags[len(group_lags) // 2]
                    p99 = group_lags[int(0.99 * (len(group_lags) - 1))]
                    kind = (
                        "optional edits (who may still answer, the lobby list)"
                        if optional
                        else "the rest"
                    )
                    print(
                        f"group behind the game, {kind}: max {group_lags[-1]:.2f} s, "
                        f"p99 {p99:.2f} s, p50 {p50:.2f} s, n={len(group_lags)}"
                    )
            print(f"429 answers: {too_many}, failed press answers: {unanswered}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--group-rate", type=int, default=20, help="group messages a minute")
    parser.add_argument(
        "--pace",
        default="",
        help="human pace: seconds between presses, as LOW-HIGH (say 1.5-5); default: at once",
    )
    args = parser.parse_args()
    pace = tuple(float(x) for x in args.pace.split("-")) if args.pace else None
    print(f"machine: {platform.machine()} cpus={os.cpu_count()} python {platform.python_version()}")
    asyncio.run(run(args.games, args.group_rate, pace))  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
