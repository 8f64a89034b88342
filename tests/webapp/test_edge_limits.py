"""The web edge under abuse (security review of 2026-12-05): bodies refused by their declared
length and read no further than 4 KB, nor slower than a few seconds; headers that never end
closed; connections limited; event streams opened by a single-use ticket (no initData in a
URL), a few per person, a bounded number per process, each ending at its lifetime and when
its initData expires; no-store and nosniff on every API answer; /metrics not public."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from urllib.parse import urlsplit

import httpx

from tests.bot.play import open_and_start, players
from tests.telegram_sim.harness import Harness, TgUser, running_bot
from tgbot.webapp.api import BODY_READ_S

from .client import Page, base_url, init_data

WAIT_S = 10.0  # far longer than any answer below takes when it comes at all


@contextlib.asynccontextmanager
async def connection(
    h: Harness,
) -> AsyncIterator[tuple[asyncio.StreamReader, asyncio.StreamWriter]]:
    """A raw TCP connection to the bot, to send exactly the bytes a test wants."""
    where = urlsplit(base_url(h))
    reader, writer = await asyncio.open_connection(where.hostname, where.port)
    try:
        yield reader, writer
    finally:
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()


def decide_head(h: Harness, user: TgUser, length_header: str) -> bytes:
    """The request line and headers of a signed POST /app/api/decide."""
    return (
        "POST /app/api/decide HTTP/1.1\r\nHost: bot\r\nContent-Type: application/json\r\n"
        f"Authorization: tma {init_data(h, user)}\r\n{length_header}\r\n\r\n"
    ).encode()


async def status_of(reader: asyncio.StreamReader) -> int:
    """The status code of the answer on a raw connection (waiting at most WAIT_S)."""
    line = await asyncio.wait_for(reader.readline(), WAIT_S)
    assert line.startswith(b"HTTP/1.1 "), line
    return int(line.split()[1])


async def test_a_body_declared_too_large_is_refused_unread(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h, connection(h) as (reader, writer):
        # 64 MB declared, none sent: answered at once, nothing waited for.
        writer.write(decide_head(h, players(1)[0], "Content-Length: 67108864"))
        await writer.drain()
        assert await status_of(reader) == 413


async def test_a_chunked_body_is_read_no_further_than_the_limit(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h, connection(h) as (reader, writer):
        writer.write(decide_head(h, players(1)[0], "Transfer-Encoding: chunked"))
        for _ in range(5):  # 5 KB sent, and the body never ends
            writer.write(b"400\r\n" + b" " * 1024 + b"\r\n")
        await writer.drain()
        assert await status_of(reader) == 413


async def test_a_slow_body_is_given_up(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h, connection(h) as (reader, writer):
        writer.write(decide_head(h, players(1)[0], "Content-Length: 200") + b'{"game"')
        await writer.drain()
        started = time.monotonic()
        assert await status_of(reader) == 408
        assert time.monotonic() - started < BODY_READ_S + 2


async def test_headers_that_never_end_are_cut_off(redis_server_url: str) -> None:
    async with (
        running_bot(redis_server_url, settings={"header_timeout_s": 1.0}) as h,
        connection(h) as (reader, writer),
    ):
        writer.write(b"GET /healthz HTTP/1.1\r\nHost: bot\r\n")
        started = time.monotonic()
        for i in range(int(WAIT_S * 2)):  # a header line every half second, never the end
            await writer.drain()
            if reader.at_eof():
                break
            with contextlib.suppress(TimeoutError):
                if await asyncio.wait_for(reader.read(1), 0.5) == b"":
                    break
            writer.write(f"X-Slow-{i}: 1\r\n".encode())
        assert reader.at_eof() and time.monotonic() - started < WAIT_S


async def test_connections_beyond_the_limit_are_answered_503(redis_server_url: str) -> None:
    async with running_bot(redis_server_url, settings={"max_connections": 4}) as h:
        async with contextlib.AsyncExitStack() as held:
            for _ in range(4):  # idle connections, each counted
                await held.enter_async_context(connection(h))
            deadline = time.monotonic() + WAIT_S
            status = 0
            while status != 503 and time.monotonic() < deadline:
                async with httpx.AsyncClient() as fresh:
                    status = (await fresh.get(base_url(h) + "/healthz")).status_code
                await asyncio.sleep(0.05)
            assert status == 503
        # Once they are gone, the bot serves again.
        assert (await h.http.get(base_url(h) + "/healthz")).status_code == 200


async def test_every_api_answer_is_no_store_and_nosniff(redis_server_url: str) -> None:
    async with running_bot(redis_server_url, settings={"person_updates_per_10s": 8}) as h:
        users = players(2)
        game_id = await open_and_start(h, users)
        record = await h.record(game_id)
        assert record is not None
        actor = next(u for u in users if u.id == record.game().awaiting().players[0])
        other = next(u for u in users if u != actor)
        api = base_url(h) + "/app/api"
        answers = [
            await h.http.get(f"{api}/view"),  # 401
            await Page(h, TgUser(5555, "Nobody")).view(),  # 404: no game
            await Page(h, actor).view("NOT A GAME"),  # 400
            await Page(h, actor).view(game_id),  # 200
            await Page(h, other).decide(game_id, record.rev, "i"),  # 403
            await Page(h, actor).decide(game_id, record.rev - 1, "i"),  # 409
            await Page(h, actor).decide(game_id, record.rev, "i"),  # 200
            await h.http.get(f"{api}/events", params={"ticket": "x" * 32}),  # 401
        ]
        spammer = Page(h, TgUser(6666, "Fast"))
        for _ in range(9):
            last = await spammer.view()
        answers.append(last)  # 429
        statuses = [a.status_code for a in answers]
        assert statuses == [401, 404, 400, 200, 403, 409, 200, 401, 429]
        for answer in answers:
            assert answer.headers.get("cache-control") == "no-store", answer
            assert answer.headers.get("x-content-type-options") == "nosniff", answer


async def test_metrics_are_not_served_on_the_public_listener(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h:
        assert (await h.http.get(base_url(h) + "/healthz")).status_code == 200
        assert (await h.http.get(base_url(h) + "/metrics")).status_code == 404
