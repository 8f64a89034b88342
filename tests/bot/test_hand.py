"""Your hand a tap away: 👁 My cards on the group's turn message, target pickers that show
each target's coins and cards, and ⏳ More time."""

from __future__ import annotations

from tests.bot.play import GROUP, open_and_start, players
from tests.telegram_sim.harness import Harness, TgUser, running_bot
from tests.telegram_sim.server import SimMessage
from tgbot.rendering import hand
from tgbot.rendering.texts import character_name, coins_text


async def claim(h: Harness, users: list[TgUser], label: str) -> tuple[TgUser, SimMessage]:
    """The player whose turn it is presses an action; return them and the turn message."""
    actor = next(u for u in users if h.sim.with_buttons(u.id))
    await h.press_text(actor, actor.id, h.tr(label, actor.language_code or "ka"))
    await h.until(lambda: bool(h.sim.with_buttons(GROUP)))
    return actor, h.sim.with_buttons(GROUP)[-1]


def group_calls(h: Harness) -> int:
    """Messages sent or edited in the group so far."""
    return len(h.sim.calls_to(GROUP, "sendMessage")) + len(h.sim.calls_to(GROUP, "editMessageText"))


async def test_my_cards_pops_up_each_players_own_hand_in_their_language(
    redis_server_url: str,
) -> None:
    async with running_bot(redis_server_url) as h:
        users = [*players(2), TgUser(1002, "Walter", "en")]
        game_id = await open_and_start(h, users)
        await h.delivered(game_id)
        _, message = await claim(h, users, "👑 Tax")
        await h.delivered(game_id)
        data = message.button(h.tr("👁 My cards"))["callback_data"]
        assert message.keyboard is not None and message.keyboard[-1][0]["callback_data"] == data
        before = group_calls(h)
        record = await h.record(game_id)
        assert record is not None
        game = record.game()
        for user in users:
            lang = user.language_code or "ka"
            t = h.catalogs.get(lang)
            answer = await h.press(user, GROUP, message.message_id, data)
            assert answer.get("show_alert") is True
            text = answer["text"]
            assert len(text) <= 200
            for card in game.player(user.id).hidden:
                assert character_name(t, card) in text, (user, text)
            assert "💰 " + coins_text(t, game.player(user.id).coins) in text
            if lang == "en":
                assert "Your cards" in text
        # A spectator is told they are not in the game; nothing reached the group.
        stranger = TgUser(4242, "Stranger")
        answer = await h.press(stranger, GROUP, message.message_id, data)
        assert answer["text"] == h.tr("You are not in this game.")
        assert answer.get("show_alert") is True
        await h.delivered(game_id)
        assert group_calls(h) == before
        record = await h.record(game_id)
        assert record is not None and record.game().version == game.version


