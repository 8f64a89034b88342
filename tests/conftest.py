"""Shared fixtures: a real Redis server for the whole session."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .redis_server import redis_url


@pytest.fixture(scope="session")
def redis_server_url() -> Iterator[str]:
    """A real Redis server: REDIS_URL if set, else a private redis-server."""
    with redis_url() as url:
        yield url
