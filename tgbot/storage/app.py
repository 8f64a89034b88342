"""The Mini App's keys: its requests' answers (a decision applied once per request id),
its per-person throttle, its single-use stream tickets, and the game channels its pages
listen to (`EventHub`).

A game's new revisions are published by the commit that makes them (`GameTx.save`,
SPUBLISH in the commit's script on the game's slot). One process keeps one sharded pub/sub
connection (one per node on a cluster) for every page it serves, and hands each message to
the pages of that game: it keeps who listens, never a game's state.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import AsyncIterator
from typing import Any

from redis.asyncio.cluster import RedisCluster

from .keys import Keys
from .updates import count_in_window

log = logging.getLogger(__name__)

PENDING = "pending"
# A decision's request id is held this long while it is handled (a handling that died
# frees it then), and an accepted decision's answer this long for the page's retries (a
# page retries within seconds). A refused decision keeps nothing: a repeat is refused again.
PENDING_TTL_S = 60
REQUEST_TTL_S = 600
LISTEN_POLL_S = 1.0  # how long one read of the channels waits before looking again
RESTART_PAUSE_S = 0.5  # after the connection failed, before listening again
RESET = -1  # told to every page when messages may have been missed: read the record
CLOSED = -2  # told to every page when the process stops: end the stream (the page reconnects)


class AppStore:
    """The Mini App's requests, throttle and stream tickets, and the process's `EventHub`."""

    def __init__(self, redis: Any, keys: Keys) -> None:
        self.redis = redis
        self.keys = keys
        self.events = EventHub(redis, keys)

    async def hit(self, user_id: int, window_s: int) -> int:
        """Count one request of a person in the current window; return the count."""
        pipe = self.redis.pipeline(transaction=False)
        count_in_window(pipe, self.keys.app_throttle(user_id), window_s)
        _, count = await pipe.execute()
        return int(count)

    async def claim_request(
        self, user_id: int, game_id: str, request_id: str
    ) -> dict[str, Any] | None:
        """Take a request id of a game for its first handling (None), or what its accepted
        first handling answered ({"pending": true} while it is still being handled)."""
        key = self.keys.app_request(user_id, game_id, request_id)
        if await self.redis.set(key, PENDING, nx=True, ex=PENDING_TTL_S):
            return None
        stored = await self.redis.get(key)
        if stored is None or stored == PENDING:
            return {"pending": True}
        answer: dict[str, Any] = json.loads(stored)
        return answer

    async def answer_request(
        self, user_id: int, game_id: str, request_id: str, answer: dict[str, Any]
    ) -> None:
        """Keep what an accepted request was answered, for its repeats."""
        key = self.keys.app_request(user_id, game_id, request_id)
        await self.redis.set(key, json.dumps(answer), ex=REQUEST_TTL_S)

    async def forget_request(self, user_id: int, game_id: str, request_id: str) -> None:
        """A request that changed nothing (refused, or storage away): it may come again."""
        await self.redis.delete(self.keys.app_request(user_id, game_id, request_id))

    async def here(self, game_id: str, user_id: int, stream: str, process: str, ttl_s: int) -> None:
        """Note that a person's event stream of a game is open on `process`: it counts while
        that process's pages live (`pages_alive`), with nothing to renew per page; the
        game's set lives `ttl_s` after its newest stream opened (a stream's longest life)."""
        key = self.keys.app_present(game_id)
        pipe = self.redis.pipeline(transaction=False)
        pipe.zadd(key, {f"{user_id}:{stream}:{process}": int(time.time() * 1000)})
        pipe.expire(key, ttl_s)
        await pipe.execute()

    async def pages_alive(self, process: str, ttl_ms: int) -> None:
        """Say that `process` still holds its event streams, for `ttl_ms`."""
        await self.redis.set(self.keys.app_pages(process), "1", px=ttl_ms)

    async def gone(self, game_id: str, user_id: int, stream: str, process: str) -> None:
        """A person's event stream of a game has ended."""
        await self.redis.zrem(self.keys.app_present(game_id), f"{user_id}:{stream}:{process}")

    async def present(self, game_id: str) -> set[int]:
        """Who has an event stream of the game open now: those noted by a process whose
        pages live (a process killed leaves its notes, dropped here once its lease ends)."""
        key, now_ms = self.keys.app_present(game_id), int(time.time() * 1000)
        members = await self.redis.zrange(key, 0, -1, withscores=True)
        if not members:
            return set()
        noted: dict[str, list[str]] = {}
        here: set[int] = set()
        for member, score in members:
            parts = str(member).split(":")
            if len(parts) == 3:
                noted.setdefault(parts[2], []).append(str(member))
            elif score > now_ms:  # noted by an older version, until it lapses
                here.add(int(parts[0]))
        processes = sorted(noted)
        pipe = self.redis.pipeline(transaction=False)
        for process in processes:
            pipe.exists(self.keys.app_pages(process))
        alive = await pipe.execute() if processes else []
        dead = [
            m
            for process, live in zip(processes, alive, strict=True)
            if not live
            for m in noted[process]
        ]
        if dead:
            await self.redis.zrem(key, *dead)
        for process, live in zip(processes, alive, strict=True):
            if live:
                here.update(int(m.split(":", 1)[0]) for m in noted[process])
        return here

    async def issue_ticket(self, ticket: str, grant: dict[str, Any], ttl_s: int) -> None:
        """Keep what a stream ticket grants for `ttl_s` seconds."""
        await self.redis.set(self.keys.app_ticket(ticket), json.dumps(grant), ex=ttl_s)

    async def take_ticket(self, ticket: str) -> dict[str, Any] | None:
        """What a ticket grants, once (it is gone after); None if unknown or expired."""
        stored = await self.redis.getdel(self.keys.app_ticket(ticket))
        if stored is None:
            return None
        grant: dict[str, Any] = json.loads(stored)
        return grant


