"""Webhook throughput and latency: our bot beside a bare python-telegram-bot handler.

The bot runs in its own process (real webhook app, real Redis); the simulated Bot API runs
here, beside the load generator, which plays many games at once by posting the button
presses players would make, and times each request until its response. Then the same load
shape goes to a bare handler that only answers the callback. Run:
`python bench/webhook.py [--games 40] [--seconds 20]`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import platform
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("PTB_TIMEDELTA", "1")

from tests.redis_server import redis_url  # noqa: E402
from tests.resilience.test_kill9 import play_one  # noqa: E402
from tests.telegram_sim.harness import SECRET, Harness, TgUser, free_port, serve  # noqa: E402
from tests.telegram_sim.server import TelegramSim, build_sim_app  # noqa: E402
from tgbot.config import Config  # noqa: E402


class TimedHarness(Harness):
    """A harness that records how long each accepted update took."""

    latencies: list[float]
    stop_at: float

    async def post(self, update: dict, secret: str | None = SECRET) -> httpx.Response:
        if time.monotonic() > self.stop_at:
            raise asyncio.CancelledError
        started = time.perf_counter()
        response = await super().post(update, secret)
        if response.status_code == 200:
            self.latencies.append(time.perf_counter() - started)
        return response


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


def report(name: str, latencies: list[float], seconds: float) -> float:
    rate = len(latencies) / seconds
    ordered = sorted(latencies)
    p50 = statistics.median(ordered) * 1000
    p99 = ordered[int(len(ordered) * 0.99) - 1] * 1000 if ordered else float("nan")
    print(
        f"{name:6s} {rate:7.1f} updates/s  p50 {p50:6.1f} ms  p99 {p99:6.1f} ms  "
        f"({len(latencies)} updates)"
    )
    return rate


async def bot_phase(h: TimedHarness, games: int, seconds: float) -> float:
    h.latencies = []
    h.stop_at = time.monotonic() + seconds
    started = time.monotonic()

    async def table(i: int) -> None:
        round_no = 0
        with contextlib.suppress(asyncio.CancelledError, AssertionError):
            while time.monotonic() < h.stop_at:
                users = [
                    TgUser(60_000 + i * 1000 + round_no * 10 + j, f"L{i}{j}") for j in range(4)
                ]
                await play_one(h, -(500_000 + i * 1000 + round_no), users)
                round_no += 1

    await asyncio.gather(*(table(i) for i in range(games)))
    return report("bot", h.latencies, time.monotonic() - started)


async def bare_phase(http: httpx.AsyncClient, url: str, workers: int, seconds: float) -> float:
    latencies: list[float] = []
    stop_at = time.monotonic() + seconds
    started = time.monotonic()
    update_ids = iter(range(10_000_000, 20_000_000))

    async def worker(i: int) -> None:
        user = TgUser(90_000 + i, "Bare")
        while time.monotonic() < stop_at:
            n = next(update_ids)
            update = {
                "update_id": n,
                "callback_query": {
                    "id": f"cb{n}",
                    "from": user.json(),
                    "chat_instance": "ci",
                    "data": "bare.0.P",
                    "message": {
                        "message_id": 1,
                        "date": 0,
                        "text": "?",
                        "chat": {"id": user.id, "type": "private"},
                    },
                },
            }
            t0 = time.perf_counter()
            response = await http.post(url, json=update)
            if response.status_code == 200:
                latencies.append(time.perf_counter() - t0)

    await asyncio.gather(*(worker(i) for i in range(workers)))
    return report("bare", latencies, time.monotonic() - started)


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=40, help="games played at once")
    parser.add_argument("--seconds", type=float, default=20)
    args = parser.parse_args()
    print(f"machine: {platform.machine()} cpus={os.cpu_count()} python {platform.python_version()}")
    sim = TelegramSim()
    sim_port, bot_port, bare_port = free_port(), free_port(), free_port()
    with redis_url() as url:
        prefix = f"w{uuid.uuid4().hex[:6]}"
        env = {
            **os.environ,
            "REDIS_URL": url,
            "WEBHOOK_SECRET": SECRET,
            "TELEGRAM_API_URL": f"http://127.0.0.1:{sim_port}/bot",
            "REDIS_KEY_PREFIX": prefix,
        }
        async with serve(build_sim_app(sim), sim_port):
            bot = spawn(["-m", "tests.resilience.bot_process", str(bot_port)], env)
            bare = spawn(["bench/bare_handler.py", str(bare_port)], env)
            limits = httpx.Limits(max_connections=args.games * 2)
            try:
                async with httpx.AsyncClient(timeout=30, limits=limits) as http:
                    await wait_up(http, f"http://127.0.0.1:{bot_port}/healthz")
                    await wait_up(http, f"http://127.0.0.1:{bare_port}/telegram")
                    config = Config(bot_token="1:x", redis_url=url, key_prefix=prefix)
                    h = TimedHarness(sim, f"http://127.0.0.1:{bot_port}/telegram", http, config)
                    ours = await bot_phase(h, args.games, args.seconds)
                    await h.store.redis.aclose()
                    base = await bare_phase(
                        http, f"http://127.0.0.1:{bare_port}/telegram", args.games, args.seconds
                    )
                    print(f"ratio bot/bare: {ours / base:.2f} (target: at least 0.5)")
            finally:
                for process in (bot, bare):
                    process.terminate()
                    process.wait()


if __name__ == "__main__":
    asyncio.run(main())
