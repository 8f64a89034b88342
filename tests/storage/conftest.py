"""The storage tests' store: a client of the test Redis, under a prefix of its own."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import pytest

from tgbot.storage.clients import open_client
from tgbot.storage.keys import Keys
from tgbot.storage.store import Store


@pytest.fixture
async def store(any_redis_url: str) -> AsyncIterator[Store]:
    """A store on the test Redis (one server or a cluster), its keys apart from any other."""
    redis = await open_client(any_redis_url)
    yield Store(redis, Keys(f"s{uuid.uuid4().hex[:8]}"))
    await redis.aclose()
