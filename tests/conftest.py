"""Shared fixtures: a real Redis server for the whole session."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator, Iterator

import pytest
import pytest_asyncio

from .redis_server import redis_cluster_url, redis_url

# python-telegram-bot 22 warns that RetryAfter.retry_after becomes a timedelta; opt in now
# (the sender accepts both), as the bot itself does.
os.environ.setdefault("PTB_TIMEDELTA", "1")


@pytest.fixture(scope="session")
def redis_server_url() -> Iterator[str]:
    """A real Redis server: REDIS_URL if set, else a private redis-server."""
    with redis_url() as url:
        yield url


@pytest.fixture(scope="session")
def redis_cluster_server_url() -> Iterator[str]:
    """A real 3-master Redis Cluster: REDIS_CLUSTER_URL if set, else three private servers
    (started once, for the whole session, only if a test asks for it)."""
    with redis_cluster_url() as url:
        yield url


@pytest.fixture(params=["single", "cluster"])
def any_redis_url(request: pytest.FixtureRequest) -> str:
    """Each test taking it runs twice: on one Redis server, then on a Redis Cluster."""
    name = "redis_server_url" if request.param == "single" else "redis_cluster_server_url"
    return str(request.getfixturevalue(name))


# Before pytest-timeout's 300 s end a test, print where every asyncio task waits: a hang in
# CI then says where it hangs (the timeout's own traceback shows only the event loop).
HANG_REPORT_AFTER_S = float(os.environ.get("TEST_HANG_REPORT_S", "240"))


@pytest_asyncio.fixture(autouse=True)
async def report_hung_tasks() -> AsyncIterator[None]:
    """Print every asyncio task's stack if the test is still running after a few minutes."""
    timer = asyncio.get_running_loop().call_later(HANG_REPORT_AFTER_S, _print_tasks)
    yield
    timer.cancel()


def _print_tasks() -> None:
    print(f"\n--- asyncio tasks after {HANG_REPORT_AFTER_S:.0f} s ---", file=sys.stderr)
    for task in asyncio.all_tasks():
        print(task, file=sys.stderr)
        task.print_stack(file=sys.stderr)
