"""The table: answers on the group's turn message, secrets in private, notices, Play again."""

from __future__ import annotations

import asyncio
import random
import time

from tests.bot.play import GROUP, answers, open_and_start, play_to_end, players
from tests.telegram_sim.harness import Harness, TgUser, running_bot
from tests.telegram_sim.server import SimMessage
from tgbot.config import Deadlines
from tgbot.engine import Action, Character, DecisionKind
from tgbot.engine import events as ev
from tgbot.rendering.texts import describe


async def claim(
    h: Harness, users: list[TgUser], label: str, group: int = GROUP
) -> tuple[TgUser, SimMessage]:
    """The player whose turn it is presses an action; return them and the turn message."""
    actor = next(u for u in users if h.sim.with_buttons(u.id))
    await h.press_text(actor, actor.id, h.tr(label))
    await h.until(lambda: bool(h.sim.with_buttons(group)))
    return actor, h.sim.with_buttons(group)[-1]


def next_line(h: Harness, name: str) -> str:
    """The verdict's last line: who moves next, worded to stay true."""
    return h.tr("➡️ next: {player}").format(player=name)


def data_of(h: Harness, message: SimMessage, label: str) -> str:
    return str(message.button(h.tr(label))["callback_data"])


async def test_answers_at_the_table_only_by_those_who_may_answer(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h:
        users = players(3)
        game_id = await open_and_start(h, users)
        await h.delivered(game_id)
        group_sends = len(h.sim.calls_to(GROUP, "sendMessage"))
        actor, message = await claim(h, users, "👑 Tax")
        others = [u for u in users if u != actor]
        assert not any(h.sim.with_buttons(u.id) for u in users)  # nobody switches chats
        record = await h.record(game_id)
        assert record is not None
        version = record.game().version
        pass_data = data_of(h, message, "✅ Pass")
        # The claimant and a stranger get a short toast, and nothing changes.
        answer = await h.press(actor, GROUP, message.message_id, pass_data)
        assert answer["text"] == h.tr("It is not yours to answer.")
        assert not answer.get("show_alert")
        stranger = TgUser(4242, "Stranger")
        answer = await h.press(stranger, GROUP, message.message_id, pass_data)
        assert answer["text"] == h.tr("You are not in this game.")
        record = await h.record(game_id)
        assert record is not None and record.game().version == version
        # Nobody is named as who may still answer, and a pass changes nothing the group
        # is shown: no edit, the buttons still live.
        assert h.tr("⏳ Time to answer") in message.text
        assert not any(u.first_name in message.text for u in others)
        edits = len(h.sim.calls_to(GROUP, "editMessageText"))
        shown = message.text
        await h.press(others[0], GROUP, message.message_id, pass_data)
        await h.delivered(game_id)
        assert message.keyboard and message.text == shown
        assert len(h.sim.calls_to(GROUP, "editMessageText")) == edits
        answer = await h.press(others[0], GROUP, message.message_id, pass_data)
        assert answer["text"] == h.tr("It is not yours to answer.")
        # The last pass closes the window: the same message ends the turn, no buttons.
        await h.press(others[1], GROUP, message.message_id, pass_data)
        await h.delivered(game_id)
        assert not message.keyboard
        record = await h.record(game_id)
        assert record is not None
        game = record.game()
        assert game.player(actor.id).coins == 5
        # The verdict shows the seat it changed (not the whole table) and who moves next,
        # worded to stay true (no moment: the mover's deadline is in their prompt).
        assert f"{actor.first_name} · 💰5 · 🂠🂠" in message.text
        assert h.tr("🃏 The table") not in message.text
        assert not message.moments()
        mover = next(u for u in users if u.id == game.awaiting().players[0])
        assert message.text.splitlines()[-1] == next_line(h, mover.first_name)
        assert len(h.sim.calls_to(GROUP, "sendMessage")) == group_sends + 1  # edited, not re-sent
        edits = len(h.sim.calls_to(GROUP, "editMessageText"))
        answer = await h.press(others[0], GROUP, message.message_id, pass_data)
        assert answer["text"] == h.tr("Already answered.")
        await h.delivered(game_id)
        assert len(h.sim.calls_to(GROUP, "editMessageText")) == edits  # and nothing changes
        # The next mover's turn came privately, as a new message.
        assert h.sim.with_buttons(mover.id)


async def _a_table_whose_loser_must_choose(h: Harness) -> tuple[str, int, list[TgUser], TgUser]:
    """A started 3-player game, its group, its players and a challenger of a Tax claim such
    that whoever loses the challenge holds two unlike cards, so is asked which to turn up
    (with two alike, the engine turns one without asking). The deal is random: each try
    is a new group with new players, and one in seven or so is refused."""
    for attempt in range(12):
        group = GROUP - attempt
        users = players(3, first_id=1000 + 10 * attempt)
        game_id = await open_and_start(h, users, group)
        record = await h.record(game_id)
        assert record is not None
        game = record.game()
        actor = game.awaiting().players[0]

        unlike = {p.id for p in game.players if len(set(p.hidden)) == 2}
        others = [u for u in users if u.id != actor]
        if Character.DUKE in game.player(actor).hidden:  # the challenger will lose
            challenger = next((u for u in others if u.id in unlike), None)
        else:  # the actor will lose
            challenger = others[0] if actor in unlike else None
        if challenger is not None:
            return game_id, group, users, challenger
    raise AssertionError("12 deals in a row without a loser who must choose")


async def test_the_first_challenge_closes_the_window(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h:
        game_id, group, users, challenger = await _a_table_whose_loser_must_choose(h)
        actor, message = await claim(h, users, "👑 Tax", group)
        await h.press(challenger, group, message.message_id, data_of(h, message, "⚔️ Challenge"))
        await h.delivered(game_id)
        assert not answers(message)  # 👁 My cards stays while the turn goes on
        record = await h.record(game_id)
        assert record is not None
        game = record.game()
        assert game.awaiting().kind is DecisionKind.LOSE_CARD
        loser = next(u for u in users if u.id == game.awaiting().players[0])
        # The card to turn face up is chosen privately; the group reads the challenge.
        prompt = h.sim.with_buttons(loser.id)
        assert len(prompt) == 1 and h.tr("🔻 Choose a card to turn face up:") in prompt[0].text
        t = h.catalogs.get("ka")
        names = record.names()
        line = describe(ev.ChallengeDeclared(challenger.id, actor.id, Character.DUKE), t, names)
        assert line and line in message.text
        assert loser.first_name in message.text.splitlines()[-1]  # who must decide now


async def test_a_block_opens_its_own_answers_on_the_same_message(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h:
        users = players(3)
        game_id = await open_and_start(h, users)
        actor, message = await claim(h, users, "🤝 Foreign Aid")
        labels = {b["text"] for b in answers(message)}
        block_label = h.tr("🛡 Block: {character_ins}").format(character_ins="ჰერცოგით")
        assert labels == {block_label, h.tr("✅ Pass")}
        blocker = next(u for u in users if u != actor)
        block = message.buttons()[0]["callback_data"]
        await h.press(blocker, GROUP, message.message_id, block)
        await h.delivered(game_id)
        assert {b["text"] for b in answers(message)} == {h.tr("⚔️ Challenge"), h.tr("✅ Pass")}
        # The old window's buttons are gone; a press of them is already answered.
        answer = await h.press(blocker, GROUP, message.message_id, block)
        assert answer["text"] == h.tr("Already answered.")
        answer = await h.press(blocker, GROUP, message.message_id, data_of(h, message, "✅ Pass"))
        assert answer["text"] == h.tr("It is not yours to answer.")
        record = await h.record(game_id)
        assert record is not None
        for pid in record.game().awaiting().players:
            user = next(u for u in users if u.id == pid)
            await h.press(user, GROUP, message.message_id, data_of(h, message, "✅ Pass"))
        await h.delivered(game_id)
        record = await h.record(game_id)
        assert record is not None and record.game().player(actor.id).coins == 2  # blocked
        # Closed: no buttons, and it ends with who moves next (nothing changed on the table).
        assert not message.keyboard
        assert message.text.splitlines()[-1].startswith(next_line(h, "").strip())


async def test_answers_in_private_when_the_group_chose_so(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h:
        await h.store.prefs.set_chat_settings(GROUP, answers="private")
        users = players(3)
        game_id = await open_and_start(h, users)
        actor = next(u for u in users if h.sim.with_buttons(u.id))
        await h.press_text(actor, actor.id, h.tr("👑 Tax"))
        others = [u for u in users if u != actor]
        await h.until(lambda: all(h.sim.with_buttons(u.id) for u in others))
        assert not h.sim.with_buttons(GROUP)
        record = await h.record(game_id)
        assert record is not None
        names = record.names()
        t = h.catalogs.get("ka")
        claim_line = describe(
            ev.ActionDeclared(actor.id, Action.TAX, None, Character.DUKE, 0), t, names
        )
        for u in others:
            prompt = h.sim.with_buttons(u.id)[-1]
            assert claim_line and claim_line in prompt.text  # says what it answers
            assert {b["text"] for b in answers(prompt)} == {h.tr("⚔️ Challenge"), h.tr("✅ Pass")}
            await h.press_text(u, u.id, h.tr("✅ Pass"))
        await h.delivered(game_id)
        record = await h.record(game_id)
        assert record is not None and record.game().player(actor.id).coins == 5
        # Every answer prompt closed; only the next mover's turn is live.
        mover = record.game().awaiting().players[0]
        live = [(u.id, m) for u in users for m in h.sim.with_buttons(u.id)]
        assert [pid for pid, _ in live] == [mover]
        assert h.tr("💰 Income") in {b["text"] for b in live[0][1].buttons()}


async def test_knocked_out_players_are_told_and_play_again_reopens(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h:
        users = players(3)
        game_id = await open_and_start(h, users)
        await play_to_end(h, users, random.Random(11))
        await h.delivered(game_id)
        record = await h.record(game_id)
        assert record is not None and record.status == "over"
        winner = record.game().winner
        out = h.tr("☠️ You are out of the game.")
        for u in users:
            assert (out in h.sim.text_of(u.id)) == (u.id != winner)
            assert not h.sim.with_buttons(u.id)
        # No group message holds more than one turn's story (one table each at most).
        for m in h.sim.messages(GROUP):
            assert m.text.count(h.tr("🃏 The table")) <= 1
        final = [m for m in h.sim.with_buttons(GROUP) if "🏆" in m.text]
        assert len(final) == 1
        again = final[0].button(h.tr("🆕 Play again"))["callback_data"]
        stranger = TgUser(4343, "Stranger")
        answer = await h.press(stranger, GROUP, final[0].message_id, again)
        assert answer["text"] == h.tr(
            "Only this game's players can use “Play again”. Open a new game with /newgame."
        )
        answer = await h.press(users[1], GROUP, final[0].message_id, again)
        assert answer["text"] == h.tr("🆕 New game opened.")
        lobby = await h.record_of_chat(GROUP)
        assert lobby is not None and lobby.status == "lobby" and lobby.creator == users[1].id
        assert {s.id for s in lobby.players} == {u.id for u in users}
        await h.delivered(lobby.id)
        await h.delivered(game_id)
        # The old message lost Play again and keeps its Replay.
        assert [b["text"] for row in final[0].keyboard for b in row] == [h.tr("📜 Replay")]
        lobby_message = h.sim.with_buttons(GROUP)[-1]
        assert all(u.first_name in lobby_message.text for u in users)
        answer = await h.press(users[2], GROUP, final[0].message_id, again)
        assert answer["text"] == h.tr("This button is out of date.")
        # Listed players may leave; the lobby then starts like any other.
        await h.press_text(users[2], GROUP, h.tr("🚪 Leave"))
        lobby = await h.record_of_chat(GROUP)
        assert lobby is not None and {s.id for s in lobby.players} == {users[0].id, users[1].id}
        await h.press_text(users[0], GROUP, h.tr("▶️ Start"))
        await h.until(lambda: any(h.sim.with_buttons(u.id) for u in users[:2]))


async def test_cancel_tells_every_player_privately(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h:
        users = players(3)
        game_id = await open_and_start(h, users)
        await h.say(users[0], GROUP, "/cancel")
        await h.delivered(game_id)
        notice = h.tr("✖️ Your game in the group was cancelled.")
        for u in users:
            assert notice in h.sim.text_of(u.id)
            assert not h.sim.with_buttons(u.id)
        assert not h.sim.with_buttons(GROUP)


async def test_answers_held_back_by_the_group_limit_keep_their_whole_time(
    redis_server_url: str,
) -> None:
    # Telegram holds the group (429, retry after 3 s) when the turn message with the answer
    # buttons is sent; the window has 1 s. It must not close before the buttons are there:
    # its second counts from their delivery.
    fast = Deadlines(turn=60, response=1, lose_card=60, exchange=60, lobby=60)
    async with running_bot(redis_server_url, fast) as h:
        users = players(3, first_id=9400)
        group = -100940
        game_id = await open_and_start(h, users, group=group)
        await h.delivered(game_id)
        h.sim.fail_next(
            "sendMessage", 429, "Too Many Requests: retry after 3", group, retry_after=3
        )
        actor = next(u for u in users if h.sim.with_buttons(u.id))
        await h.press_text(actor, actor.id, h.tr("👑 Tax"))
        await h.until(lambda: bool(h.sim.with_buttons(group)), timeout=15)
        shown = [c for c in h.sim.calls_to(group, "sendMessage") if c.status == 200][-1].at
        record = await h.record(game_id)
        assert record is not None and record.game().awaiting().kind is DecisionKind.RESPONSE
        while (record := await h.record(game_id)) is not None and (
            record.game().awaiting().kind is DecisionKind.RESPONSE
        ):
            await asyncio.sleep(0.02)
        assert time.monotonic() - shown >= 1 - 0.01
        assert record is not None and record.game().player(actor.id).coins == 5


async def test_an_answer_the_rules_refuse_is_the_engines_to_refuse(redis_server_url: str) -> None:
    """A forged Block of a Tax (nobody may block it) on the turn message: the engine
    refuses it, the presser reads why, and the game is unchanged."""
    from tgbot.contract import callbacks
    from tgbot.engine.decisions import Block

    async with running_bot(redis_server_url) as h:
        users = players(3)
        game_id = await open_and_start(h, users)
        await h.delivered(game_id)
        actor, message = await claim(h, users, "👑 Tax")
        other = next(u for u in users if u != actor)
        record = await h.record(game_id)
        assert record is not None and record.table_context is not None
        version = record.game().version
        code = callbacks.encode_decision(Block(Character.DUKE), [s.id for s in record.players])
        data = callbacks.pack(game_id, record.table_context, code)
        answer = await h.press(other, GROUP, message.message_id, data)
        assert answer["text"] == h.tr("You cannot answer that way.")
        record = await h.record(game_id)
        assert record is not None and record.game().version == version
        assert message.keyboard  # the window stays open for the real answers
