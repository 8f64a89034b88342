"""Running the real `coup-bot` command in a process of its own, as a person would."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from tgbot.storage.embedded import redis_server_binary

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "123456:SECRET-token-value"
OUR_VARIABLES = (
    "BOT_",
    "WEBHOOK_",
    "REDIS",
    "TELEGRAM_",
    "LOCALES_DIR",
    "DATA_DIR",
    "PORT",
    "METRICS_",
    "LISTEN_",
    "STARTUP_",
    "LOG_LEVEL",
    "SERVE",
)


def bot_env(**settings: str) -> dict[str, str]:
    """The environment without any of the bot's settings, plus `settings`."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(OUR_VARIABLES)}
    return {**clean, **settings}


async def run_cli(
    env: dict[str, str], cwd: Path, *args: str, timeout: float = 90
) -> subprocess.CompletedProcess[str]:
    """Run `python -m tgbot ARGS` to its end (in a thread: the simulated Telegram may be
    running in this event loop)."""
    return await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-m", "tgbot", *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def start_cli(env: dict[str, str], cwd: Path, log: Path) -> subprocess.Popen[bytes]:
    """Start `python -m tgbot` in the background, its log in `log`."""
    with log.open("wb") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "tgbot"], env=env, cwd=cwd, stdout=out, stderr=out
        )


def assert_one_line(result: subprocess.CompletedProcess[str], exit_code: int, *words: str) -> str:
    """The command failed with `exit_code` and said so in one line naming `words`."""
    lines = result.stderr.strip().splitlines()
    assert result.returncode == exit_code, (result.returncode, result.stderr[-3000:])
    assert len(lines) == 1, result.stderr[-3000:]
    assert "Traceback" not in result.stderr + result.stdout
    for word in words:
        assert word in lines[0], lines[0]
    assert TOKEN not in result.stderr + result.stdout and "SECRET" not in lines[0]
    return lines[0]


async def until(check: Callable[[], bool], timeout: float = 30.0, what: str = "it") -> None:
    """Wait until `check()` holds."""
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.05)


def alive(pid: int) -> bool:
    """Whether a process is still running (a zombie counts as gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(") ")[-1]
    except FileNotFoundError:  # no /proc (macOS), or it exited just now
        return not Path("/proc/self").exists()
    return not state.startswith("Z")


def redis_on_port(port: int, folder: Path, *settings: str) -> subprocess.Popen[bytes]:
    """A throwaway redis-server on a TCP port of loopback (with extra `settings`), once it
    accepts connections."""
    server = subprocess.Popen(
        [
            redis_server_binary(),
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(folder),
            *settings,
        ],
        stdout=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 10
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return server
        except OSError:
            assert time.monotonic() < deadline, "redis-server did not start"
            time.sleep(0.05)
