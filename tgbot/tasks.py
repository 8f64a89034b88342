"""Stopping background tasks without trusting cancellation alone.

On CPython 3.11 `asyncio.wait_for` can swallow a cancellation that arrives just as the
awaited call completes (CPython gh-86296). redis-py 8 sends every command through it (its
default `socket_timeout` is 5 s), so a task cancelled mid-command may simply go on. Our loops
therefore stop on a flag, and whoever stops them waits a bounded time.
"""

from __future__ import annotations

import asyncio
from collections.abc import Collection


async def settle(tasks: Collection[asyncio.Task[None]], timeout: float) -> None:
    """Let `tasks` end by themselves for up to `timeout` s, then cancel the rest, wait as long."""
    if not tasks:
        return
    _, pending = await asyncio.wait(set(tasks), timeout=timeout)
    for task in pending:
        task.cancel()
    if pending:
        await asyncio.wait(pending, timeout=timeout)


async def sleep_unless(stop: asyncio.Event, seconds: float) -> None:
    """Sleep for `seconds`, or less if `stop` is set meanwhile."""
    try:
        async with asyncio.timeout(seconds):
            await stop.wait()
    except TimeoutError:
        pass
