"""Event streams and decision request ids, as the security review of 2026-12-05 asked: a
stream is opened by a short-lived single-use ticket from a signed POST (initData never in a
URL, so never in an access log); one person holds a few streams (a new one ends their
oldest), one process a bounded number (503 + Retry-After); a stream ends at its lifetime and
when its initData expires (the page reconnects). A refused decision keeps no key, an accepted
one only minutes, and a request id is one game's: reused in another game it is not answered
with the first game's answer."""

from __future__ import annotations

import asyncio
import time

import httpx

from tests.bot.play import GROUP, open_and_start, players
from tests.telegram_sim.harness import Harness, TgUser, running_bot
from tgbot.storage.app import REQUEST_TTL_S

from .client import Page, base_url, init_data

WAIT_S = 10.0


async def open_stream(h: Harness, url: str) -> tuple[httpx.Response, asyncio.Task[list[str]]]:
    """A stream that is listening, and the task reading it to its end (its lines)."""
    request = h.http.build_request("GET", url)
    response = await h.http.send(request, stream=True)
    assert response.status_code == 200, response.status_code
    lines = response.aiter_lines()
    assert await asyncio.wait_for(anext(lines), WAIT_S) == ": listening"

    async def rest() -> list[str]:
        try:
            return [line async for line in lines]
        finally:
            await response.aclose()

    return response, asyncio.create_task(rest())


async def ended(task: asyncio.Task[list[str]], within_s: float) -> bool:
    """Whether the stream ends by itself within `within_s` seconds."""
    done, _ = await asyncio.wait({task}, timeout=within_s)
    return bool(done)


async def close(*tasks: asyncio.Task[list[str]]) -> None:
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


async def test_a_stream_needs_a_single_use_ticket_never_init_data(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h:
        users = players(2)
        game_id = await open_and_start(h, users)
        events = base_url(h) + "/app/api/events"
        # initData in the URL (what the page sent before) opens nothing.
        tma = {"game": game_id, "tma": init_data(h, users[0])}
        async with h.http.stream("GET", events, params=tma) as refused:
            assert refused.status_code == 401
        ticket = base_url(h) + "/app/api/ticket"
        assert (await h.http.post(ticket, params={"game": game_id})).status_code == 401
        page = Page(h, users[0])
        url = await page.events_url(game_id)
        assert "tma" not in url and init_data(h, users[0]).split("&")[0] not in url
        _, reading = await open_stream(h, url)
        try:
            async with h.http.stream("GET", url) as again:  # the same ticket, used up
                assert again.status_code == 401
        finally:
            await close(reading)
        for game, status in (("NOT A GAME", 400), ("zzzzzzzzzz", 404)):
            answer = await h.http.post(ticket, params={"game": game}, headers=page.auth)
            assert answer.status_code == status


async def test_one_person_holds_a_few_streams_a_new_one_ends_the_oldest(
    redis_server_url: str,
) -> None:
    async with running_bot(redis_server_url, settings={"webapp_streams_per_person": 2}) as h:
        users = players(2)
        game_id = await open_and_start(h, users)
        page = Page(h, users[0])
        first = (await open_stream(h, await page.events_url(game_id)))[1]
        second = (await open_stream(h, await page.events_url(game_id)))[1]
        third = (await open_stream(h, await page.events_url(game_id)))[1]
        try:
            assert await ended(first, WAIT_S)
            assert not second.done() and not third.done()
        finally:
            await close(first, second, third)


async def test_a_full_process_refuses_a_stream_with_retry_after(redis_server_url: str) -> None:
    async with running_bot(redis_server_url, settings={"webapp_streams_per_process": 2}) as h:
        users = players(3)
        game_id = await open_and_start(h, users)
        held = [(await open_stream(h, await Page(h, u).events_url(game_id)))[1] for u in users[:2]]
        try:
            async with h.http.stream("GET", await Page(h, users[2]).events_url(game_id)) as full:
                assert full.status_code == 503
                assert int(full.headers["retry-after"]) > 0
        finally:
            await close(*held)
        # Once those have ended, a stream opens again.
        await asyncio.sleep(0.2)
        again = (await open_stream(h, await Page(h, users[2]).events_url(game_id)))[1]
        await close(again)


async def test_a_stream_ends_at_its_lifetime(redis_server_url: str) -> None:
    async with running_bot(redis_server_url, settings={"webapp_stream_lifetime_s": 1}) as h:
        users = players(2)
        game_id = await open_and_start(h, users)
        reading = (await open_stream(h, await Page(h, users[0]).events_url(game_id)))[1]
        try:
            assert await ended(reading, WAIT_S)
        finally:
            await close(reading)


async def test_a_stream_ends_when_its_init_data_expires(redis_server_url: str) -> None:
    async with running_bot(redis_server_url, settings={"webapp_auth_max_age_s": 60}) as h:
        users = players(2)
        game_id = await open_and_start(h, users)
        page = Page(h, users[0])
        page.auth = {"Authorization": "tma " + init_data(h, users[0], age_s=58)}
        started = time.monotonic()
        reading = (await open_stream(h, await page.events_url(game_id)))[1]
        try:
            assert await ended(reading, WAIT_S)
            assert time.monotonic() - started < 4
        finally:
            await close(reading)
        # The page reconnects: with the same, now expired initData, no new ticket.
        answer = await h.http.post(
            base_url(h) + "/app/api/ticket", params={"game": game_id}, headers=page.auth
        )
        assert answer.status_code == 401


async def test_refused_decisions_keep_no_key_accepted_ones_only_minutes(
    redis_server_url: str,
) -> None:
    async with running_bot(redis_server_url) as h:
        users = players(3)
        game_id = await open_and_start(h, users)
        record = await h.record(game_id)
        assert record is not None
        actor = next(u for u in users if u.id == record.game().awaiting().players[0])
        other = next(u for u in users if u != actor)
        outsider = Page(h, TgUser(7777, "Outsider"))
        for i in range(10):
            assert (await outsider.decide(game_id, record.rev, "i")).status_code == 403
            assert (await Page(h, other).decide(game_id, record.rev, "i")).status_code == 403
            stale = await Page(h, actor).decide(game_id, record.rev - 1, "i", f"stale-{i}")
            assert stale.status_code == 409
        pattern = f"{h.config.key_prefix}:app:*:req:*"
        assert [key async for key in h.store.redis.scan_iter(match=pattern)] == []
        accepted = await Page(h, actor).decide(game_id, record.rev, "i", "kept")
        assert accepted.status_code == 200
        keys = [key async for key in h.store.redis.scan_iter(match=pattern)]
        assert len(keys) == 1
        assert 0 < await h.store.redis.ttl(keys[0]) <= REQUEST_TTL_S <= 600


async def test_a_request_id_reused_in_another_game_gets_that_games_answer(
    redis_server_url: str,
) -> None:
    async with running_bot(redis_server_url) as h:
        users = players(2)
        game_a = await open_and_start(h, users)
        game_b = await open_and_start(h, players(2, first_id=3000), group=GROUP - 1)
        record = await h.record(game_a)
        assert record is not None
        actor = next(u for u in users if u.id == record.game().awaiting().players[0])
        page = Page(h, actor)
        first = await page.decide(game_a, record.rev, "i", "same-id")
        assert first.status_code == 200
        other = await h.record(game_b)
        assert other is not None
        elsewhere = await page.decide(game_b, other.rev, "i", "same-id")
        assert elsewhere.status_code == 403  # not their game: never game A's 200
        assert elsewhere.json()["ok"] is False
