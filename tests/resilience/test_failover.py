"""Kill -9 a master of a 3-master, 3-replica Redis Cluster mid-game: its replica takes
over, and every game still ends as if nothing happened, no press lost or applied twice."""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections import Counter
from typing import Any

import httpx
import pytest
from redis.asyncio import ConnectionPool, Redis
from redis.exceptions import ConnectionError

from tests.redis_server import FailoverCluster, failover_cluster
from tests.resilience.test_kill9 import check_against_replay, play_one
from tests.telegram_sim.harness import Harness, TgUser, running_bot
from tgbot.storage.clients import connect, guarded, storage_error
from tgbot.telegram import outage

GAMES = 4
KILL_AT_VERSION = 6  # the watched game's engine version when its master is killed


def tables() -> list[tuple[int, list[TgUser]]]:
    """GAMES groups of 3 to 5 players."""
    return [
        (-(810_000 + g), [TgUser(81_000 + g * 10 + j, f"F{g}{j}") for j in range(3 + g % 3)])
        for g in range(GAMES)
    ]


class Presses:
    """Every press the webhook accepted (200). play_one presses each decision once and
    waits for the game to move on; a press accepted but lost would leave the decision
    open, and play_one would press the same button again.

    The master holding the record of the game in group `watched` is killed (-9) just
    before a press of that game at KILL_AT_VERSION is posted, so that press, and those of
    every game whose keys that master holds, meet the failover."""

    def __init__(self, h: Harness, cluster: FailoverCluster, watched: int) -> None:
        self.accepted: Counter[tuple[int, str]] = Counter()  # (presser, button data)
        self.unavailable = 0
        self.killed: int | None = None
        original = h.post

        async def kill_before(query: dict[str, Any]) -> None:
            record = await h.record_of_chat(watched)
            if record is None or record.engine is None:
                return
            ours = str(query["data"]).startswith(f"{record.id}.")
            if ours and record.game().version >= KILL_AT_VERSION:
                self.killed = cluster.master_of(h.store.keys.game(record.id))
                cluster.kill9(self.killed)

        async def post(update: dict[str, Any], *args: Any, **kwargs: Any) -> httpx.Response:
            query = update.get("callback_query")
            if query is not None and self.killed is None:
                await kill_before(query)
            response = await original(update, *args, **kwargs)
            if response.status_code == 503:
                self.unavailable += 1
            elif response.status_code == 200 and query is not None:
                self.accepted[query["from"]["id"], str(query["data"])] += 1
            return response

        h.post = post  # type: ignore[method-assign]


@pytest.mark.timeout(240)
async def test_a_master_failover_mid_game_loses_no_press(caplog: pytest.LogCaptureFixture) -> None:
    with failover_cluster() as cluster, caplog.at_level(logging.WARNING, logger="tgbot"):
        async with running_bot(cluster.url, instances=2) as h:
            # Each test of the session may start a new outage (STORAGE is per process).
            outage.STORAGE.reset()
            games = tables()
            presses = Presses(h, cluster, games[0][0])
            urls = h.urls  # type: ignore[attr-defined]

            async def one(i: int, group: int, users: list[TgUser]) -> str:
                h.url = urls[i % 2]
                return await play_one(h, group, users)

            ids = await asyncio.gather(*(one(i, g, u) for i, (g, u) in enumerate(games)))
            assert presses.killed is not None, "the watched game ended before the kill"
            # A replica serves the killed master's slots (the games went on through it).
            await asyncio.to_thread(cluster.wait_failed_over, presses.killed)
            await asyncio.sleep(1.0)  # the last deliveries
            for game_id, (group, users) in zip(ids, games, strict=True):
                record = await h.record(game_id)
                assert record is not None and record.status == "over"
                assert record.seed is not None and record.engine is not None
                names = {u.id: u.first_name for u in users}
                check_against_replay(
                    h, record.engine, record.seed, [u.id for u in users], names, group
                )
            lost = [press for press, times in presses.accepted.items() if times > 1]
            print(f"\n{presses.accepted.total()} presses, {presses.unavailable} answered 503")
    dropped = [r.getMessage() for r in caplog.records if "dropped" in r.getMessage()]
    assert not dropped, dropped
    assert not lost, f"accepted, then pressed again: {lost}"
    # A delivery that met the failover says so in one line per outage, never a traceback.
    tracebacks = [r.getMessage() for r in caplog.records if r.exc_info]
    assert not tracebacks, tracebacks
    outages = [r for r in caplog.records if r.getMessage().startswith("Redis unavailable")]
    assert len(outages) <= 1


