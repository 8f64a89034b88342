"""The UX flows of UX.md through the real webhook app, Redis and the simulated Telegram."""

from __future__ import annotations

import asyncio
import itertools
import time

from tests.telegram_sim.harness import TgUser, running_bot
from tgbot.config import DEFAULT_PERSON_UPDATES_PER_10S, Deadlines
from tgbot.engine import DecisionKind
from tgbot.rendering.ui import seconds_text
from tgbot.telegram.handlers import THROTTLE_WINDOW_S

from .play import GROUP, answers, first_income_press, open_and_start, open_lobby, players


async def test_lobby_join_leave_and_list(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h:
        users = players(3)
        game_id = await open_lobby(h, users)
        lobby = next(m for m in h.sim.messages(GROUP) if m.buttons())
        await h.until(lambda: "Player2" in lobby.text)
        await h.press_text(users[2], GROUP, h.tr("🚪 Leave"))
        await h.until(lambda: "Player2" not in lobby.text)
        record = await h.record(game_id)
        assert record is not None and [s.id for s in record.players] == [1000, 1001]
        # Joining twice is refused with a clear answer.
        answer = await h.press_text(users[1], GROUP, h.tr("✋ Join"))
        assert answer["text"] == h.tr("You are already in this game.")


async def test_join_without_starting_the_bot_gets_a_deep_link(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h:
        creator, stranger = players(2)
        await h.say(creator, creator.id, "/start")
        await h.say(creator, GROUP, "/newgame")
        await h.until(lambda: h.has_button(GROUP, h.tr("✋ Join")))
        answer = await h.press_text(stranger, GROUP, h.tr("✋ Join"))
        record = await h.record_of_chat(GROUP)
        assert record is not None
        assert answer["url"] == f"https://t.me/coup_test_bot?start=j{record.id}"
        assert [s.id for s in record.players] == [creator.id]
        # Pressing Start in the private chat lands them in the lobby.
        await h.say(stranger, stranger.id, f"/start j{record.id}")
        assert h.tr("✋ You joined the game.") in h.sim.last(stranger.id).text
        lobby = next(m for m in h.sim.messages(GROUP) if m.buttons())
        await h.until(lambda: "Player1" in lobby.text)


async def test_one_game_per_group_and_per_person(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h:
        a, b = players(2)
        await open_lobby(h, [a, b])
        await h.say(a, GROUP, "/newgame")
        assert h.sim.last(GROUP).text == h.tr("A game is already open in this group: /board")
        await h.say(b, -777, "/newgame")
        await h.until(lambda: h.has_button(-777, h.tr("✋ Join")))
        answer = await h.press_text(b, -777, h.tr("✋ Join"))
        assert answer["text"] == h.tr("You are already playing in another game.")


async def test_lobby_starts_by_itself_after_its_wait(redis_server_url: str) -> None:
    deadlines = Deadlines(lobby=1)
    async with running_bot(redis_server_url, deadlines) as h:
        users = players(2)
        await open_lobby(h, users)
        await h.until(lambda: any(h.sim.with_buttons(u.id) for u in users), timeout=10)
        record = await h.record_of_chat(GROUP)
        assert record is not None and record.status == "playing"


async def test_lobby_closes_when_too_few_joined(redis_server_url: str) -> None:
    async with running_bot(redis_server_url, Deadlines(lobby=1)) as h:
        (alone,) = players(1)
        await open_lobby(h, [alone])
        closed = h.tr("✖️ Not enough players joined: the lobby is closed.")
        await h.until(lambda: any(m.text == closed for m in h.sim.messages(GROUP)), timeout=10)
        assert await h.record_of_chat(GROUP) is None


async def test_cancel_by_creator_or_admin_only(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h:
        a, b, c = players(3)
        await open_lobby(h, [a, b])
        await h.say(b, GROUP, "/cancel")
        assert h.sim.last(GROUP).text == h.tr("Only the game's creator or an admin can cancel it.")
        h.sim.admins.add((GROUP, c.id))
        await h.say(c, GROUP, "/cancel")
        await h.until(
            lambda: any(m.text == h.tr("✖️ The game was cancelled.") for m in h.sim.messages(GROUP))
        )
        assert await h.record_of_chat(GROUP) is None


async def test_board_rules_help(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h:
        users = players(2)
        await h.say(users[0], GROUP, "/board")
        assert h.sim.last(GROUP).text == h.tr("No game here. Start one with /newgame.")
        await open_and_start(h, users)
        await h.say(users[0], GROUP, "/board")
        assert h.sim.last(GROUP).text.startswith(h.tr("🃏 The table"))
        await h.say(users[0], GROUP, "/rules")
        assert "ჰერცოგი" in h.sim.last(GROUP).text
        await h.say(users[0], users[0].id, "/help")
        assert "/newgame" in h.sim.last(users[0].id).text


async def test_turn_keyboard_target_picker_and_back(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h:
        users = players(3)
        await open_and_start(h, users)
        actor = next(u for u in users if h.sim.with_buttons(u.id))
        prompt = h.sim.with_buttons(actor.id)[-1]
        labels = [b["text"] for b in prompt.buttons()]
        assert h.tr("💰 Income") in labels and h.tr("🏴 Steal") in labels
        assert h.tr("💥 Coup") not in labels  # 2 coins: no Coup, no Assassinate
        await h.press_text(actor, actor.id, h.tr("🏴 Steal"))
        names = {b["text"].split(" · ")[0] for b in prompt.buttons()}  # "Nino · 💰2 · 🂠🂠"
        assert {u.first_name for u in users if u != actor} <= names
        await h.press_text(actor, actor.id, h.tr("« Back"))
        assert h.tr("💰 Income") in [b["text"] for b in prompt.buttons()]
        # Choosing an action removes its buttons and opens the answers, at the table.
        await h.press_text(actor, actor.id, h.tr("👑 Tax"))
        await h.until(lambda: not prompt.keyboard)
        others = [u for u in users if u != actor]
        await h.until(lambda: bool(h.sim.with_buttons(GROUP)))
        asked = h.sim.with_buttons(GROUP)[-1]
        assert {b["text"] for b in answers(asked)} == {h.tr("⚔️ Challenge"), h.tr("✅ Pass")}
        assert not any(h.sim.with_buttons(u.id) for u in others)  # nothing to switch chats for
        # Two may answer: the message asks, and names nobody until one is left.
        assert h.tr("⏳ Time to answer") in asked.text
        assert actor.first_name in asked.text
        assert not any(u.first_name in asked.text for u in others)


async def test_stale_foreign_and_forged_presses_change_nothing(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h:
        users = players(3)
        game_id = await open_and_start(h, users)
        actor = next(u for u in users if h.sim.with_buttons(u.id))
        other = next(u for u in users if u != actor)
        prompt = h.sim.with_buttons(actor.id)[-1]
        income = prompt.button(h.tr("💰 Income"))["callback_data"]
        before = await h.record(game_id)
        assert before is not None
        # Someone else presses the actor's button (forged into their own chat).
        answer = await h.press(other, other.id, prompt.message_id, income)
        assert answer["text"] == h.tr("This button is out of date.")
        # Garbage, too long, unknown game, unknown code.
        for data in ("", "x", "z" * 64, "nosuchgame1.0.i", f"{game_id}.{before.context}.Zz"):
            answer = await h.press(actor, actor.id, prompt.message_id, data)
            assert answer["text"] in {
                h.tr("This button is not valid."),
                h.tr("This game is over."),
            }, (data, answer)
        after = await h.record(game_id)
        assert after is not None and after.engine == before.engine and after.rev == before.rev
        # The real press works once; pressing it again is stale.
        answer = await h.press(actor, actor.id, prompt.message_id, income)
        assert answer["text"] == h.tr("✔️ Done.")
        answer = await h.press(actor, actor.id, prompt.message_id, income)
        assert answer["text"] == h.tr("Already decided.")
        moved = await h.record(game_id)
        assert moved is not None and moved.game().version == before.game().version + 1


async def test_a_repeated_update_is_applied_once(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h:
        users = players(2)
        game_id = await open_and_start(h, users)
        _, update = first_income_press(h, users)
        first = await h.post(update)
        second = await h.post(update)
        assert first.status_code == second.status_code == 200
        record = await h.record(game_id)
        assert record is not None and record.game().version == 1
        # The repeat still stops the press's spinner, with an empty answer.
        query_id = update["callback_query"]["id"]
        assert second.json() == {"method": "answerCallbackQuery", "callback_query_id": query_id}


async def test_presses_are_answered_in_the_webhook_response(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h:
        users = players(2)
        await open_and_start(h, users)
        _, update = first_income_press(h, users)
        response = await h.post(update)
        assert response.json() == {
            "method": "answerCallbackQuery",
            "callback_query_id": update["callback_query"]["id"],
            "text": h.tr("✔️ Done."),
        }
        answered = [c for c in h.sim.calls if c.method == "answerCallbackQuery"]
        assert len(answered) == 3  # the second player joining, Start, and this press
        assert all(c.via_webhook and c.status == 200 for c in answered)
        # Commands get no method in the response: their replies are messages.
        reply = await h.say(users[0], users[0].id, "/help")
        assert reply.text == "ok"


async def test_commands_from_someone_not_in_the_game(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h:
        users = players(2)
        outsider = TgUser(4242, "Outsider")
        await open_and_start(h, users)
        await h.say(outsider, GROUP, "/leave")
        assert h.sim.last(GROUP).text == h.tr("You are not in this game.")
        await h.say(outsider, outsider.id, "/leave")
        assert h.sim.last(outsider.id).text == h.tr("You are not in a game.")


async def test_leaving_mid_game_ends_a_two_player_game(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h:
        a, b = players(2)
        await open_and_start(h, [a, b])
        await h.say(b, GROUP, "/leave")
        await h.until(lambda: "🏆" in h.sim.text_of(GROUP))
        assert h.tr("🏆 {winner} wins!").format(winner=a.first_name) in h.sim.text_of(GROUP)


async def test_deadlines_fire_once_with_two_instances(redis_server_url: str) -> None:
    fast = Deadlines(turn=1, response=1, lose_card=1, exchange=1, lobby=60, afk_limit=2)
    async with running_bot(redis_server_url, fast, instances=2) as h:
        users = players(3)
        game_id = await open_and_start(h, users)
        # Nobody presses anything: timeouts alone must finish the game (AFK removals).
        await h.until(lambda: "🏆" in h.sim.text_of(GROUP), timeout=60)
        record = await h.record(game_id)
        assert record is not None and record.status == "over"
        game = record.game()
        timeouts = h.sim.text_of(GROUP).count("⌛")
        # Each timeout step was applied once: a turn timeout is one engine version.
        assert timeouts == game.version
        texts = [m.text for m in h.sim.messages(GROUP)]
        assert all(x != y for x, y in itertools.pairwise(texts))
        await h.until(lambda: not any(h.sim.with_buttons(u.id) for u in users))


async def test_response_deadline_closes_the_answers(redis_server_url: str) -> None:
    fast = Deadlines(turn=60, response=1, lose_card=60, exchange=60, lobby=60)
    async with running_bot(redis_server_url, fast) as h:
        users = players(3)
        game_id = await open_and_start(h, users)
        actor = next(u for u in users if h.sim.with_buttons(u.id))
        await h.press_text(actor, actor.id, h.tr("👑 Tax"))
        record = await h.record(game_id)
        assert record is not None and record.game().awaiting().kind is DecisionKind.RESPONSE
        await h.until(lambda: bool(h.sim.with_buttons(GROUP)))
        turn_message = h.sim.with_buttons(GROUP)[-1]
        # The window closes by itself: the same message loses its buttons and says so.
        await h.until(lambda: not turn_message.keyboard)
        await h.delivered(game_id)
        record = await h.record(game_id)
        assert record is not None and record.game().player(actor.id).coins == 5
        # The turn closes on the same message: the seat it changed, and whose turn it is.
        assert f"{actor.first_name} · 💰5 · 🂠🂠" in turn_message.text
        assert record.table_context is None


async def test_language_choices_take_effect(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h:
        a, b = players(2)
        await h.say(a, a.id, "/language")
        await h.press_text(a, a.id, "🇬🇧")
        admin = a
        h.sim.admins.add((GROUP, admin.id))
        await h.say(admin, GROUP, "/settings")
        await h.press_text(admin, GROUP, "🌐")
        settings = h.sim.last(GROUP)
        assert settings.text == h.tr("⚙️ Settings for new games (admins can change them):", "en")
        await open_and_start(h, [a, b], lang="en")
        await h.until(lambda: "The game begins" in h.sim.text_of(GROUP))
        # The private deals go out in their own lanes, maybe after the group's message.

        def dealt(user: TgUser, line: str) -> bool:
            sent = h.sim.calls_to(user.id, "sendMessage")
            return any(str(c.params["text"]).startswith(line) for c in sent)

        await h.until(lambda: dealt(a, "🂠 Your cards") and dealt(b, "🂠 შენი ბარათები"))


async def test_admins_set_every_deadline_for_new_games(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h:
        a, b = players(2)
        h.sim.admins.add((GROUP, a.id))
        await h.say(a, GROUP, "/settings")
        ka = h.catalogs.get("ka")
        assert h.sim.last(GROUP).button("🔻")["text"] == h.tr("🔻 Losing a card: {value}").format(
            value=seconds_text(ka, 45)
        )
        await h.press_text(a, GROUP, "🔻")  # 45 -> 90 s
        await h.press_text(a, GROUP, "🔄")  # 60 -> 120 s
        await h.press_text(a, GROUP, "🔄")  # 120 -> 30 s
        shown = h.sim.last(GROUP).button("🔄")["text"]
        assert shown == h.tr("🔄 Exchange: {value}").format(value=seconds_text(ka, 30))
        # Someone who is not an admin cannot change them.
        answer = await h.press_text(b, GROUP, "🔻")
        assert answer["text"] == h.tr("Only group admins can change the settings.")
        game_id = await open_and_start(h, [a, b])
        record = await h.record(game_id)
        assert record is not None
        assert (record.timing.lose_card, record.timing.exchange) == (90, 30)
        assert record.timing.turn == 90  # untouched settings keep their defaults


async def test_blocked_player_is_reported_and_times_out(redis_server_url: str) -> None:
    fast = Deadlines(turn=1, response=1, lose_card=1, exchange=1, lobby=60, afk_limit=3)
    async with running_bot(redis_server_url, fast) as h:
        users = players(3)
        await open_lobby(h, users)
        h.sim.blocked.add(users[1].id)
        await h.press_text(users[0], GROUP, h.tr("▶️ Start"))
        # The note's words between the player's name and the bot's link.
        note_start = (
            h.tr(
                "📵 {player}, I can't message you privately. Open https://t.me/{bot}?start=hi "
                "and press Start; until then your turns time out."
            )
            .split("{player}")[1]
            .split("{bot}")[0]
        )
        await h.until(lambda: note_start in h.sim.text_of(GROUP), timeout=15)
        # Told once, not at every prompt.
        await h.until(lambda: "🏆" in h.sim.text_of(GROUP), timeout=60)
        assert h.sim.text_of(GROUP).count(note_start) == 1


async def test_flood_control_429_is_waited_out(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h:
        users = players(2)
        h.sim.fail_next(
            "sendMessage",
            429,
            "Too Many Requests: retry after 1",
            chat_id=GROUP,
            retry_after=1,
            times=2,
        )
        await open_lobby(h, users)
        failed = [c for c in h.sim.calls_to(GROUP, "sendMessage") if c.status == 429]
        assert len(failed) == 2
        assert h.has_button(GROUP, h.tr("✋ Join"))


async def test_message_not_modified_is_harmless(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h:
        users = players(2)
        await open_and_start(h, users)
        actor = next(u for u in users if h.sim.with_buttons(u.id))
        # The turn's edits are answered "not modified" (as a repeated edit is).
        h.sim.fail_next("editMessageText", 400, "Bad Request: message is not modified", times=3)
        answer = await h.press_text(actor, actor.id, h.tr("💰 Income"))
        assert answer["text"] == h.tr("✔️ Done.")


async def test_bot_removed_from_group_cancels_its_game(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h:
        users = players(2)
        game_id = await open_and_start(h, users)
        update = {
            "update_id": 999001,
            "my_chat_member": {
                "chat": {"id": GROUP, "type": "supergroup", "title": "G"},
                "from": users[0].json(),
                "date": 0,
                "old_chat_member": {
                    "status": "member",
                    "user": {"id": 700000001, "is_bot": True, "first_name": "Coup"},
                },
                "new_chat_member": {
                    "status": "left",
                    "user": {"id": 700000001, "is_bot": True, "first_name": "Coup"},
                },
            },
        }
        assert (await h.post(update)).status_code == 200
        record = await h.record(game_id)
        assert record is not None and record.status == "cancelled"
        assert await h.record_of_chat(GROUP) is None
        assert await h.store.commits.get(h.store.keys.user_game(users[0].id)) is None
        # Everyone in the game is told privately, and no button stays live there.
        await h.delivered(game_id)
        notice = h.tr("✖️ I was removed from the group, so your game there is cancelled.")
        for u in users:
            assert notice in h.sim.text_of(u.id)
            assert not h.sim.with_buttons(u.id)


async def test_group_migrating_to_supergroup_keeps_its_game(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h:
        users = players(2)
        game_id = await open_lobby(h, users, group=-42)
        update = h.message_update(users[0], -42, "x")
        update["message"].pop("text")
        update["message"]["migrate_to_chat_id"] = -1009999
        assert (await h.post(update)).status_code == 200
        record = await h.record_of_chat(-1009999)
        assert record is not None and record.id == game_id and record.chat_id == -1009999


async def test_forum_topic_game_talks_in_its_topic(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h:
        a, b = players(2)
        for u in (a, b):
            await h.say(u, u.id, "/start")
        await h.say(a, GROUP, "/newgame", thread_id=77)
        await h.until(lambda: h.has_button(GROUP, h.tr("✋ Join")))
        await h.press_text(b, GROUP, h.tr("✋ Join"))
        await h.press_text(a, GROUP, h.tr("▶️ Start"))
        await h.until(lambda: any(h.sim.with_buttons(u.id) for u in (a, b)))
        actor = next(u for u in (a, b) if h.sim.with_buttons(u.id))
        await h.press_text(actor, actor.id, h.tr("🤝 Foreign Aid"))  # the turn's own message
        await h.until(lambda: len(h.sim.messages(GROUP)) >= 2)
        assert all(m.thread_id == 77 for m in h.sim.messages(GROUP))


async def test_flooding_one_person_is_throttled(redis_server_url: str) -> None:
    async with running_bot(redis_server_url, person_rate=DEFAULT_PERSON_UPDATES_PER_10S) as h:
        spammer = TgUser(31337, "Spam")
        started = time.monotonic()
        for _ in range(40):
            await h.say(spammer, spammer.id, "/help")
        in_one_window = time.monotonic() - started < THROTTLE_WINDOW_S
        texts = [c.params["text"] for c in h.sim.calls_to(spammer.id, "sendMessage")]
        notice = h.tr("Too fast: wait a moment.")
        helps = [text for text in texts if text != notice]
        if in_one_window:  # else a new window began: a few more get through, as they may
            assert len(helps) == DEFAULT_PERSON_UPDATES_PER_10S
            assert texts.count(notice) == 1  # told once, then quiet
        assert DEFAULT_PERSON_UPDATES_PER_10S <= len(helps) < 40
        calm = TgUser(31338, "Calm")
        await h.say(calm, calm.id, "/help")
        assert len(h.sim.calls_to(calm.id, "sendMessage")) == 1
        await asyncio.sleep(0)


async def test_a_chat_telegram_cannot_reach_holds_back_only_its_own_messages(
    redis_server_url: str,
) -> None:
    # Telegram answers 502 for the group a few times: the players' messages of the same step
    # go out once each, and the group's follow when Telegram recovers.
    async with running_bot(redis_server_url) as h:
        users = players(3)
        game_id = await open_and_start(h, users)
        # Every deal delivered before counting: a deal still on its way would be counted
        # as a second message of the step below (this raced under load).
        await h.delivered(game_id)
        actor = next(u for u in users if h.sim.with_buttons(u.id))
        before = {u.id: len(h.sim.calls_to(u.id, "sendMessage")) for u in users}
        # An Income: its verdict is an edit of the group's newest message.
        h.sim.fail_next("editMessageText", 502, "Bad Gateway", chat_id=GROUP, times=3)
        await h.press_text(actor, actor.id, h.tr("💰 Income"))
        record = await h.record_of_chat(GROUP)
        assert record is not None
        # (It waits its hold for a new message to carry it, then three failed tries.)
        await h.delivered(record.id, timeout=20)
        nxt = next(u for u in users if h.sim.with_buttons(u.id))
        assert nxt != actor
        sent = {u.id: len(h.sim.calls_to(u.id, "sendMessage")) - before[u.id] for u in users}
        assert sent[nxt.id] == 1, sent  # its turn prompt, once
        assert len(h.sim.with_buttons(nxt.id)) == 1
        failed = [c for c in h.sim.calls_to(GROUP, "editMessageText") if c.status == 502]
        assert len(failed) == 3


async def test_queued_messages_keep_within_their_share_of_the_bot_pace(
    redis_server_url: str,
) -> None:
    # MESSAGES_PER_SECOND=5: the sender takes at most 4 a second (80%), counted in Redis
    # for every process. Two games start at once, each through its own bot instance;
    # python-telegram-bot's limiter alone would let each process send 5 a second.
    async with running_bot(redis_server_url, instances=2, messages_per_second=5) as h:
        tables = [(-100701, players(6, first_id=7000)), (-100702, players(6, first_id=7100))]
        game_ids = [await open_lobby(h, users, group) for group, users in tables]
        for game_id in game_ids:
            await h.delivered(game_id)
        started = time.monotonic()
        for (group, users), url in zip(tables, h.urls, strict=True):
            label = h.tr("▶️ Start")
            lobby = next(m for m in h.sim.with_buttons(group) if label in str(m.buttons()))
            data = lobby.button(label)["callback_data"]
            await h.post(h.press_update(users[0], group, lobby.message_id, data), url=url)
        for game_id in game_ids:
            await h.delivered(game_id, timeout=30)
        sent = sorted(
            c.at
            for c in h.sim.calls
            if c.at >= started and c.method in ("sendMessage", "editMessageText")
        )
        # Each start: the lobby becomes the first turn's message, 5 players get their
        # cards, the first mover their turn.
        assert len(sent) >= 14
        # At most 8 leave the sender in any two seconds; a little more may arrive in two
        # seconds here when network delays bunch them, but never the 16 of unshared pacing.
        busiest = max(sum(1 for t in sent if start <= t < start + 2.0) for start in sent)
        assert busiest <= 10, sent


async def test_deadlines_fire_on_time_while_an_outbox_waits_out_flood_control(
    redis_server_url: str,
) -> None:
    # Game B's group message fails once, so the outbox sweep retries it, and then Telegram
    # answers 429 (retry after 3 s) three times. Game A's 2-second response window must
    # still close on time: deadlines do not wait for the sweep.
    fast = Deadlines(turn=60, response=2, lose_card=60, exchange=60, lobby=60)
    async with running_bot(redis_server_url, fast) as h:
        group_a, group_b = -100801, -100802
        users_a, users_b = players(2, first_id=7200), players(2, first_id=7300)
        game_a = await open_and_start(h, users_a, group=group_a)
        await open_and_start(h, users_b, group=group_b)
        # An Income: its verdict is an edit of the group's newest message.
        h.sim.fail_next("editMessageText", 502, "Bad Gateway", chat_id=group_b)
        h.sim.fail_next(
            "editMessageText",
            429,
            "Too Many Requests: retry after 3",
            group_b,
            retry_after=3,
            times=3,
        )
        actor_b = next(u for u in users_b if h.sim.with_buttons(u.id))
        await h.press_text(actor_b, actor_b.id, h.tr("💰 Income"))
        await h.until(lambda: any(c.status == 429 for c in h.sim.calls_to(group_b)))

        actor_a = next(u for u in users_a if h.sim.with_buttons(u.id))
        before = await h.record(game_a)
        assert before is not None
        coins = before.game().player(actor_a.id).coins
        await h.press_text(actor_a, actor_a.id, h.tr("👑 Tax"))
        asked = time.monotonic()
        while (record := await h.record(game_a)) is not None and (
            record.game().awaiting().kind is DecisionKind.RESPONSE
        ):
            assert time.monotonic() - asked < 5, "the deadline waited for the outbox sweep"
            await asyncio.sleep(0.05)
        assert record is not None and record.game().player(actor_a.id).coins == coins + 3
