"""Shutdown ends even when a library swallows the cancellation meant to stop a task."""

from __future__ import annotations

import asyncio

import pytest

from tests.telegram_sim.harness import free_port, serve
from tests.telegram_sim.server import TelegramSim, build_sim_app
from tgbot import bootstrap
from tgbot.bootstrap import Runtime
from tgbot.config import Config


async def test_runtime_closes_although_its_background_step_swallows_cancellation(
    redis_server_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # On CPython 3.11, redis-py 8 can swallow a task's cancellation when it arrives just as
    # a command completes (asyncio.wait_for, gh-86296). This step swallows every one, so a
    # loop that only stops by being cancelled would never stop.
    port = free_port()
    async with serve(build_sim_app(TelegramSim()), port):
        config = Config(
            bot_token="123456:shutdown",
            redis_url=redis_server_url,
            api_base_url=f"http://127.0.0.1:{port}/bot",
            key_prefix="shutdown-test",
        )
        runtime = await Runtime.create(config)
        entered = asyncio.Event()
        release = asyncio.Event()  # once set, cancellation gets through again
        swallowed: list[bool] = []

        async def step_that_swallows_cancellation(limit: int = 20) -> int:
            entered.set()
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                if release.is_set():
                    raise
                swallowed.append(True)
            return 0

        monkeypatch.setattr(
            runtime.service.deadlines, "claim_and_fire", step_that_swallows_cancellation
        )
        monkeypatch.setattr(bootstrap, "STOP_WAIT_S", 0.2)
        runtime.start_background()
        await asyncio.wait_for(entered.wait(), 5)
        closing = asyncio.create_task(runtime.close())
        finished, _ = await asyncio.wait({closing}, timeout=10)
        release.set()
        if not finished:  # let a hung close() end, so the failure below is reported
            for loop in runtime._loops:
                loop.cancel()
            await closing
        assert finished, "close() waited forever for a task that swallowed its cancellation"
        assert swallowed == [True]
        assert runtime._loops and all(loop.done() for loop in runtime._loops)
