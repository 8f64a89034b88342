"""Shared fixtures: a real Redis server for the whole session."""

from __future__ import annotations

import asyncio
import logging
import os
import re
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


# Every test fails on an ERROR log line or a traceback (a record with exc_info, at any level)
# that it did not expect: a whole game that logs its own failure and ends all the same must
# not pass. A test that provokes one says so: @pytest.mark.expect_log("pattern", ...), each
# a regular expression that the record's message (and its exception's text) must match.
class _ErrorLines(logging.Handler):
    """Keeps every record logged at ERROR or above, or carrying a traceback."""

    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self.seen: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        # asyncio's "Unclosed client" is said when the garbage collector finds an object an
        # earlier test left (a test that failed before closing it): not this test's line.
        if record.name == "asyncio" and record.getMessage().startswith("Unclosed"):
            return
        if record.levelno >= logging.ERROR or record.exc_info:
            self.seen.append(record)


def _record_text(record: logging.LogRecord) -> str:
    text = f"{record.levelname} {record.name}: {record.getMessage()}"
    if record.exc_info and record.exc_info[1] is not None:
        err = record.exc_info[1]
        text += f"\n{type(err).__name__}: {err}"
    return text


@pytest.fixture(autouse=True)
def fail_on_unexpected_error_lines(request: pytest.FixtureRequest) -> Iterator[None]:
    """Fail the test on any ERROR line or traceback logged that its marker does not expect."""
    marker = request.node.get_closest_marker("expect_log")
    expected = [re.compile(p, re.S) for p in (marker.args if marker else ())]
    catcher = _ErrorLines()
    root = logging.getLogger()
    root.addHandler(catcher)
    try:
        yield
    finally:
        root.removeHandler(catcher)
    unexpected = [
        _record_text(r)
        for r in catcher.seen
        if not any(p.search(_record_text(r)) for p in expected)
    ]
    if os.environ.get("TEST_ERROR_LINES_REPORT"):
        with open(os.environ["TEST_ERROR_LINES_REPORT"], "a", encoding="utf-8") as out:
            for line in unexpected:
                out.write(f"{request.node.nodeid}\t{line[:300]!r}\n")
        return
    if unexpected:
        pytest.fail(
            f"{len(unexpected)} unexpected ERROR line(s) or traceback(s):\n"
            + "\n".join(unexpected[:5]),
            pytrace=False,
        )
