"""The bot run as production runs it (`python -m tests.resilience.bot_process run`, which is
`tgbot.run.run` with every setting from the environment), for tests that look at what
only that path does: its logging, its shutdown on SIGTERM."""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
from pathlib import Path

import httpx

from tests.telegram_sim.harness import SECRET
from tgbot.config import Config


def production_env(config: Config, redis_url: str, port: int, log_level: str) -> dict[str, str]:
    """The environment of a bot on `port` that talks to the simulated Bot API of `config`."""
    return {
        **os.environ,
        "PTB_TIMEDELTA": "1",
        "BOT_TOKEN": config.bot_token,
        "WEBHOOK_URL": "https://coup.example.test",
        "WEBHOOK_SECRET": SECRET,
        "TELEGRAM_API_URL": config.api_base_url,
        "REDIS_URL": redis_url,
        "REDIS_KEY_PREFIX": config.key_prefix,
        "LISTEN_HOST": "127.0.0.1",
        "PORT": str(port),
        "LOG_LEVEL": log_level,
    }


async def until_healthy(
    http: httpx.AsyncClient, base: str, process: subprocess.Popen[bytes], log_path: Path
) -> None:
    """Wait until the bot at `base` answers /healthz (its log shown if it dies first)."""
    for _ in range(600):
        with contextlib.suppress(httpx.HTTPError):
            if (await http.get(f"{base}/healthz")).status_code == 200:
                return
        assert process.poll() is None, log_path.read_text()
        await asyncio.sleep(0.05)
    raise AssertionError(f"the bot at {base} never answered /healthz")
