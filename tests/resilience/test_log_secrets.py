"""No log line, at any level, holds the bot token or the webhook secret."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
from pathlib import Path

import httpx

from tests.resilience.production import production_env, until_healthy
from tests.telegram_sim.harness import (
    SECRET,
    WEBHOOK_PATH,
    Harness,
    TgUser,
    config_for_tests,
    free_port,
    serve,
)
from tests.telegram_sim.server import TelegramSim, build_sim_app

ROOT = Path(__file__).resolve().parents[2]
GROUP = -100900


async def test_debug_logs_hold_neither_token_nor_secret(
    redis_server_url: str, tmp_path: Path
) -> None:
    sim = TelegramSim()
    sim_port, port = free_port(), free_port()
    config = config_for_tests(redis_server_url, sim_port)
    token = config.bot_token
    env = production_env(config, redis_server_url, port, "DEBUG")
    log_path = tmp_path / "bot.log"
    async with serve(build_sim_app(sim), sim_port), httpx.AsyncClient(timeout=30) as http:
        with log_path.open("wb") as log_file:
            process = subprocess.Popen(
                [sys.executable, "-m", "tests.resilience.bot_process", "run"],
                cwd=ROOT,
                env=env,
                stdout=log_file,
                stderr=subprocess.STDOUT,
            )
            try:
                h = Harness(sim, f"http://127.0.0.1:{port}{WEBHOOK_PATH}", http, config)
                await until_healthy(http, f"http://127.0.0.1:{port}", process, log_path)
                a, b = TgUser(4100, "Ana"), TgUser(4101, "Beka")
                for user in (a, b):
                    await h.say(user, user.id, "/start")
                await h.say(a, GROUP, "/newgame")
                await h.until(lambda: h.has_button(GROUP, h.tr("✋ Join")))
                await h.press_text(b, GROUP, h.tr("✋ Join"))
                await h.post({"update_id": 5, "callback_query": "x"})  # logged and dropped
                await h.post(h.message_update(a, GROUP, "/cancel"))
                await h.store.redis.aclose()
            finally:
                process.send_signal(signal.SIGTERM)
                await asyncio.to_thread(process.wait, 30)
    logged = log_path.read_text(errors="replace")
    # The test means something only if the DEBUG lines that held them were written.
    assert "setWebhook" in logged and "Set Bot API URL" in logged, logged[-2000:]
    assert "[redacted]" in logged
    assert '"POST /telegram HTTP/1.1" 200' in logged  # uvicorn's access lines still format
    assert token not in logged
    assert token.partition(":")[2] not in logged
    assert SECRET not in logged
