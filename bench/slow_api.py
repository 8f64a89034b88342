"""Live duplicates under a slow Bot API: a share of Telegram's answers come seconds late.

Plays `--groups` 6-player games at once through the real webhook app and Redis against the
simulated Bot API, which takes every call at once but answers `--share` of them (chosen at
random, seeded) `--late` seconds later. A send whose answer the bot stops waiting for is
made again, so its chat shows it twice. Once every game is over and delivered, it counts:
the messages sent twice (copies sent with the same buttons), those copies that still show
live buttons (the game does not record their id, so nothing edits them), and the live
keyboards left on finished games (a game's buttons still shown, Play again aside).
`--read-timeout S` sets the sender's read timeout for sends (the default is the sender's
WRITE_READ_TIMEOUT_S; python-telegram-bot's own is 5 s), to compare.
Run: `python bench/slow_api.py [--groups 3] [--share 0.05] [--late 7] [--seed 1]
[--read-timeout 5]`.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("PTB_TIMEDELTA", "1")

from tests.redis_server import redis_url
from tests.resilience.test_kill9 import game_buttons, play_one
from tests.telegram_sim.harness import TgUser, running_bot
from tests.telegram_sim.server import TelegramSim
from tgbot.telegram import bot_calls


async def run(groups: int, share: float, late: float, seed: int) -> None:
    sim = TelegramSim()
    with redis_url() as url:
        async with running_bot(url, sim=sim) as h:
            sim.slow_share(share, late, seed)  # once the bot is up: its start is not timed
            chats = [-(730_000 + g) for g in range(groups)]
            tables = [
                [TgUser(83_000 + g * 10 + i, f"P{g}{i}") for i in range(6)] for g in range(groups)
            ]
            began = time.monotonic()
            ids = await asyncio.gather(
                *(play_one(h, chat, users) for chat, users in zip(chats, tables, strict=True))
            )
            played = time.monotonic() - began
            for game_id in ids:
                await h.delivered(game_id, 600)
            await asyncio.sleep(late + 2)  # answers still on their way land
            recorded: set[tuple[int, int]] = set()
            for game_id, chat in zip(ids, chats, strict=True):
                refs = await h.store.redis.hgetall(h.store.keys.messages(game_id))
                for ref, mid in refs.items():
                    name = str(ref)
                    where = int(name.split(":")[1]) if name.startswith("prompt:") else chat
                    recorded.add((where, int(mid)))
            copies = sim.copies()
            sent_twice = sum(len(g) - 1 for g in copies)
            live_copies = sum(
                1
                for g in copies
                for m in g
                if m.keyboard and (m.chat_id, m.message_id) not in recorded
            )
            finished = set(ids)
            live_on_finished = [
                m for chat in sim.chats for m in sim.messages(chat) if game_buttons(m) & finished
            ]
            calls = [c for c in sim.calls if c.method != "getUpdates"]
            print(
                f"{groups} groups x 6 players, {share:.0%} of answers {late:.0f} s late,"
                f" read timeout for sends {bot_calls.WRITE_READ_TIMEOUT_S:.0f} s, seed {seed}"
            )
            print(
                f"calls: {len(calls)}, answered late: {sim.slow_calls}; games played in"
                f" {played:.0f} s"
            )
            print(f"messages sent twice: {sent_twice}")
            print(f"  of them with live buttons nothing records: {live_copies} (target: 0)")
            print(f"live keyboards on finished games: {len(live_on_finished)} (target: 0)")
            for m in live_on_finished:
                print(f"  chat {m.chat_id} message {m.message_id}: {m.text[:60]!r}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--groups", type=int, default=3)
    parser.add_argument("--share", type=float, default=0.05, help="share of answers late")
    parser.add_argument("--late", type=float, default=7.0, help="seconds late")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--read-timeout", type=float, default=None, help="seconds, for sends")
    args = parser.parse_args()
    if args.read_timeout is not None:
        bot_calls.WRITE_READ_TIMEOUT_S = args.read_timeout
    print(f"machine: {platform.machine()} cpus={os.cpu_count()} python {platform.python_version()}")
    asyncio.run(run(args.groups, args.share, args.late, args.seed))


if __name__ == "__main__":
    main()
