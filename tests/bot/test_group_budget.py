"""A group's minute spent by priority: what a person must see now goes first,
then replies to commands, then edits; a forum's topics keep their own replies."""

from __future__ import annotations

import asyncio
import itertools
import time
from typing import Any

from tests.bot.play import open_and_start, open_lobby, players
from tests.store_probe import outbox_head
from tests.telegram_sim.harness import Harness, TgUser, running_bot
from tests.telegram_sim.server import TelegramSim
from tgbot.contract.plan import NOW, REPLY, STATUS
from tgbot.rendering.step_plan import RIDE_HOLD_MS
from tgbot.storage.keys import chat_owner
from tgbot.storage.windows import GroupShare
from tgbot.telegram.commands import help_text
from tgbot.telegram.rate_limit import (
    group_caps,
    group_pace,
    group_share,
    reply_slots,
    safe_group_limit,
)

WRITES = ("sendMessage", "editMessageText")
LIMIT = safe_group_limit(20)  # what the bot keeps to of Telegram's 20 a minute


def group_writes(sim: TelegramSim, group: int) -> int:
    """Messages and edits the group got (those Telegram let through)."""
    return sum(1 for c in sim.calls_to(group) if c.method in WRITES and c.status == 200)


async def window(h: Harness, group: int) -> int:
    """The group's messages and edits counted in its minute now (every process's)."""
    keys = h.store.keys
    return int(await h.store.redis.zcard(keys.chat_sends(group))) + int(
        await h.store.redis.zcard(keys.chat_game_sends(group))
    )


async def replies_counted(h: Harness, group: int) -> int:
    """The group's replies to commands counted in its minute now."""
    return int(await h.store.redis.zcard(h.store.keys.chat_sends(group)))


async def fill_window(h: Harness, group: int, share: int, ago_ms: int = 0) -> None:
    """Count game messages in the group's minute, `ago_ms` ago, until it holds `share` (as
    the sender counts them; at once, so that a test does not race the minute's clock)."""
    while await window(h, group) < share:
        at = int(time.time() * 1000) - ago_ms
        taken, _ = await h.store.windows.take_chat(
            group, at, LIMIT, 60_000, 1, 0, share=GroupShare("game", cap=share)
        )
        assert taken


async def empty_window(h: Harness, group: int, pace: bool = True) -> None:
    """Forget what the group's minute counted (and, with `pace`, when its next is due)."""
    keys = h.store.keys
    names = [keys.chat_sends(group), keys.chat_game_sends(group)]
    await h.store.redis.delete(*names, *([keys.chat_pace(group)] if pace else []))


async def income_in_a_spent_minute(
    h: Harness, group: int, users: list[TgUser]
) -> tuple[str, TgUser]:
    """Start a game in the group, spend the game's share of its minute (at once), and let
    the first mover take Income, whose story then waits for room: the game and its actor."""
    game_id = await open_and_start(h, users, group=group)
    await h.delivered(game_id)
    await fill_window(h, group, group_caps(LIMIT)[NOW])
    actor = next(u for u in users if h.sim.with_buttons(u.id))
    await h.press_text(actor, actor.id, h.tr("💰 Income"))
    return game_id, actor


async def test_the_end_arrives_at_once_in_a_group_whose_minute_commands_spent(
    redis_server_url: str,
) -> None:
    # An onlooker asks /help again and again until the replies stop at their share of the
    # minute; then a player leaves and the game ends. The end goes out ahead of the
    # replies still waiting (they were asked first), and nobody is refused by Telegram.
    group = -100950
    sim = TelegramSim(group_flood_per_minute=20)
    async with running_bot(redis_server_url, sim=sim, group_rate=20) as h:
        a, b = players(2, first_id=9500)
        await open_and_start(h, [a, b], group=group)
        onlooker = TgUser(9599, "Onlooker")
        while await replies_counted(h, group) < reply_slots(LIMIT):
            await h.say(onlooker, group, "/help")
        for _ in range(3):  # these wait: the replies' share of the minute is spent
            assert (await h.post(h.message_update(onlooker, group, "/help"))).status_code == 200
        assert await outbox_head(h.store, chat_owner(group)) is not None
        helps = sim.text_of(group).count(help_text(h.catalogs.get("ka")))
        response = await h.post(h.message_update(b, group, "/leave"))
        assert response.status_code == 200
        winner = h.tr("🏆 {winner} wins!").format(winner=a.first_name)
        await h.until(lambda: winner in sim.text_of(group))
        # The replies asked before the end still wait: the end went ahead of them.
        assert await outbox_head(h.store, chat_owner(group)) is not None
        assert sim.text_of(group).count(help_text(h.catalogs.get("ka"))) == helps
        assert not sim.flood_refusals(group)
        assert group_writes(sim, group) <= LIMIT


