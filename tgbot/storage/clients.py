"""The Redis clients: one server's and a cluster's, each riding what a dropped connection or
a cluster failover interrupts, and saying ConnectionError for every kind of dead connection.

One server: a command interrupted by a dropped connection (the server restarted, say) is
retried once on a new connection (redis-py's `Retry`, which also backs off); a second
failure is the caller's (the webhook answers 503 and Telegram retries the update).

A cluster: redis-py retries a command on connection and cluster errors (`retry` and
`retry_on_error`, as it documents them), refreshing the slot map between attempts. Its
asyncio cluster client uses that `Retry` only for the number of attempts and makes them
back to back, so a failover (a replica takes over a killed master some seconds later) would
fail every command in a few milliseconds: `RidingCluster` makes the same attempts again
after a back-off, for up to `RIDE_S` seconds, for a command and for a pipeline alike.

What a retry can repeat is what redis-py's own retries repeat (a command that ran but whose
reply was lost): every write here is a compare-and-set, an update id's mark, or idempotent
(tgbot/storage/commit.py), so a repeat changes nothing or is refused as applied before.
"""

from __future__ import annotations

import functools
from typing import Any

from redis.asyncio import BlockingConnectionPool, Redis
from redis.asyncio.cluster import ClusterNode, ClusterPipeline, RedisCluster
from redis.asyncio.connection import AbstractConnection, Connection, parse_url
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff, ExponentialWithJitterBackoff
from redis.exceptions import (
    AuthenticationError,
    ClusterDownError,
    ConnectionError,
    RedisError,
    SlotNotCoveredError,
    TimeoutError,
)

# A Redis server or a Redis Cluster: both clients offer the commands used here.
Client = Any

REDIS_CONNECTIONS = 100  # per process (per node on a cluster)
REDIS_POOL_WAIT_S = 10.0
CLUSTER_REPLY_WAIT_S = 30.0
# One server: one retry on a new connection, after a short pause.
SINGLE_RETRIES = 1
# A cluster: redis-py's attempts (each after a refresh of the slot map), then ours after a
# back-off doubling from 0.1 s to 1 s: about 12 s in all, longer than a failover takes
# with a cluster-node-timeout of 5 s or so. Past that the update is answered 503.
CLUSTER_RETRIES = 3
RIDE_RETRIES = 15
RIDE_FIRST_S, RIDE_LONGEST_S = 0.05, 1.0
RIDE_S = sum(min(RIDE_LONGEST_S, RIDE_FIRST_S * 2**n) for n in range(1, RIDE_RETRIES + 1))
RETRIED = (ConnectionError, TimeoutError, ClusterDownError, SlotNotCoveredError)


class WriteGuard(AbstractConnection):
    """Makes redis-py's asyncio connection raise ConnectionError (a storage error, retried)
    rather than AttributeError for a write on a connection another task closed meanwhile.

    redis-py 8.1.0 writes through `self._writer`, which `disconnect()` sets to None; its
    async cluster client disconnects every connection of every node (in use or not) when
    a pipeline or a command meets a connection or cluster error (`RedisCluster.aclose()` in
    its retry), so in a failover a command of another task that was about to write fails
    with "'NoneType' object has no attribute 'writelines'". Upstream: redis/redis-py#3546
    and #4287, fixed by redis/redis-py#4288 (merged after 8.1.0, the latest release): drop
    this class once a release has it.
    """

    async def send_packed_command(self, command: Any, check_health: bool = True) -> None:
        """Write a packed command; a connection closed under the write is a ConnectionError."""
        try:
            await super().send_packed_command(command, check_health)
        except (AttributeError, TypeError) as err:
            if "NoneType" not in str(err):
                raise
            raise ConnectionError(f"connection closed while writing ({err})") from err


@functools.cache
def guarded(connection_class: type[AbstractConnection]) -> type[AbstractConnection]:
    """The connection class (TCP, TLS or unix socket) with the `WriteGuard`."""
    if issubclass(connection_class, WriteGuard):
        return connection_class
    return type(f"Guarded{connection_class.__name__}", (WriteGuard, connection_class), {})


