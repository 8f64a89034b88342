"""A stopping bot ends its Mini App event streams itself: uvicorn waits for the requests in
flight, and a stream never ends by itself, so without that a page held the process for
its whole graceful shutdown, then saw its connection cut mid-stream."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
from pathlib import Path

import httpx

from tests.resilience.production import production_env, until_healthy
from tests.telegram_sim.harness import (
    WEBHOOK_PATH,
    Harness,
    TgUser,
    config_for_tests,
    free_port,
    serve,
)
from tests.telegram_sim.server import TelegramSim, build_sim_app

from .client import Page

ROOT = Path(__file__).resolve().parents[2]
GROUP = -100910


async def test_a_stopping_bot_ends_an_open_event_stream(
    redis_server_url: str, tmp_path: Path
) -> None:
    sim = TelegramSim()
    sim_port, port = free_port(), free_port()
    config = config_for_tests(redis_server_url, sim_port)
    env = production_env(config, redis_server_url, port, "WARNING")
    log_path = tmp_path / "bot.log"
    base = f"http://127.0.0.1:{port}"
    async with serve(build_sim_app(sim), sim_port), httpx.AsyncClient(timeout=60) as http:
        with log_path.open("wb") as log_file:
            # The bot as production runs it (tgbot.run: SIGTERM stops it in order).
            process = subprocess.Popen(
                [sys.executable, "-m", "tests.resilience.bot_process", "run"],
                cwd=ROOT,
                env=env,
                stdout=log_file,
                stderr=subprocess.STDOUT,
            )
            try:
                h = Harness(sim, base + WEBHOOK_PATH, http, config)
                await until_healthy(http, base, process, log_path)
                ana = TgUser(4200, "Ana")
                await h.say(ana, ana.id, "/start")
                await h.say(ana, GROUP, "/newgame")
                record = await h.record_of_chat(GROUP)
                assert record is not None
                url = await Page(h, ana).events_url(record.id)
                async with http.stream("GET", url) as stream:
                    assert stream.status_code == 200
                    lines = stream.aiter_lines()
                    assert await anext(lines) == ": listening"
                    process.send_signal(signal.SIGTERM)
                    # The stream ends whole (its last chunk sent), not cut off after
                    # uvicorn's graceful wait (httpx: "incomplete chunked read").
                    rest = [line async for line in lines]
                assert "event: revision" in rest  # what it had to say before it ended
                assert await asyncio.to_thread(process.wait, 60) == 0
            finally:
                if process.poll() is None:
                    process.kill()
                    process.wait()
                await h.store.redis.aclose()
    logged = log_path.read_text(errors="replace")
    assert "timeout graceful shutdown exceeded" not in logged, logged[-2000:]
