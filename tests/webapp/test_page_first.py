"""Asked in the page first (issue 39, item 3): a player whose page has the game's event
stream open gets a new decision there; their private prompt goes only if they have not
decided within `app_first_s`, or at once when the page closes. A decision made in the page
sends nothing to their private chat, and the deadline counts from when they were first
asked, in the page, not from the prompt's later arrival in the chat."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from tests.bot.play import GROUP, open_lobby, players
from tests.telegram_sim.harness import Harness, TgUser, running_bot
from tgbot.contract.plan import Deadline, Edit, Fallback, Send
from tgbot.telegram.lanes import Pending, answered_elsewhere, asked_in_page

from .client import Page
from .test_streams_and_requests import close, open_stream


async def start_with_pages(
    h: Harness, users: list[TgUser], in_page: list[TgUser]
) -> tuple[str, dict[int, asyncio.Task[list[str]]]]:
    """A lobby filled, the pages of `in_page` following it, then the game started."""
    game_id = await open_lobby(h, users)
    streams = {
        u.id: (await open_stream(h, await Page(h, u).events_url(game_id)))[1] for u in in_page
    }
    await h.press_text(users[0], GROUP, h.tr("▶️ Start"))
    return game_id, streams


async def prompt_entry(h: Harness, game_id: str, user_id: int) -> dict[str, Any]:
    """The user's prompt as it waits in the game's outbox."""
    for _ in range(200):
        for _, entry in await h.store.outboxes.outbox_items(game_id):
            if entry.get("chat") == user_id and entry.get("starts_deadline") is not None:
                return entry
        await asyncio.sleep(0.02)
    raise AssertionError(f"no prompt of {user_id} waits")


def prompts_to(h: Harness, user_id: int) -> list[Any]:
    """The messages with buttons sent to a private chat."""
    return [
        c
        for c in h.sim.calls_to(user_id, "sendMessage")
        if c.status == 200 and c.params.get("reply_markup")
    ]


def game_calls_to(h: Harness, user_id: int) -> list[Any]:
    """The calls to a private chat but the answer to /start."""
    return [
        c for c in h.sim.calls_to(user_id) if not str(c.params.get("text", "")).startswith("👋")
    ]


async def deadline_started(h: Harness, game_id: str) -> int:
    """The awaited decision's deadline once a delivery (or the page) has started it."""
    for _ in range(200):
        record = await h.record(game_id)
        assert record is not None
        if record.delivered == record.context and record.deadline_ms is not None:
            return record.deadline_ms
        await asyncio.sleep(0.02)
    raise AssertionError("the deadline never started")


async def test_a_decision_made_in_the_page_sends_nothing_to_the_private_chat(
    redis_server_url: str,
) -> None:
    async with running_bot(redis_server_url, settings={"app_first_s": 3}) as h:
        users = players(2)
        game_id, streams = await start_with_pages(h, users, users)
        try:
            record = await h.record(game_id)
            assert record is not None
            mover = record.game().awaiting().players[0]
            await prompt_entry(h, game_id, mover)
            await deadline_started(h, game_id)
            private_before = len(h.sim.calls_to(mover))
            decided = await Page(h, next(u for u in users if u.id == mover)).decide(
                game_id, record.rev, "i"
            )
            assert decided.status_code == 200, decided.text
            # The next mover's prompt is held for their page in turn; decide it there too.
            after = await h.record(game_id)
            assert after is not None
            other = after.game().awaiting().players[0]
            await prompt_entry(h, game_id, other)
            decided = await Page(h, next(u for u in users if u.id == other)).decide(
                game_id, after.rev, "i"
            )
            assert decided.status_code == 200, decided.text
            await asyncio.sleep(1.0)
            # The first mover's prompt and its close folded into nothing: no call at all.
            assert len(h.sim.calls_to(mover)) == private_before
            assert not prompts_to(h, mover)
            assert not prompts_to(h, other)
            # Nor their cards at the deal: their pages show them (and their own events).
            for u in users:
                assert game_calls_to(h, u.id) == [], game_calls_to(h, u.id)
            assert h.sim.calls_to(GROUP, "sendMessage")  # the table is told as ever
        finally:
            await close(*streams.values())


async def test_no_decision_in_time_gets_the_prompt_and_the_deadline_counts_from_the_page(
    redis_server_url: str,
) -> None:
    async with running_bot(redis_server_url, settings={"app_first_s": 2}) as h:
        users = players(2)
        game_id, streams = await start_with_pages(h, users, users)
        try:
            record = await h.record(game_id)
            assert record is not None
            mover = record.game().awaiting().players[0]
            entry = await prompt_entry(h, game_id, mover)
            await deadline_started(h, game_id)
            # The group's first turn message also names the decision, and its delivery,
            # beside the held prompt, starts the deadline again ("at least that", a few ms
            # later): read it once that message is out.
            lane = h.store.keys.outbox_lane(game_id, GROUP)
            for _ in range(200):
                if not await h.store.redis.llen(lane):
                    break
                await asyncio.sleep(0.02)
            asked = await deadline_started(h, game_id)
            # Started as the page showed it: from when the prompt was queued.
            queued, seconds = int(entry["at"]), int(entry["seconds"])
            assert queued + 1000 * seconds <= asked <= queued + 1000 * (seconds + 1)
            assert not prompts_to(h, mover)
            await h.until(lambda: bool(prompts_to(h, mover)), timeout=6)
            arrived = time.time()
            assert arrived * 1000 >= queued + 2000 - 50  # held for the page's two seconds
            await h.delivered(game_id)
            record = await h.record(game_id)
            assert record is not None
            # Its arrival in the chat did not start the deadline again.
            assert record.deadline_ms == asked
        finally:
            await close(*streams.values())