async def test_my_cards_tells_a_knocked_out_player_they_are_out(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h:
        users = players(3)
        game_id = await open_and_start(h, users)
        await h.delivered(game_id)
        quitter = users[2]
        await h.say(quitter, quitter.id, "/leave")
        await h.delivered(game_id)
        record = await h.record(game_id)
        assert record is not None and not record.game().over
        answer = await h.press(quitter, GROUP, 1, f"me.{game_id}")
        assert answer.get("show_alert") is True
        assert answer["text"].startswith("☠️ ")
        lost = record.game().player(quitter.id).revealed
        assert all(character_name(h.catalogs.get("ka"), c) in answer["text"] for c in lost)


async def test_target_picker_shows_each_targets_coins_and_cards(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h:
        users = players(3)
        game_id = await open_and_start(h, users)
        await h.delivered(game_id)
        actor = next(u for u in users if h.sim.with_buttons(u.id))
        await h.press_text(actor, actor.id, h.tr("🏴 Steal"))
        picker = h.sim.with_buttons(actor.id)[-1]
        labels = {b["text"] for b in picker.buttons()}
        for other in users:
            if other != actor:
                assert f"{other.first_name} · 💰2 · 🂠🂠" in labels, labels
        assert all(len(b["text"]) <= 30 for b in picker.buttons())


async def test_more_time_at_the_table_adds_30_s_once_and_the_group_reads_it(
    redis_server_url: str,
) -> None:
    async with running_bot(redis_server_url) as h:
        users = players(3)
        game_id = await open_and_start(h, users)
        await h.delivered(game_id)
        actor, message = await claim(h, users, "👑 Tax")
        await h.delivered(game_id)
        others = [u for u in users if u != actor]
        data = message.button(h.tr("⏳ More time"))["callback_data"]
        record = await h.record(game_id)
        assert record is not None and record.deadline_ms is not None
        deadline = record.deadline_ms
        # The claimant is not awaited: nothing changes.
        answer = await h.press(actor, GROUP, message.message_id, data)
        assert answer["text"] == h.tr("Nobody is waiting for you now.")
        answer = await h.press(others[0], GROUP, message.message_id, data)
        assert answer["text"] == h.tr("⏳ 30 seconds more. Only once per game.")
        await h.delivered(game_id)
        record = await h.record(game_id)
        assert record is not None
        assert record.deadline_ms == deadline + 30_000
        assert record.more_time == {others[0].id: record.context}
        line = hand.more_time_line(h.catalogs.get("ka"), others[0].first_name)
        assert line in h.sim.text_of(GROUP)
        # Once per game.
        answer = await h.press(others[0], GROUP, message.message_id, data)
        assert answer["text"] == h.tr("You have already used your extra time in this game.")
        record = await h.record(game_id)
        assert record is not None and record.deadline_ms == deadline + 30_000


async def test_more_time_on_a_private_prompt_then_gone_from_it(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h:
        users = players(2)
        game_id = await open_and_start(h, users)
        await h.delivered(game_id)
        actor = next(u for u in users if h.sim.with_buttons(u.id))
        prompt = h.sim.with_buttons(actor.id)[-1]
        assert prompt.keyboard is not None
        assert prompt.keyboard[-1] == [prompt.button(h.tr("⏳ More time"))]
        record = await h.record(game_id)
        assert record is not None and record.deadline_ms is not None
        deadline = record.deadline_ms
        answer = await h.press_text(actor, actor.id, h.tr("⏳ More time"))
        assert answer["text"] == h.tr("⏳ 30 seconds more. Only once per game.")
        record = await h.record(game_id)
        assert record is not None and record.deadline_ms == deadline + 30_000
        await h.delivered(game_id)
        line = hand.more_time_line(h.catalogs.get("ka"), actor.first_name)
        assert line in h.sim.text_of(GROUP)
        # The picker (and every later prompt of theirs) no longer offers it.
        await h.press_text(actor, actor.id, h.tr("🏴 Steal"))
        picker = h.sim.with_buttons(actor.id)[-1]
        assert all(b["text"] != h.tr("⏳ More time") for b in picker.buttons())


def assert_shows(moments: list[int], deadline_ms: int) -> None:
    """The message shows one moment, never later than the real deadline and at most a
    delivery's time earlier (the deadline counts from the last of its messages to arrive,
    and the group's may be delivered before a prompt that moves it by a few ms)."""
    assert len(moments) == 1
    assert deadline_ms // 1000 - 2 <= moments[0] <= deadline_ms // 1000


async def test_more_time_moves_the_moment_the_group_reads(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h:
        users = players(3)
        game_id = await open_and_start(h, users)
        await h.delivered(game_id)
        # On a private turn prompt: the closed turn's verdict names who moves next, with
        # no moment (the prompt has the deadline), so nothing of it moves.
        actor = next(u for u in users if h.sim.with_buttons(u.id))
        verdict = h.sim.messages(GROUP)[0]
        shown, edits = verdict.text, verdict.edits
        assert not verdict.moments()
        await h.press_text(actor, actor.id, h.tr("⏳ More time"))
        await h.delivered(game_id)
        record = await h.record(game_id)
        assert record is not None and record.deadline_ms is not None
        assert (verdict.text, verdict.edits) == (shown, edits)
        # At the table: the turn message shows the answerer's new moment, and loses ⏳
        # once every answerer awaited has used theirs.
        await h.press_text(actor, actor.id, h.tr("👑 Tax"))
        await h.until(lambda: bool(h.sim.with_buttons(GROUP)))
        await h.delivered(game_id)
        message = h.sim.with_buttons(GROUP)[-1]
        question = message.text.splitlines()[-1]
        others = [u for u in users if u != actor]
        for other in others:
            await h.press(
                other,
                GROUP,
                message.message_id,
                message.button(h.tr("⏳ More time"))["callback_data"],
            )
            await h.delivered(game_id)
            record = await h.record(game_id)
            assert record is not None and record.deadline_ms is not None
            assert_shows(message.moments(), record.deadline_ms)
            assert message.text.splitlines()[-1] == question  # as the step wrote it
        assert h.tr("⏳ More time") not in [b["text"] for b in message.buttons()]
        assert h.tr("✅ Pass") in [b["text"] for b in message.buttons()]