async def test_the_end_arrives_at_once_in_a_group_whose_minute_is_full(
    redis_server_url: str,
) -> None:
    # The game at its steady pace and an onlooker's replies keep the group's minute full
    # (18 of Telegram's 20); a player leaves and the game ends: the end rings at once, in
    # one slot of Telegram's margin, not when the minute's oldest message ages out.
    group = -100951
    sim = TelegramSim(group_flood_per_minute=20)
    async with running_bot(redis_server_url, sim=sim, group_rate=20) as h:
        a, b = players(2, first_id=9510)
        game_id = await open_and_start(h, [a, b], group=group)
        await h.delivered(game_id)
        onlooker = TgUser(9598, "Onlooker")
        while await replies_counted(h, group) < reply_slots(LIMIT):
            await h.say(onlooker, group, "/help")
        await fill_window(h, group, LIMIT)
        began = time.monotonic()
        assert (await h.post(h.message_update(b, group, "/leave"))).status_code == 200
        winner = h.tr("🏆 {winner} wins!").format(winner=a.first_name)
        await h.until(lambda: winner in sim.text_of(group))
        assert time.monotonic() - began < 3
        assert not sim.flood_refusals(group)


async def test_a_reply_arrives_at_once_in_a_group_whose_minute_the_game_spent(
    redis_server_url: str,
) -> None:
    # The game's messages have spent their share of the group's minute (counted in Redis as
    # the sender counts them; filled here at once, so the test does not race the minute's
    # clock), and the next turn's message waits. /help asked then is answered at once,
    # ahead of the turn queued before it.
    group = -100953
    sim = TelegramSim(group_flood_per_minute=20)
    async with running_bot(redis_server_url, sim=sim, group_rate=20) as h:
        game_id, _ = await income_in_a_spent_minute(h, group, players(3, first_id=9800))

        async def queued() -> list[dict[str, Any]]:
            items = await h.store.outboxes.outbox_items(game_id)
            return [op for _, op in items if op["chat"] == group]

        for _ in range(500):  # the Income's story waits for the group's minute
            if await queued():
                break
            await asyncio.sleep(0.01)
        assert await queued()
        onlooker = TgUser(9899, "Onlooker")
        assert (await h.post(h.message_update(onlooker, group, "/help"))).status_code == 200
        await h.delivered(chat_owner(group))
        assert sim.last(group).text == help_text(h.catalogs.get("ka"))
        assert await queued()  # the turn still waits
        assert not sim.flood_refusals(group)
        assert group_writes(sim, group) <= LIMIT


async def test_a_reply_arrives_at_once_in_a_group_whose_minute_status_edits_spent(
    redis_server_url: str,
) -> None:
    # Optional edits have spent their share of the group's minute (counted in Redis as the
    # sender counts them; filled here at once, so the test does not race the minute's
    # clock). Players join and leave the lobby: each step's new list is an optional edit,
    # and it waits; /help is answered at once all the same, and nothing brought the group
    # near Telegram's limit.
    group = -100951
    sim = TelegramSim(group_flood_per_minute=20)
    async with running_bot(redis_server_url, sim=sim, group_rate=20) as h:
        users = players(4, first_id=9600)
        game_id = await open_lobby(h, users, group=group)
        await h.delivered(game_id)
        await fill_window(h, group, group_caps(LIMIT)[STATUS])
        edits = len(sim.calls_to(group, "editMessageText"))
        join, leave = h.tr("✋ Join"), h.tr("🚪 Leave")
        mover = users[-1]
        for _ in range(3):
            await h.press_text(mover, group, leave)
            await h.press_text(mover, group, join)
        assert await outbox_head(h.store, game_id) is not None  # the newest list waits
        assert len(sim.calls_to(group, "editMessageText")) == edits
        assert await window(h, group) <= group_caps(LIMIT)[STATUS]
        onlooker = TgUser(9699, "Onlooker")
        assert (await h.post(h.message_update(onlooker, group, "/help"))).status_code == 200
        await h.delivered(chat_owner(group))  # the reply, not the lobby's list, delivered
        assert sim.last(group).text == help_text(h.catalogs.get("ka"))
        assert await outbox_head(h.store, game_id) is not None  # the list still waits
        assert not sim.flood_refusals(group)