async def test_a_page_that_closes_gets_its_prompt_at_once(redis_server_url: str) -> None:
    async with running_bot(redis_server_url, settings={"app_first_s": 30}) as h:
        users = players(2)
        game_id, streams = await start_with_pages(h, users, users)
        try:
            record = await h.record(game_id)
            assert record is not None
            mover = record.game().awaiting().players[0]
            await prompt_entry(h, game_id, mover)
            await deadline_started(h, game_id)
            await asyncio.sleep(0.5)
            assert not prompts_to(h, mover)
            closed = time.monotonic()
            await close(streams.pop(mover))
            await h.until(lambda: bool(prompts_to(h, mover)), timeout=5)
            assert time.monotonic() - closed < 3
        finally:
            await close(*streams.values())


async def test_without_a_page_or_with_page_first_off_the_prompt_goes_at_once(
    redis_server_url: str,
) -> None:
    for settings, in_page in (({"app_first_s": 30}, False), ({"app_first_s": 0}, True)):
        async with running_bot(redis_server_url, settings=settings) as h:
            users = players(2)
            game_id, streams = await start_with_pages(h, users, users if in_page else [])
            try:
                record = await h.record(game_id)
                assert record is not None
                mover = record.game().awaiting().players[0]
                await h.until(lambda m=mover: bool(prompts_to(h, m)), timeout=3)
                # The others are told their cards in the chat.
                for u in users:
                    if u.id != mover:
                        await h.until(lambda u=u: bool(game_calls_to(h, u.id)), timeout=3)
            finally:
                await close(*streams.values())


def pending(op: Send | Edit, token: str, at: int = 1000) -> Pending:
    return Pending(op, [token], at)


def test_an_unsent_prompt_and_its_close_fold_into_nothing() -> None:
    prompt = Send(
        7, "Your turn", [[{"text": "x", "data": "y"}]], "prompt:7", deadline=Deadline(3, 30)
    )
    told = Send(7, "You drew a card")
    closed = Edit(7, "prompt:7", "You took Income")
    lane, dropped = answered_elsewhere(
        [pending(prompt, "a"), pending(told, "b"), pending(closed, "c")]
    )
    assert [item.raws for item in lane] == [["b"]]
    assert dropped == ["a", "c"]
    # A newer prompt shown in its place goes as a new message; the older is dropped.
    again = Send(
        7,
        "Lose a card",
        [[{"text": "x", "data": "z"}]],
        "prompt:7",
        in_place=True,
        deadline=Deadline(4, 30),
    )
    lane, dropped = answered_elsewhere([pending(prompt, "a"), pending(again, "d", 1500)])
    assert dropped == ["a"] and len(lane) == 1
    assert lane[0].send and not lane[0].show and isinstance(lane[0].op, Send)
    assert not lane[0].op.in_place
    # One to be shown in place of an older one, closed before it went (the store kept the
    # close with the show's flag): nothing, the older message shows its own end.
    lane, dropped = answered_elsewhere([Pending(closed, ["e"], 1000, show=True)])
    assert lane == [] and dropped == ["e"]
    # A prompt already sent (its id recorded) is edited as ever.
    sent = Pending(prompt, ["a"], 1000, sent=55)
    lane, dropped = answered_elsewhere([sent, pending(closed, "c")])
    assert dropped == [] and len(lane) == 2
    # One taken to Telegram whose answer was lost (progress 0), answered since: not made
    # again just to be closed (the sender says a copy may be left, closed when pressed).
    unanswered = Pending(prompt, ["a"], 1000, sent=0)
    lane, dropped = answered_elsewhere([unanswered, pending(told, "b"), pending(closed, "c")])
    assert [item.raws for item in lane] == [["b"]] and dropped == ["a", "c"]
    # Still awaited, it is made again, with its buttons (the game must know its id).
    lane, dropped = answered_elsewhere([unanswered])
    assert dropped == [] and lane[0].sent == 0


def test_a_present_players_prompt_waits_for_the_page_then_goes() -> None:
    prompt = Send(
        7, "Your turn", [[{"text": "x", "data": "y"}]], "prompt:7", deadline=Deadline(3, 30)
    )
    before = Send(7, "Game closed")
    cards = Send(7, "Your cards", fallback=Fallback(-5, None, "unreachable"))
    group = Send(-5, "Turn")
    lanes = {
        7: [pending(before, "a"), pending(cards, "d"), pending(prompt, "b")],
        -5: [pending(group, "c")],
    }
    ready, held, told = asked_in_page(lanes, {7}, 5000, 3000)
    assert [i.raws for i in ready[7]] == [["a"]] and [i.raws for i in held] == [["b"]]
    assert [i.raws for i in told] == [["d"]]  # the page tells the game's events
    assert ready[-5] == lanes[-5]
    ready, held, told = asked_in_page(lanes, {7}, 5000, 6000)  # its time has passed
    assert [i.raws for i in ready[7]] == [["a"], ["b"]] and not held
    ready, held, told = asked_in_page(lanes, set(), 5000, 3000)  # no page open
    assert ready == lanes and not held and not told
