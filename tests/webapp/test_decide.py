"""POST /app/api/decide: the chat's press, once per request id, with the chat's rights and
refusals; and GET /app/api/events: a step committed by one process reaches a page
listening on another."""

from __future__ import annotations

import asyncio

from tests.bot.play import GROUP, open_and_start, players
from tests.telegram_sim.harness import running_bot

from .client import Page, follow


async def test_a_decision_applies_once_per_request_id(any_redis_url: str) -> None:
    async with running_bot(any_redis_url) as h:
        users = players(3)
        game_id = await open_and_start(h, users)
        record = await h.record(game_id)
        assert record is not None
        actor_id = record.game().awaiting().players[0]
        actor = next(u for u in users if u.id == actor_id)
        other = next(u for u in users if u.id != actor_id)
        rev = record.rev
        # Not theirs to decide: refused in their language, nothing changes.
        refused = await Page(h, other).decide(game_id, rev, "i")
        assert refused.status_code == 403
        assert refused.json() == {"ok": False, "error": h.tr("It's not your turn to decide.")}
        # A stale revision is out of date, as a stale button is.
        stale = await Page(h, actor).decide(game_id, rev - 1, "i")
        assert stale.status_code == 409
        assert stale.json() == {"ok": False, "error": h.tr("This button is out of date.")}
        page = Page(h, actor)
        first = await page.decide(game_id, rev, "i", request_id="req-1")
        assert first.status_code == 200, first.text
        assert first.json()["ok"] is True and first.json()["revision"] > rev
        again = await page.decide(game_id, rev, "i", request_id="req-1")
        assert (again.status_code, again.json()) == (200, first.json())
        after = await h.record(game_id)
        assert after is not None
        assert after.game().player(actor_id).coins == 3  # one Income, not two
        assert len(after.moves) == len(record.moves) + 1
        # The group hears of it as of a button press.
        await h.delivered(game_id)
        assert actor.first_name in h.sim.text_of(GROUP)
        # A different request with the old revision is out of date now.
        late = await page.decide(game_id, rev, "i", request_id="req-2")
        assert late.status_code == 409


async def test_a_press_on_one_process_reaches_a_page_on_another(any_redis_url: str) -> None:
    """On one server and on a Redis Cluster (sharded pub/sub on the game's slot)."""
    async with running_bot(any_redis_url, instances=2) as h:
        users = players(2)
        game_id = await open_and_start(h, users)
        record = await h.record(game_id)
        assert record is not None
        got: list[int] = []
        listening = asyncio.Event()
        listener = asyncio.create_task(follow(h, 1, game_id, record.rev, got, listening))
        try:
            await asyncio.wait_for(listening.wait(), 10)
            actor_id = record.game().awaiting().players[0]
            actor = next(u for u in users if u.id == actor_id)
            decided = await Page(h, actor, instance=0).decide(game_id, record.rev, "i")
            assert decided.status_code == 200, decided.text
            new = decided.json()["revision"]
            await h.until(lambda: new in got, timeout=10)
            assert got[0] > record.rev  # nothing older than `after`
            # Reconnecting with an older revision hears the newest at once.
            again: list[int] = []
            late = asyncio.create_task(follow(h, 0, game_id, record.rev, again, asyncio.Event()))
            await h.until(lambda: bool(again), timeout=10)
            assert again[0] >= new
            late.cancel()
            await asyncio.gather(late, return_exceptions=True)
        finally:
            listener.cancel()
            await asyncio.gather(listener, return_exceptions=True)