class EventHub:
    """One process's listener of the game channels its pages follow."""

    def __init__(self, redis: Any, keys: Keys) -> None:
        self.redis = redis
        self.keys = keys
        self.cluster = isinstance(redis, RedisCluster)
        self._queues: dict[str, set[asyncio.Queue[int]]] = {}
        self._pubsub: Any = None
        self._task: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()
        self._closed = False
        self._sharded: bool | None = None  # SSUBSCRIBE (Redis 7), else SUBSCRIBE

    @contextlib.asynccontextmanager
    async def listen(self, game_id: str) -> AsyncIterator[asyncio.Queue[int]]:
        """A queue of the game's new revisions (RESET: some may have been missed; CLOSED:
        the process stops, nothing more comes) for as long as the block runs."""
        channel = self.keys.game_events(game_id)
        queue: asyncio.Queue[int] = asyncio.Queue()
        if self._closed:  # a page that connects while the process stops
            queue.put_nowait(CLOSED)
            yield queue
            return
        async with self._lock:
            first = channel not in self._queues
            self._queues.setdefault(channel, set()).add(queue)
            if self._task is None or self._task.done():
                self._task = asyncio.create_task(self._run())
            if first and self._pubsub is not None:
                await self._subscribe(channel)
        try:
            yield queue
        finally:
            async with self._lock:
                queues = self._queues.get(channel, set())
                queues.discard(queue)
                if not queues:
                    self._queues.pop(channel, None)
                    if self._pubsub is not None:
                        with contextlib.suppress(Exception):
                            if self._sharded:
                                await self._pubsub.sunsubscribe(channel)
                            else:
                                await self._pubsub.unsubscribe(channel)

    async def _open(self) -> None:
        if self._sharded is None:
            info = await self.redis.info("server")
            # A cluster's client answers per node: any node's version will do.
            if "redis_version" not in info:
                info = next(iter(info.values()))
            self._sharded = int(str(info["redis_version"]).split(".")[0]) >= 7
        async with self._lock:
            self._pubsub = self.redis.pubsub()
            if self._queues:
                await self._subscribe(*self._queues)

    async def _subscribe(self, *channels: str) -> None:
        # The commit publishes with SPUBLISH where Redis has it, else PUBLISH (plan.py).
        if self._sharded:
            await self._pubsub.ssubscribe(*channels)
        else:
            await self._pubsub.subscribe(*channels)

    async def _next(self) -> dict[str, Any] | None:
        # Only a cluster's PubSub has get_sharded_message; one server's get_message gives
        # the "smessage" of its SSUBSCRIBE channels too.
        if self._sharded and self.cluster:
            got: dict[str, Any] | None = await self._pubsub.get_sharded_message(
                ignore_subscribe_messages=True, timeout=LISTEN_POLL_S
            )
        else:
            got = await self._pubsub.get_message(
                ignore_subscribe_messages=True, timeout=LISTEN_POLL_S
            )
        return got

    async def _run(self) -> None:
        """Read the channels and hand each revision to its game's queues; on a failure,
        listen again and tell every page to read its record (a message may be lost)."""
        while not self._closed:
            try:
                await self._open()
                while not self._closed:
                    if not self._queues:
                        await asyncio.sleep(0.05)  # nothing subscribed: nothing to read
                        continue
                    message = await self._next()
                    if message is not None:
                        self._deliver(message)
            except asyncio.CancelledError:
                raise
            except Exception as err:
                log.warning("game events: listening failed (%r); listening again", err)
                await self._drop()
                for queues in self._queues.values():
                    for queue in queues:
                        queue.put_nowait(RESET)
                await asyncio.sleep(RESTART_PAUSE_S)

    def _deliver(self, message: dict[str, Any]) -> None:
        if message.get("type") not in ("smessage", "message"):
            return
        channel = message.get("channel")
        if isinstance(channel, bytes):
            channel = channel.decode()
        try:
            revision = int(json.loads(message["data"])["revision"])
        except (KeyError, ValueError, TypeError):
            return
        for queue in self._queues.get(str(channel), ()):
            queue.put_nowait(revision)

    async def _drop(self) -> None:
        pubsub, self._pubsub = self._pubsub, None
        if pubsub is not None:
            with contextlib.suppress(Exception):
                await pubsub.aclose()

    async def close(self) -> None:
        """Stop listening (at shutdown) and tell every open stream to end: the server
        stops only once its requests end, and an event stream would not by itself."""
        self._closed = True
        for queues in self._queues.values():
            for queue in queues:
                queue.put_nowait(CLOSED)
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(BaseException):
                await self._task
        await self._drop()