GuardedConnection = guarded(Connection)


def ride() -> Retry:
    """The back-off between a cluster's rounds of attempts."""
    return Retry(ExponentialBackoff(cap=RIDE_LONGEST_S, base=RIDE_FIRST_S), RIDE_RETRIES, RETRIED)


async def _next_round(_: Exception) -> None:
    """Nothing to undo between two rounds: redis-py refreshes its slot map itself."""


class RidingPipeline(ClusterPipeline):
    """A cluster pipeline that runs again, after a back-off, when all of redis-py's own
    attempts failed (its queue is emptied by each attempt, so it is kept here)."""

    def __init__(self, client: RedisCluster, transaction: Any = None) -> None:
        super().__init__(client, transaction)
        self._queued: list[tuple[tuple[Any, ...], dict[str, Any]]] = []

    def execute_command(self, *args: Any, **kwargs: Any) -> Any:
        """Queue a command (and keep it for a later round)."""
        self._queued.append((args, kwargs))
        return super().execute_command(*args, **kwargs)

    async def execute(self, raise_on_error: bool = True, allow_redirections: bool = True) -> Any:
        """Run the queued commands, riding a failover."""
        queued, self._queued = self._queued, []
        rounds = 0

        async def once() -> Any:
            nonlocal rounds
            if rounds:
                for args, kwargs in queued:
                    super(RidingPipeline, self).execute_command(*args, **kwargs)
            rounds += 1
            return await super(RidingPipeline, self).execute(raise_on_error, allow_redirections)

        try:
            return await ride().call_with_retry(once, _next_round)
        finally:
            self._queued = []


