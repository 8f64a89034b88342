"""Delivery under Telegram's flood limits, counted for every process in Redis (issue 14)."""

from __future__ import annotations

import asyncio
import itertools
import logging
import time

import pytest

from tests.bot.play import open_and_start, open_lobby, players
from tests.store_probe import outbox_head
from tests.telegram_sim.harness import TgUser, running_bot
from tests.telegram_sim.server import Call, TelegramSim
from tgbot.config import Deadlines
from tgbot.contract import callbacks
from tgbot.storage.keys import OUTBOX_TTL_S, chat_owner
from tgbot.telegram.commands import help_text
from tgbot.telegram.rate_limit import reply_slots, safe_group_limit

WRITES = ("sendMessage", "editMessageText")
GROUP_EDIT = -100902


def writes_to(sim: TelegramSim, chat_id: int) -> list[str]:
    """The methods of the messages and edits a chat got (those Telegram let through)."""
    return [c.method for c in sim.calls_to(chat_id) if c.method in WRITES and c.status == 200]


async def test_a_full_group_window_counts_edits_and_holds_back_only_that_group(
    any_redis_url: str,
) -> None:
    # Telegram's 20 a minute, counting edits: the lobby's joins are edits. The bot keeps to
    # 18 (a margin), of which replies take 3 while the game has messages in the minute, so
    # Telegram never answers 429 and the game keeps its share; the webhook
    # answers every update while the group's replies wait, and a private chat is answered
    # meanwhile.
    group = -100900
    sim = TelegramSim(group_flood_per_minute=20)
    async with running_bot(any_redis_url, sim=sim, group_rate=20) as h:
        users = players(4, first_id=8000)
        await open_lobby(h, users, group=group)
        # The joins' newest list, an optional edit, goes when the group is not behind.
        await h.until(lambda: "editMessageText" in writes_to(sim, group), 15)
        lobby = len(writes_to(sim, group))
        helper = TgUser(8100, "Helper")
        for _ in range(150):  # merged six to a message: enough for 18
            response = await h.post(h.message_update(helper, group, "/help"))
            assert response.status_code == 200
        assert await outbox_head(h.store, chat_owner(group)) is not None  # not waited for
        loner = TgUser(8101, "Loner")
        await h.say(loner, loner.id, "/help")  # delivered while the group waits
        assert sim.messages(loner.id)[-1].text == help_text(h.catalogs.get("ka"))
        # Replies to commands fill the group's minute only up to their own share while its
        # game has messages in it: 3 of the 18, the rest kept for the game.
        await h.until(
            lambda: len(writes_to(sim, group)) >= lobby + reply_slots(safe_group_limit(20))
        )
        await asyncio.sleep(0.5)  # sweeps come and go: no more replies go out
        assert len(writes_to(sim, group)) == lobby + reply_slots(safe_group_limit(20)) == lobby + 3
        assert await outbox_head(h.store, chat_owner(group)) is not None
        assert not sim.flood_refusals(group)


async def test_a_429_holds_the_chat_and_its_messages_follow_later(any_redis_url: str) -> None:
    # Telegram asks the group to wait: the lane is deferred (not retried in a loop), the
    # hold is kept in Redis, and the message goes out once it is over.
    group = -100901
    sim = TelegramSim()
    async with running_bot(any_redis_url, sim=sim) as h:
        sim.fail_next("sendMessage", 429, "Too Many Requests: retry after 1", group, 1, times=1)
        helper = TgUser(8200, "Helper")
        await h.say(helper, group, "/help")
        refused = sim.flood_refusals(group)
        assert len(refused) == 1
        delivered = [c for c in sim.calls_to(group, "sendMessage") if c.status == 200]
        assert len(delivered) == 1
        assert delivered[0].at - refused[0].at >= 1.0  # the retry_after was honoured