async def test_replies_for_two_topics_of_a_forum_stay_in_their_topics(
    redis_server_url: str,
) -> None:
    # Telegram holds a forum group for a moment (a 429) while people in two topics ask
    # /help: both replies wait in the group's lane together, and each goes to the topic
    # it was asked in, not joined into one message in the first topic.
    group = -100952
    sim = TelegramSim()
    async with running_bot(redis_server_url, sim=sim) as h:
        first, second = TgUser(9700, "First"), TgUser(9701, "Second")
        sim.fail_next("sendMessage", 429, "Too Many Requests: retry after 600", group, 600)
        assert (
            await h.post(h.message_update(first, group, "/help", thread_id=5))
        ).status_code == 200
        await h.until(lambda: bool(sim.flood_refusals(group)))
        assert (
            await h.post(h.message_update(second, group, "/help", thread_id=7))
        ).status_code == 200
        sim.failures.clear()
        await h.store.redis.delete(h.store.keys.chat_hold(group))  # the hold is over
        await h.replied(group)
        text = help_text(h.catalogs.get("ka"))
        by_topic = {m.thread_id: m.text for m in sim.messages(group)}
        assert by_topic == {5: text, 7: text}


async def test_a_fast_game_spends_the_group_s_minute_evenly(redis_server_url: str) -> None:
    # A game asking for a group message every 100 ms for two minutes (the clock passed in,
    # so nothing waits): it gets its share of each minute spread out, a few at once and
    # then one every few seconds, never all of it in a few seconds and then nothing for
    # the rest of the minute; a reply still goes at once beside it, and an optional edit
    # goes only when the group is not behind its pace.
    group = -100958
    caps = group_caps(LIMIT)
    interval, ahead = group_pace(LIMIT)
    async with running_bot(redis_server_url, group_rate=20) as h:
        windows = h.store.windows

        async def take(at: int, cls: int) -> bool:
            pace = interval if cls != REPLY else 0
            share = group_share(LIMIT, cls)
            taken, _ = await windows.take_chat(
                group, at, LIMIT, 60_000, 1, 0, pace, ahead.get(cls, 0), share
            )
            return bool(taken)

        start = 10_000_000
        sent = [at for at in range(start, start + 120_000, 100) if await take(at, NOW)]
        burst = ahead[NOW] // interval + 1
        assert sent[:burst] == list(range(start, start + 100 * burst, 100))
        for first in sent:
            assert sum(first <= at < first + 60_000 for at in sent) <= caps[NOW]
        gaps = [b - a for a, b in itertools.pairwise(sent)]
        assert max(gaps) <= 4 * interval  # never shut for most of a minute
        assert len(sent) >= 2 * caps[NOW] - burst  # and its share, minute after minute
        assert await take(sent[-1] + 1, REPLY)
        quiet = sent[-1] + 30_000
        assert await take(quiet, STATUS)
        assert not await take(quiet + 1, STATUS)  # the group just got a message
        assert await take(quiet + 2, NOW)
        assert not await take(quiet + 2 + interval, STATUS)  # still behind its pace
        assert await take(quiet + 2 * interval, STATUS)


async def test_a_quiet_turn_rides_at_the_top_of_the_next_claim_and_costs_no_call(
    redis_server_url: str,
) -> None:
    # An Income has nothing to answer: it has no message of its own, and the next player
    # is asked at once. Their claim comes before the Income's verdict was added to the
    # newest message (the deal's): it rides at the top of the claim's message, and the
    # deal's message is never edited for it. The claim's verdict later keeps it on top.
    group = -100959
    sim = TelegramSim(group_flood_per_minute=20)
    async with running_bot(redis_server_url, sim=sim, group_rate=20) as h:
        users = players(3, first_id=9900)
        game_id = await open_and_start(h, users, group=group)
        await h.delivered(game_id)
        first = sim.messages(group)[0]
        shown, edits = first.text, first.edits
        assert shown.splitlines()[-1].startswith(h.tr("➡️ next: {player}").split("{")[0])
        actor = next(u for u in users if h.sim.with_buttons(u.id))
        await h.press_text(actor, actor.id, h.tr("💰 Income"))
        income = h.tr("💰 {actor} takes Income.").format(actor=actor.first_name)
        record = await h.record(game_id)
        assert record is not None
        mover = next(u for u in users if u.id == record.game().awaiting().players[0])
        await h.until(lambda: bool(sim.with_buttons(mover.id)))  # asked at once
        assert income not in sim.text_of(group)
        await h.press_text(mover, mover.id, h.tr("👑 Tax"))
        await h.until(lambda: len(sim.messages(group)) == 2)
        claim = sim.messages(group)[1]
        top, rest = claim.text.split("\n\n", 1)
        assert top.startswith(income), claim.text
        tax = h.tr("👑 {actor} claims the Duke to take Tax.").format(actor=mover.first_name)
        assert tax in rest
        for u in users:
            if u != mover:
                await h.press(
                    u, group, claim.message_id, claim.button(h.tr("✅ Pass"))["callback_data"]
                )
        await h.until(lambda: not claim.keyboard)  # its verdict
        assert claim.text.startswith(income) and tax in claim.text
        await h.delivered(game_id)
        await asyncio.sleep(1.5)  # a sweep or more
        assert (first.text, first.edits) == (shown, edits)
        assert sim.text_of(group).count(income) == 1
        assert not sim.flood_refusals(group)