@pytest.mark.timeout(120)
async def test_a_bot_starts_while_the_first_node_its_redis_url_names_is_down() -> None:
    """REDIS_URL names every node of the cluster, the first one (a master) dead: the bot
    learns the cluster from the next one that answers, starts and plays a game to its end."""
    with failover_cluster() as cluster:
        first = cluster.masters[0]
        assert cluster.seeds.startswith(f"redis://127.0.0.1:{first},")
        cluster.kill9(first)
        await asyncio.to_thread(cluster.wait_failed_over, first)
        async with running_bot(cluster.seeds) as h:
            (group, users), *_ = tables()
            game_id = await play_one(h, group, users)
            record = await h.record(game_id)
            assert record is not None and record.status == "over"
            assert record.seed is not None and record.engine is not None
            names = {u.id: u.first_name for u in users}
            for _ in range(150):  # the last deliveries, 15 s at most
                try:
                    check_against_replay(
                        h, record.engine, record.seed, [u.id for u in users], names, group
                    )
                    break
                except AssertionError:
                    await asyncio.sleep(0.1)
            check_against_replay(h, record.engine, record.seed, [u.id for u in users], names, group)


async def pound(client: Any, worker: int, stop: asyncio.Event, errors: list[BaseException]) -> None:
    """Pipelines and single commands on keys of every master, as the bot sends them."""
    while not stop.is_set():
        try:
            pipe = client.pipeline(transaction=False)
            for j in range(3):
                pipe.incr(f"{{w{worker * 7 + j}}}:n")
            pipe.eval("return redis.call('INCR', KEYS[1])", 1, f"{{w{worker}}}:n")
            await pipe.execute()
            await client.incr(f"{{v{worker}}}:n")
        except Exception as err:
            errors.append(err)
            await asyncio.sleep(0.005)


async def test_the_cluster_client_rides_a_failover() -> None:
    """80 tasks keep every master busy while one is killed: no command fails (redis-py
    alone fails the killed master's commands with ConnectionError, and those of other
    tasks with AttributeError: 'NoneType' object has no attribute 'writelines')."""
    with failover_cluster() as cluster:
        client = connect(cluster.url, cluster=True)
        try:
            stop, errors = asyncio.Event(), []  # type: ignore[var-annotated]
            workers = [asyncio.create_task(pound(client, i, stop, errors)) for i in range(80)]
            await client.incr("{w0}:n")
            port = cluster.master_of("{w0}:n")
            while not await client.get("{w79}:n"):  # every worker is at it
                await asyncio.sleep(0.01)
            cluster.kill9(port)
            await asyncio.to_thread(cluster.wait_failed_over, port)
            await client.incr("{w0}:n")  # served by the new master
            stop.set()
            await asyncio.gather(*workers)
            assert not errors, errors[:3]
            assert cluster.master_of("{w0}:n") != port
        finally:
            await client.aclose()


async def test_a_write_on_a_connection_closed_under_it_is_a_connection_error(
    redis_server_url: str,
) -> None:
    """The race of the failover, made on purpose: a task is about to write (redis-py sends
    through asyncio.wait_for, another task) when another task disconnects the connection."""
    pool = ConnectionPool.from_url(redis_server_url, socket_timeout=5)
    plain = pool.connection_class(**pool.connection_kwargs)
    guarded_one = guarded(pool.connection_class)(**pool.connection_kwargs)
    failures = []
    for conn in (plain, guarded_one):
        await conn.connect()
        write = asyncio.create_task(conn.send_packed_command(conn.pack_command("PING")))
        await asyncio.sleep(0)  # the write waits for its wait_for task
        await conn.disconnect(nowait=True)
        try:
            await write
        except Exception as err:
            failures.append(err)
    await pool.aclose()
    upstream, ours = failures
    assert isinstance(upstream, AttributeError) and "writelines" in str(upstream)
    assert storage_error(upstream)  # the webhook answers 503 even where it is not guarded
    assert isinstance(ours, ConnectionError)
    assert not storage_error(AttributeError("'NoneType' object has no attribute 'x'"))


async def test_one_server_retries_once_on_a_dropped_connection(redis_server_url: str) -> None:
    """A command whose connection is dropped under it (a restart, a CLIENT KILL) is sent
    again once on a new connection instead of failing."""
    client = connect(redis_server_url)
    admin = Redis.from_url(redis_server_url, decode_responses=True)
    key = f"t{uuid.uuid4().hex[:8]}:queue"
    try:
        waiting = asyncio.create_task(client.blpop([key], timeout=30))
        while not (blocked := [c for c in await admin.client_list() if c["cmd"] == "blpop"]):
            await asyncio.sleep(0.01)
        assert await admin.client_kill_filter(_id=blocked[0]["id"]) == 1
        await admin.rpush(key, "x")
        assert list(await waiting) == [key, "x"]
    finally:
        await client.aclose()
        await admin.aclose()


def test_an_outage_is_said_in_one_line_and_its_end_in_another(
    caplog: pytest.LogCaptureFixture,
) -> None:
    storage = outage.Outage(quiet_s=0)
    with caplog.at_level(logging.WARNING, logger="tgbot.telegram.outage"):
        for owner in ("g1", "g2", "g1"):
            assert storage.failed(f"delivery of outbox {owner}", ConnectionError("refused"))
        assert not storage.failed("delivery of outbox g3", ValueError("a bug"))  # not Redis
        storage.working()
        storage.working()
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 2, lines
    assert lines[0].startswith("Redis unavailable (delivery of outbox g1")
    assert lines[1].startswith("Redis available again: 3 deliveries failed")