async def test_a_group_that_became_a_supergroup_gets_its_backlog_there(
    any_redis_url: str,
) -> None:
    # A basic group becomes a supergroup while its lobby, the replies to its commands and a
    # started game's messages are queued: Telegram answers each with migrate_to_chat_id.
    # The game, its settings and everything queued follow to the new chat, in order.
    old, new = -4200, -1004200
    sim = TelegramSim()
    async with running_bot(any_redis_url, sim=sim) as h:
        users = players(3, first_id=8300)
        for u in users:
            await h.say(u, u.id, "/start")
        await h.store.prefs.set_chat_settings(old, lang="en")
        sim.migrated[old] = new
        newgame = await h.post(h.message_update(users[0], old, "/newgame"))
        assert newgame.status_code == 200
        for _ in range(3):
            assert (await h.post(h.message_update(users[1], old, "/help"))).status_code == 200
        join = h.tr("✋ Join", "en")
        await h.until(lambda: h.has_button(new, join))
        # The outbox is readdressed a moment before the record moves (so that the screen
        # shown anew comes after everything queued): the lobby may show there first.
        record = await h.record_of_chat(new)
        for _ in range(250):
            if record is not None:
                break
            await asyncio.sleep(0.02)
            record = await h.record_of_chat(new)
        assert record is not None and record.chat_id == new
        assert await h.record_of_chat(old) is None
        assert (await h.store.prefs.chat_settings(new)).get("lang") == "en"
        await h.replied(old)  # the replies to /help went to the new chat
        help = help_text(h.catalogs.get("en"))
        assert h.sim.text_of(new).count(help) == 3
        for u in users[1:]:
            await h.press_text(u, new, join)
        await h.press_text(users[0], new, h.tr("▶️ Start", "en"))
        await h.until(lambda: any(h.sim.with_buttons(u.id) for u in users))
        await h.delivered(record.id)
        assert not [c for c in sim.calls_to(old) if c.status == 200]
        # The lobby (in the new chat) became the first turn's message, with the table.
        assert len(sim.messages(new)) >= 2
        assert any(h.tr("🃏 The table", "en") in m.text for m in sim.messages(new))


async def test_a_player_who_blocks_the_bot_is_announced_once_when_an_edit_is_refused(
    any_redis_url: str,
) -> None:
    # The refused call is an edit (their question closing), not a new message: the group
    # is told all the same, and once. (A refused message: test_flows.py's blocked player.)
    async with running_bot(any_redis_url) as h:
        users = players(3, first_id=8400)
        await open_and_start(h, users, group=GROUP_EDIT)
        actor = next(u for u in users if h.sim.with_buttons(u.id))
        edits_before = len(h.sim.calls_to(actor.id, "editMessageText"))
        h.sim.blocked.add(actor.id)
        await h.press_text(actor, actor.id, h.tr("💰 Income"))
        # The note's words between the player's name and the bot's link.
        note_start = (
            h.tr(
                "📵 {player}, I can't message you privately. Open https://t.me/{bot}?start=hi "
                "and press Start; until then your turns time out."
            )
            .split("{player}")[1]
            .split("{bot}")[0]
        )
        await h.until(lambda: note_start in h.sim.text_of(GROUP_EDIT))
        refused = h.sim.calls_to(actor.id, "editMessageText")[edits_before:]
        assert refused and all(c.status == 403 for c in refused)
        assert not [c for c in h.sim.calls_to(actor.id, "sendMessage") if c.status == 403]
        record = await h.record_of_chat(GROUP_EDIT)
        assert record is not None
        for _ in range(3):  # more turns: more refused calls, no second note
            nxt = next((u for u in users if h.sim.with_buttons(u.id) and u != actor), None)
            if nxt is None:
                break
            await h.press_text(nxt, nxt.id, h.tr("💰 Income"))
            await h.delivered(record.id)
        assert h.sim.text_of(GROUP_EDIT).count(note_start) == 1


