"""Webhook throughput and latency: our bot beside a bare python-telegram-bot handler.

Four processes: the bot (the real webhook app with a real Redis), the simulated Bot API,
a bare handler that only answers the callback, and this load generator. The generator
plays many games at once: it reads each game's state from Redis, picks the next player's
decision, and posts the button press that player would send, timing each request until its
response. Then it stops the bot (so its backlog of sends does not share the machine) and
sends the same number of workers' presses to the bare handler. Button presses and commands
are also reported apart: a command's reply is sent before its update is answered.
Run: `python bench/webhook.py [--games 40] [--seconds 20] [--messages-per-second 30]`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import os
import platform
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
from redis.asyncio import Redis

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.redis_server import redis_url  # noqa: E402
from tests.telegram_sim.harness import SECRET, free_port  # noqa: E402
from tgbot.engine import Game  # noqa: E402
from tgbot.rendering import buttons  # noqa: E402
from tgbot.service.records import GameRecord  # noqa: E402
from tgbot.storage.keys import Keys  # noqa: E402

HEADERS = {"X-Telegram-Bot-Api-Secret-Token": SECRET}
update_ids = itertools.count(1)


def user(uid: int) -> dict[str, Any]:
    return {"id": uid, "is_bot": False, "first_name": f"U{uid}", "language_code": "ka"}


def command(uid: int, chat: int, text: str) -> dict[str, Any]:
    return {
        "update_id": next(update_ids),
        "message": {
            "message_id": 1,
            "date": 0,
            "from": user(uid),
            "text": text,
            "chat": {"id": chat, "type": "private" if chat > 0 else "supergroup"},
            "entities": [{"type": "bot_command", "offset": 0, "length": len(text.split()[0])}],
        },
    }


def press(uid: int, chat: int, data: str) -> dict[str, Any]:
    n = next(update_ids)
    return {
        "update_id": n,
        "callback_query": {
            "id": f"cb{n}",
            "from": user(uid),
            "chat_instance": "c",
            "data": data,
            "message": {
                "message_id": 1,
                "date": 0,
                "text": "?",
                "chat": {"id": chat, "type": "private" if chat > 0 else "supergroup"},
            },
        },
    }


def policy(game: Game, player: int) -> Any:
    legal = game.legal_decisions(player)
    return legal[(game.version * 7 + player) % len(legal)]


class Load:
    """Posts updates and keeps the latencies of the ones accepted."""

    def __init__(self, http: httpx.AsyncClient, url: str, stop_at: float) -> None:
        self.http, self.url, self.stop_at = http, url, stop_at
        self.latencies: list[float] = []
        self.by_kind: dict[str, list[float]] = {"button": [], "command": []}

    async def post(self, update: dict[str, Any]) -> None:
        started = time.perf_counter()
        response = await self.http.post(self.url, json=update, headers=HEADERS)
        if response.status_code == 200:
            latency = time.perf_counter() - started
            self.latencies.append(latency)
            self.by_kind["button" if "callback_query" in update else "command"].append(latency)


async def table(load: Load, redis: Redis, keys: Keys, n: int) -> None:
    """Play game after game in one group until the time is up."""
    for round_no in itertools.count():
        if time.monotonic() > load.stop_at:
            return
        group = -(1_000_000 + n * 1000 + round_no)
        ids = [100_000 + n * 10_000 + round_no * 10 + i for i in range(4)]
        for uid in ids:
            await load.post(command(uid, uid, "/start"))
        await load.post(command(ids[0], group, "/newgame"))
        game_id = (await redis.get(keys.chat_game(group))).decode()
        for uid in ids[1:]:
            await load.post(press(uid, group, f"{game_id}.0.J"))
        await load.post(press(ids[0], group, f"{game_id}.0.S"))
        while time.monotonic() < load.stop_at:
            raw = await redis.get(keys.game(game_id))
            record = GameRecord.from_dict(__import__("json").loads(raw))
            if record.status != "playing":
                break
            game = record.game()
            player = game.awaiting().players[0]
            code = buttons.encode_decision(policy(game, player), [p.id for p in game.players])
            # Answers to a claim are pressed on the group's turn message, the rest privately.
            at_table = buttons.is_answer(code) and record.answers == "table"
            chat = group if at_table else player
            await load.post(press(player, chat, buttons.pack(game_id, record.context, code)))


async def bare_worker(load: Load, n: int) -> None:
    while time.monotonic() < load.stop_at:
        await load.post(press(200_000 + n, 200_000 + n, "bare.0.P"))


def report(name: str, latencies: list[float], seconds: float, unit: str = "updates/s") -> float:
    """Print the rate, p50 and p99 of some requests; return the rate."""
    ordered = sorted(latencies)
    rate = len(ordered) / seconds
    p50 = statistics.median(ordered) * 1000
    p99 = ordered[max(0, int(len(ordered) * 0.99) - 1)] * 1000
    print(
        f"{name:10s} {rate:7.1f} {unit:9s}  p50 {p50:6.1f} ms  p99 {p99:6.1f} ms  "
        f"({len(ordered)} updates)"
    )
    return rate


def spawn(args: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


async def wait_up(http: httpx.AsyncClient, url: str) -> None:
    for _ in range(600):
        with contextlib.suppress(httpx.HTTPError):
            await http.get(url)
            return
        await asyncio.sleep(0.05)
    raise RuntimeError(f"{url} did not come up")


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=40, help="games played at once")
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument(
        "--messages-per-second",
        type=int,
        default=30,
        help="the bot's overall sending pace: Telegram's 30, or higher to see the stack alone",
    )
    args = parser.parse_args()
    print(f"machine: {platform.machine()} cpus={os.cpu_count()} python {platform.python_version()}")
    sim_port, bot_port, bare_port = free_port(), free_port(), free_port()
    prefix = f"w{uuid.uuid4().hex[:6]}"
    with redis_url() as url:
        env = {
            **os.environ,
            "REDIS_URL": url,
            "WEBHOOK_SECRET": SECRET,
            "TELEGRAM_API_URL": f"http://127.0.0.1:{sim_port}/bot",
            "REDIS_KEY_PREFIX": prefix,
            "PTB_TIMEDELTA": "1",
            "MESSAGES_PER_SECOND": str(args.messages_per_second),
        }
        processes = [
            spawn(["bench/sim_server.py", str(sim_port)], env),
            spawn(["-m", "tests.resilience.bot_process", str(bot_port)], env),
            spawn(["bench/bare_handler.py", str(bare_port)], env),
        ]
        redis = Redis.from_url(url)
        limits = httpx.Limits(
            max_connections=args.games * 2, max_keepalive_connections=args.games * 2
        )
        try:
            async with httpx.AsyncClient(timeout=60, limits=limits) as http:
                await wait_up(http, f"http://127.0.0.1:{sim_port}/botx/getMe")
                await wait_up(http, f"http://127.0.0.1:{bot_port}/healthz")
                await wait_up(http, f"http://127.0.0.1:{bare_port}/telegram")
                load = Load(
                    http, f"http://127.0.0.1:{bot_port}/telegram", time.monotonic() + args.seconds
                )
                started = time.monotonic()
                await asyncio.gather(
                    *(table(load, redis, Keys(prefix), n) for n in range(args.games))
                )
                elapsed = time.monotonic() - started
                ours = report("bot", load.latencies, elapsed)
                for kind, latencies in load.by_kind.items():
                    if latencies:
                        report(f"  {kind}s", latencies, elapsed, unit="")
                # The bot would go on delivering its backlog beside the bare handler's run.
                processes[1].terminate()
                processes[1].wait()
                bare = Load(
                    http, f"http://127.0.0.1:{bare_port}/telegram", time.monotonic() + args.seconds
                )
                started = time.monotonic()
                await asyncio.gather(*(bare_worker(bare, n) for n in range(args.games)))
                base = report("bare", bare.latencies, time.monotonic() - started)
                print(f"ratio bot/bare: {ours / base:.2f} (target: at least 0.5)")
        finally:
            await redis.aclose()
            for process in reversed(processes):  # the bot first: it still talks to the sim
                process.terminate()
                process.wait()


if __name__ == "__main__":
    asyncio.run(main())
