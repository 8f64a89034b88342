"""Shared fixtures: a real Redis server for the whole session."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from .redis_server import redis_url

# python-telegram-bot 22 warns that RetryAfter.retry_after becomes a timedelta; opt in now
# (the sender accepts both), as the bot itself does.
os.environ.setdefault("PTB_TIMEDELTA", "1")


@pytest.fixture(scope="session")
def redis_server_url() -> Iterator[str]:
    """A real Redis server: REDIS_URL if set, else a private redis-server."""
    with redis_url() as url:
        yield url