async def test_what_a_gone_game_still_had_queued_is_dropped_with_a_log_line(
    any_redis_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    # Telegram cannot be reached for the group, so the lobby stays queued (with a TTL); the
    # game's record then expires: the sweep drops the outbox and says so, once.
    group = -100903
    async with running_bot(any_redis_url) as h:
        users = players(2, first_id=8500)
        for u in users:
            await h.say(u, u.id, "/start")
        h.sim.fail_next("sendMessage", 502, "Bad Gateway", chat_id=group, times=10_000)
        await h.post(h.message_update(users[0], group, "/newgame"))
        record = await h.record_of_chat(group)
        assert record is not None
        # Taken from the game's outbox into the group's lane, where it waits.
        lane = h.store.keys.outbox_lane(record.id, group)
        await h.until(lambda: bool(h.sim.calls_to(group, "sendMessage")))
        assert await h.store.redis.llen(lane)
        assert 0 < await h.store.redis.ttl(lane) <= OUTBOX_TTL_S
        with caplog.at_level(logging.WARNING, logger="tgbot.telegram.sender"):
            await h.store.redis.delete(h.store.keys.game(record.id))
            await h.delivered(record.id)
            # The outbox is emptied a moment before the line is logged: wait for the line.
            await h.until(lambda: any("is gone" in r.getMessage() for r in caplog.records))
        dropped = [r for r in caplog.records if "is gone" in r.getMessage()]
        assert len(dropped) == 1 and record.id in dropped[0].getMessage()
        assert await h.store.delivery.pending_mark(record.id) is None


async def test_an_outbox_telegram_keeps_failing_is_retried_with_back_off(
    any_redis_url: str,
) -> None:
    # Telegram answers 502 for the group over and over: the sweep tries again after 1 s,
    # then 2 s, then 4 s (not every second), and delivers once Telegram is back.
    group = -100904
    async with running_bot(any_redis_url) as h:
        helper = TgUser(8600, "Helper")
        h.sim.fail_next("sendMessage", 502, "Bad Gateway", chat_id=group, times=4)
        await h.post(h.message_update(helper, group, "/help"))
        await h.replied(group, timeout=30)
        tries = [c.at for c in h.sim.calls_to(group, "sendMessage")]
        assert len(tries) == 5  # four refused, then delivered
        gaps = [later - earlier for earlier, later in itertools.pairwise(tries)]
        # The first refusal is the delivery right after the update; the sweep retries.
        assert gaps[2] >= 2.0 and gaps[3] >= 4.0, gaps


async def test_a_lobby_that_cannot_be_edited_any_more_is_sent_anew(any_redis_url: str) -> None:
    # Telegram refuses to edit the lobby ("message can't be edited"): it still offers the
    # Join button, so it is sent again, and the next join edits the new one.
    group = -100905
    async with running_bot(any_redis_url) as h:
        users = players(3, first_id=8700)
        for u in users:
            await h.say(u, u.id, "/start")
        await h.say(users[0], group, "/newgame")
        join = h.tr("✋ Join")
        await h.until(lambda: h.has_button(group, join))
        record = await h.record_of_chat(group)
        assert record is not None
        first = h.sim.with_buttons(group)[0]
        first.editable = False
        await h.press(users[1], group, first.message_id, first.button(join)["callback_data"])
        await h.delivered(record.id)
        lobbies = h.sim.with_buttons(group)
        assert len(lobbies) == 2 and users[1].first_name in lobbies[-1].text
        await h.press_text(users[2], group, join)
        await h.delivered(record.id)
        assert users[2].first_name in h.sim.with_buttons(group)[-1].text
        # Sent with its buttons in one call, then edited once: the join.
        assert h.sim.calls_to(group, "sendMessage")[-1].params.get("reply_markup")
        assert h.sim.with_buttons(group)[-1].edits == 1


async def test_a_picker_edit_telegram_holds_waits_in_the_outbox_and_ends_in_its_latest_state(
    any_redis_url: str,
) -> None:
    # Telegram answers the picker's edit in the presser's private chat with 429: the press
    # was answered already (the handler only answers; the edit is the outbox's), the hold
    # is kept, and when it is over the prompt shows its newest state (Back and the picker
    # again, pressed meanwhile).
    async with running_bot(any_redis_url) as h:
        users = players(3, first_id=8800)
        game_id = await open_and_start(h, users, group=-100906)
        actor = next(u for u in users if h.sim.with_buttons(u.id))
        prompt = h.sim.with_buttons(actor.id)[-1]
        asked = prompt.text
        earlier = len(h.sim.calls_to(actor.id, "editMessageText"))
        h.sim.fail_next("editMessageText", 429, "Too Many Requests: retry after 1", actor.id, 1)
        steal = prompt.button(h.tr("🏴 Steal"))["callback_data"]
        answer = await h.post(h.press_update(actor, actor.id, prompt.message_id, steal))
        assert answer.status_code == 200 and "text" not in answer.json()
        await h.until(lambda: len(h.sim.calls_to(actor.id, "editMessageText")) > earlier)
        back = steal.rsplit(".", 1)[0] + "." + callbacks.BACK
        for data in (back, steal):
            answer = await h.post(h.press_update(actor, actor.id, prompt.message_id, data))
            assert answer.status_code == 200 and "text" not in answer.json()
        await h.delivered(game_id)
        edits = h.sim.calls_to(actor.id, "editMessageText")[earlier:]
        # The refused state is never sent again on its own: a newer one replaces it (one
        # waiting for the private chat's window is sent, then the newest).
        assert edits[0].status == 429 and edits[-1].status == 200 and len(edits) <= 3
        assert all(c.at - edits[0].at >= 1.0 for c in edits[1:])  # the retry_after held
        shown = h.sim.with_buttons(actor.id)[-1]
        assert shown.message_id == prompt.message_id and shown.text != asked
        assert h.tr("« Back") in str(shown.keyboard)


async def test_a_settings_press_in_a_group_that_became_a_supergroup_moves_them(
    any_redis_url: str,
) -> None:
    # The settings screen's edit (queued in the group's outbox) is refused with
    # migrate_to_chat_id: the change is kept and moves to the new chat with the rest, the
    # old group's screen is left as it is, and the press was answered (no error).
    old, new = -4300, -1004300
    async with running_bot(any_redis_url) as h:
        admin = TgUser(8900, "Admin")
        h.sim.admins.add((old, admin.id))
        await h.say(admin, old, "/settings")
        h.sim.migrated[old] = new
        lang = h.sim.last(old).button("🌐")["callback_data"]
        update = h.press_update(admin, old, h.sim.last(old).message_id, lang)
        response = await h.post(update)
        assert response.status_code == 200 and response.headers["content-type"].startswith(
            "application/json"
        )
        await h.delivered(chat_owner(old))
        assert [c.status for c in h.sim.calls_to(old, "editMessageText")] == [400]
        assert (await h.store.prefs.chat_settings(new)).get("lang") == "en"


async def test_a_held_group_gets_only_the_latest_state_of_its_lobby(
    any_redis_url: str,
) -> None:
    # Telegram holds the group (a 429 on the lobby's first edit) while players join and
    # leave: each step queues an edit of the lobby. When the hold is over the group gets
    # one edit, with the latest list of players, and nothing is sent twice.
    group = -100907
    sim = TelegramSim(group_flood_per_minute=20)
    async with running_bot(any_redis_url, sim=sim, group_rate=20) as h:
        users = players(6, first_id=9000)
        for u in users:
            await h.say(u, u.id, "/start")
        await h.say(users[0], group, "/newgame")
        join, leave = h.tr("✋ Join"), h.tr("🚪 Leave")
        await h.until(lambda: h.has_button(group, join))
        record = await h.record_of_chat(group)
        assert record is not None
        earlier = len(sim.calls_to(group, "editMessageText"))
        sim.fail_next("editMessageText", 429, "Too Many Requests: retry after 600", group, 600)
        for u in users[1:]:
            await h.press_text(u, group, join)
        for u in users[1:3]:
            await h.press_text(u, group, leave)
        await h.press_text(users[1], group, join)
        # The list is an optional edit: it goes (and meets the 429) in a quiet spell.
        await h.until(lambda: len(sim.calls_to(group, "editMessageText")) > earlier, 15)
        # Every step's edit of the lobby was queued; those taken into the group's lane are
        # one state already, the newest (the last step's may not be taken yet).
        pending = [
            op for _, op in await h.store.outboxes.outbox_items(record.id) if op.get("op") == "edit"
        ]
        assert 1 <= len(pending) <= 2 and f"5. {users[1].first_name}" in pending[-1]["text"]
        assert [c.status for c in sim.calls_to(group, "editMessageText")[earlier:]] == [429]
        sends_before = len(sim.calls_to(group, "sendMessage"))
        await h.store.redis.delete(h.store.keys.chat_hold(group))  # the hold is over
        await h.delivered(record.id)
        edits = sim.calls_to(group, "editMessageText")[earlier:]
        assert [c.status for c in edits] == [429, 200]
        assert len(sim.calls_to(group, "sendMessage")) == sends_before
        latest = [users[0], *users[3:], users[1]]
        lobby = sim.with_buttons(group)
        assert len(lobby) == 1
        listing = "\n".join(f"{i}. {u.first_name}" for i, u in enumerate(latest, 1))
        assert listing in lobby[0].text
        final = await h.record(record.id)
        assert final is not None and [s.id for s in final.players] == [u.id for u in latest]


async def test_a_decision_s_time_counts_from_when_its_prompt_reached_telegram(
    any_redis_url: str,
) -> None:
    # Telegram takes two seconds to take each player's next message: the turn's three
    # seconds start only once the prompt got through, so the turn is not timed out early.
    slow, seconds = 2.0, 3
    fast = Deadlines(turn=seconds, response=60, lose_card=60, exchange=60, lobby=60)
    async with running_bot(any_redis_url, fast) as h:
        users = players(3, first_id=9100)
        game_id = await open_and_start(h, users, group=-100908)
        actor = next(u for u in users if h.sim.with_buttons(u.id))
        for u in users:
            h.sim.delay("sendMessage", u.id, slow)
        before = await h.record(game_id)
        assert before is not None
        await h.press_text(actor, actor.id, h.tr("💰 Income"))
        pressed = await h.record(game_id)
        assert pressed is not None and pressed.context != before.context
        mover = pressed.game().awaiting().players[0]

        def prompts() -> list[Call]:
            # A prompt is sent with its buttons, in one call.
            calls = h.sim.calls_to(mover, "sendMessage")
            return [c for c in calls if c.params.get("reply_markup")]

        earlier = len(prompts())
        await h.until(lambda: len(prompts()) > earlier)
        reached = prompts()[-1].at
        while (record := await h.record(game_id)) is not None and record.context == pressed.context:
            await asyncio.sleep(0.01)
        timed_out = time.monotonic()
        assert record is not None and record.game().version > pressed.context
        assert timed_out - reached >= seconds - 0.01, timed_out - reached


async def test_redis_refusing_writes_makes_no_message_go_out_twice(any_redis_url: str) -> None:
    # Redis runs out of memory (noeviction: it refuses writes) while the lobby is on its
    # way to Telegram, so the lobby's message id cannot be recorded. The sweep sends
    # nothing again while Redis refuses; once it accepts writes again the lobby is known,
    # and the next join edits it rather than sending a second one.
    group = -100909
    async with running_bot(any_redis_url) as h:
        users = players(2, first_id=9200)
        for u in users:
            await h.say(u, u.id, "/start")
        h.sim.delay("sendMessage", group, 1.0)
        redis = h.store.redis
        assert (await redis.config_get("maxmemory-policy"))["maxmemory-policy"] == "noeviction"
        try:
            await h.post(h.message_update(users[0], group, "/newgame"))
            await h.until(lambda: h.sim.slow_calls > 0)  # the lobby is on its way
            await redis.config_set("maxmemory", 1)
            await asyncio.sleep(4)  # a few sweeps, each refused by Redis
            sends = [c for c in h.sim.calls_to(group, "sendMessage") if c.status == 200]
            assert len(sends) == 1
        finally:
            await redis.config_set("maxmemory", 0)
        h.sim.delays.clear()
        record = await h.record_of_chat(group)
        assert record is not None
        # Once Redis holds its id the lobby is known: no second copy was sent meanwhile.
        await h.until(lambda: h.has_button(group, h.tr("✋ Join")), timeout=20)
        await h.delivered(record.id, timeout=20)
        await h.press_text(users[1], group, h.tr("✋ Join"))
        await h.delivered(record.id)
        assert len([c for c in h.sim.calls_to(group, "sendMessage") if c.status == 200]) == 1
        lobby = h.sim.with_buttons(group)
        # Sent with its buttons, then edited once: the join.
        assert len(lobby) == 1 and users[1].first_name in lobby[0].text and lobby[0].edits == 1