async def test_a_quiet_turn_nothing_follows_is_added_to_the_newest_message_with_room(
    redis_server_url: str,
) -> None:
    # The next player is slow: no new message comes to carry the Income's verdict. After
    # its hold it is added to the newest message (the deal's) by one edit, since the
    # group's minute has room; the older verdict ("➡️ next: X") stays as it was above it,
    # no message rings, and nothing comes later to take a line off.
    group = -100960
    sim = TelegramSim(group_flood_per_minute=20)
    async with running_bot(redis_server_url, sim=sim, group_rate=20) as h:
        users = players(3, first_id=9950)
        game_id = await open_and_start(h, users, group=group)
        await h.delivered(game_id)
        first = sim.messages(group)[0]
        shown, edits = first.text, first.edits
        sends = len(sim.calls_to(group, "sendMessage"))
        actor = next(u for u in users if h.sim.with_buttons(u.id))
        pressed = time.monotonic()
        await h.press_text(actor, actor.id, h.tr("💰 Income"))
        income = h.tr("💰 {actor} takes Income.").format(actor=actor.first_name)
        await h.until(lambda: income in first.text, RIDE_HOLD_MS / 1000 + 5)
        assert time.monotonic() - pressed >= RIDE_HOLD_MS / 1000 - 0.5
        before, added = first.text.rsplit("\n\n", 1)
        assert before.splitlines()[0] == shown.splitlines()[0]
        assert before.splitlines()[-1] == shown.splitlines()[-1]
        assert added.startswith(income), added
        assert first.edits == edits + 1
        assert len(sim.calls_to(group, "sendMessage")) == sends
        await h.delivered(game_id)
        await asyncio.sleep(1.5)  # a sweep or more
        assert first.edits == edits + 1
        assert await outbox_head(h.store, game_id) is None
        assert not sim.flood_refusals(group)


async def test_the_next_player_is_asked_only_once_the_group_shows_the_turn_before(
    redis_server_url: str,
) -> None:
    # A claim of Tax is passed by everyone, in a group whose minute the game has spent (at
    # once): its verdict waits for room. The next player is not asked to move meanwhile
    # (the table would not show what happened before their turn); once the group shows
    # it, their prompt follows, after it.
    group = -100961
    sim = TelegramSim(group_flood_per_minute=20)
    async with running_bot(redis_server_url, sim=sim, group_rate=20) as h:
        users = players(3, first_id=9970)
        game_id = await open_and_start(h, users, group=group)
        await h.delivered(game_id)
        actor = next(u for u in users if h.sim.with_buttons(u.id))
        await h.press_text(actor, actor.id, h.tr("👑 Tax"))
        await h.until(lambda: len(sim.messages(group)) == 2)
        claim = sim.messages(group)[1]
        await h.delivered(game_id)
        await fill_window(h, group, group_caps(LIMIT)[NOW])
        for u in users:
            if u != actor:
                await h.press(
                    u, group, claim.message_id, claim.button(h.tr("✅ Pass"))["callback_data"]
                )
        record = await h.record(game_id)
        assert record is not None
        mover = record.game().awaiting().players[0]
        assert mover != actor.id
        asked = len(sim.calls_to(mover, "sendMessage"))
        await asyncio.sleep(2.5)  # sweeps come and go; the group's minute stays spent
        assert claim.keyboard  # its verdict waits
        assert len(sim.calls_to(mover, "sendMessage")) == asked
        assert not sim.with_buttons(mover)
        await empty_window(h, group)
        await h.until(lambda: bool(sim.with_buttons(mover)), 15)
        # A pass edits nothing: the claim's one edit is its verdict.
        [verdict] = [
            c
            for c in sim.calls_to(group, "editMessageText")
            if c.status == 200 and int(c.params.get("message_id", 0)) == claim.message_id
        ]
        shown = verdict.at
        prompt = sim.calls_to(mover, "sendMessage")[asked]
        assert shown <= prompt.at
        assert not sim.flood_refusals(group)