class RidingCluster(RedisCluster):
    """redis-py's asyncio cluster client, with `WriteGuard`ed connections, whose commands and
    pipelines ride a failover (see the module's docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # The connection class is not a parameter of RedisCluster: the nodes found later
        # are made from these keyword arguments, the startup nodes were made already.
        kwargs = self.connection_kwargs
        kwargs["connection_class"] = guarded(kwargs["connection_class"])
        for node in self.startup_nodes:
            node.connection_class = kwargs["connection_class"]

    async def execute_command(self, *args: Any, **kwargs: Any) -> Any:
        """Run a command on its node, riding a failover."""
        if kwargs.get("target_nodes") is not None:  # a node named by the caller: no ride
            return await super().execute_command(*args, **kwargs)
        return await ride().call_with_retry(
            lambda: super(RidingCluster, self).execute_command(*args, **kwargs), _next_round
        )

    def pipeline(self, transaction: Any = None, shard_hint: Any = None) -> RidingPipeline:
        """A pipeline that rides a failover."""
        if transaction or shard_hint:
            return super().pipeline(transaction, shard_hint)  # type: ignore[return-value]
        return RidingPipeline(self)  # type: ignore[abstract]  # as redis-py makes its own


def node_urls(url: str) -> list[str]:
    """The nodes a REDIS_URL names: one URL, or several separated by commas (a Redis
    Cluster's seed nodes, tried in turn until one answers)."""
    return [part.strip() for part in url.split(",") if part.strip()]


def _seed(url: str) -> ClusterNode:
    parts = parse_url(url)
    return ClusterNode(parts.get("host", "localhost"), parts.get("port", 6379))


def single_client(url: str) -> Redis:
    """A client for one server (a blocking pool: a burst waits for a free connection rather
    than raise MaxConnectionsError), retrying once on a dropped connection."""
    pool = BlockingConnectionPool.from_url(
        url,
        max_connections=REDIS_CONNECTIONS,
        timeout=REDIS_POOL_WAIT_S,
        decode_responses=True,
        retry=Retry(ExponentialWithJitterBackoff(base=0.05, cap=0.5), SINGLE_RETRIES),
        retry_on_error=[ConnectionError, TimeoutError],
    )
    pool.connection_class = guarded(pool.connection_class)
    return Redis.from_pool(pool)


def cluster_client(url: str) -> RedisCluster:
    """A client for a Redis Cluster that rides a failover; it learns the cluster from
    whichever of the nodes `url` names answers (the first one's login and options apply
    to every node)."""
    first, *others = node_urls(url)
    # redis-py's cluster client gives up on a reply after 5 s by default and then drops
    # every connection to that node, under other tasks' feet (seen with 50 games on two
    # busy cores): wait as long as the one-server client does (it has no timeout), within
    # reason.
    return RidingCluster.from_url(
        first,
        startup_nodes=[_seed(other) for other in others] or None,
        decode_responses=True,
        max_connections=REDIS_CONNECTIONS * 4,
        socket_timeout=CLUSTER_REPLY_WAIT_S,
        socket_connect_timeout=CLUSTER_REPLY_WAIT_S,
        retry=Retry(ExponentialWithJitterBackoff(base=0.05, cap=0.5), CLUSTER_RETRIES),
        retry_on_error=list(RETRIED),
    )


def storage_error(err: BaseException) -> bool:
    """Whether an exception means Redis could not be used (the update may be retried):
    any RedisError or socket error, and redis-py tripping over a connection that died
    under it without saying ConnectionError (an AttributeError or TypeError on None raised
    inside redis-py, as in the upstream issues above)."""
    if isinstance(err, RedisError | OSError):
        return True
    if not isinstance(err, AttributeError | TypeError) or "NoneType" not in str(err):
        return False
    modules = []
    tb = err.__traceback__
    while tb is not None:
        modules.append(str(tb.tb_frame.f_globals.get("__name__", "")).split(".")[0])
        tb = tb.tb_next
    # Raised in redis-py, or in asyncio's transport under a write of redis-py's.
    return "redis" in modules and modules[-1] in ("redis", "asyncio")


def connect(url: str, cluster: bool = False) -> Client:
    """A client for one server or, with `cluster`, for a Redis Cluster; both ride what a
    dropped connection or a failover interrupts (above).

    Both decode every reply as UTF-8 text (`decode_responses`): the one place where Redis
    bytes become str. Everything stored is text (JSON, ids, numbers), and an outbox entry
    read back is the exact text written, so LREM by entry still matches it."""
    return cluster_client(url) if cluster else single_client(url)


class NotACluster(Exception):
    """REDIS_URL names several nodes, and one of them is a server outside any cluster."""

    def __init__(self, node: str, nodes: int) -> None:
        super().__init__(f"REDIS_URL names {nodes} nodes, and one is not in cluster mode")
        self.node = node
        self.nodes = nodes


async def open_client(url: str) -> Client:
    """The right client for `url`, decided at start by the first node it names that answers
    `INFO cluster`: a cluster's client (which learns the cluster from whichever named node
    answers) or one server's. When no node answers, the last one's error is raised
    (ConnectionError or TimeoutError): the caller tries again a bounded time."""
    nodes = node_urls(url)
    for i, node in enumerate(nodes):
        plain = connect(node)
        try:
            info = await plain.info("cluster")
        except AuthenticationError:
            await plain.aclose()
            raise
        except (ConnectionError, TimeoutError, OSError):
            await plain.aclose()
            if i + 1 == len(nodes):
                raise
            continue
        except RedisError:  # INFO not allowed (an ACL, a renamed command): cannot tell
            info = {"cluster_enabled": len(nodes) > 1}
        except BaseException:
            await plain.aclose()
            raise
        if info.get("cluster_enabled"):
            await plain.aclose()
            return connect(url, cluster=True)
        if len(nodes) > 1:
            await plain.aclose()
            raise NotACluster(node, len(nodes))
        return plain
    raise ValueError("REDIS_URL names no node")


def is_cluster(client: Client) -> bool:
    """Whether the client talks to a Redis Cluster."""
    return isinstance(client, RedisCluster)
