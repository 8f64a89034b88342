"""The group's turn messages over a whole game, as Telegram shows them: each turn's last
edit, its verdict, keeps its story, has no buttons and ends with who moves next in words
that stay true ("➡️ next: X", never "X to move"); deadlines are
moments (date_time entities), never an ageing count; the end is a message of its own;
a proven card's return to the deck is told to the group; Challenge and Pass are styled.
And the size of a 6-player turn message, through the real message builder."""

from __future__ import annotations

import asyncio
import json
import random
import statistics

from bench.turn_size import measure
from tests.telegram_sim.harness import TgUser, running_bot
from tests.telegram_sim.server import SimMessage, TelegramSim
from tgbot.config import DEFAULT_LOCALES
from tgbot.contract.steps import MOST_VERDICTS
from tgbot.engine import Character, Game, game_to_dict
from tgbot.engine import events as ev
from tgbot.rendering.i18n import Catalogs
from tgbot.service.records import GameRecord, Seat, Timing
from tgbot.service.step_messages import StepMessages

from .play import GROUP, answers, open_and_start, play_to_end, players


async def test_a_whole_game_leaves_no_button_and_no_untrue_line_and_ends_in_a_new_message(
    redis_server_url: str,
) -> None:
    async with running_bot(redis_server_url) as h:
        users = players(4)
        await open_and_start(h, users)
        await play_to_end(h, users, random.Random(5))
        await h.until(lambda: "🏆" in h.sim.text_of(GROUP))
        record = await h.record_of_chat(GROUP)
        assert record is None
        messages = h.sim.messages(GROUP)
        end = messages[-1]
        # The end is a new message (it rings), sent with Play again and Replay on it in
        # one call (after the last turn's story when that turn had no message: a Coup, say).
        won = h.tr("🏆 {winner} wins!").split("{")[0]
        assert any(line.startswith(won) for line in end.text.splitlines()), end.text
        assert end.edits == 0
        assert h.tr("🆕 Play again") in [b["text"] for b in end.buttons()]
        turn_tail = h.tr("▶️ {players} to move.").split("{")[0]
        next_up = h.tr("➡️ next: {player}").split("{")[0]
        ageing = [w.strip(" .") for w in h.tr("{time} left.").split("{time}") if w.strip(" .")]
        for message in messages[:-1]:
            # Every earlier message (the lobby, which the first turn took over, and each
            # turn's) is closed: no buttons, no "X to move", no count of seconds; each but
            # the last turn's ends with who moved next (edited once, by its verdict).
            assert not message.keyboard, message.text
            assert turn_tail not in message.text, message.text
            assert "🏆" not in message.text
            assert not any(word in message.text for word in ageing)
        turns = [m for m in messages[:-1] if not m.text.startswith("⏳")]  # no More time line
        for message in turns[:-1]:
            assert message.text.splitlines()[-1].startswith(next_up), message.text
        # Deadlines went out as moments: date_time entities with a time format.
        moments = [c for c in h.sim.calls_to(GROUP) if "date_time" in str(c.params)]
        assert moments


async def test_challenge_is_a_danger_button_and_pass_a_success_one(
    redis_server_url: str,
) -> None:
    async with running_bot(redis_server_url) as h:
        users = players(3)
        await open_and_start(h, users)
        await play_to_end(h, users, random.Random(3))
        await h.until(lambda: "🏆" in h.sim.text_of(GROUP))
        styles = {
            b.get("text"): b.get("style")
            for c in h.sim.calls_to(GROUP, "editMessageText")
            for row in (c.params.get("reply_markup") and _rows(c.params["reply_markup"])) or []
            for b in row
        }
        assert styles.get(h.tr("⚔️ Challenge")) == "danger"
        assert styles.get(h.tr("✅ Pass")) == "success"


CATALOGS = Catalogs(DEFAULT_LOCALES)


def _rows(raw: object) -> list[list[dict[str, object]]]:
    markup = json.loads(raw) if isinstance(raw, str) else raw
    assert isinstance(markup, dict)
    return list(markup.get("inline_keyboard") or [])


def test_a_proven_card_going_back_is_told_to_the_group_and_only_its_owner_sees_the_new_one() -> (
    None
):
    builder = StepMessages(CATALOGS, "coup_test_bot")
    for seed in range(40):
        ids = [1, 2, 3]
        record = GameRecord(
            f"g{seed}", -100, None, "en", 1, Timing(60, 30, 30, 30, 60, 2),
            players=[Seat(pid, f"N{pid}", "en") for pid in ids],
        )  # fmt: skip
        game, events = Game.new(ids, seed)
        driver = random.Random(seed)
        while not game.over:
            plan = builder.build(record, game, events, 0)
            record.engine = game_to_dict(game)
            proven = [e for e in events if isinstance(e, ev.ClaimProven)]
            if proven:
                replaced = next(e for e in events if isinstance(e, ev.CardReplaced))
                group = "\n".join(op.text for op in plan.ops if op.chat == -100)
                shown = proven[0].character.value.capitalize()
                assert f"N{replaced.player} shuffles the {shown} back into the deck" in group
                drawn = replaced.drawn.value.capitalize()
                own = "\n".join(op.text for op in plan.ops if op.chat == replaced.player)
                assert f"you drew: {drawn}" in own  # the new card: theirs alone
                return
            pid = driver.choice(game.awaiting().players)
            events = game.apply(pid, driver.choice(game.legal_decisions(pid)))
    raise AssertionError("no proven claim in 40 games")


def test_a_six_player_turn_message_is_short_at_the_median() -> None:
    """Within a phone's glance: ≤ 10 lines and ≤ 400 characters at the median, a message
    holding up to `MOST_VERDICTS` turns (its own, then quiet turns added to it), each
    ending with who moved next (bench/turn_size.py prints the figures for more games)."""
    assert MOST_VERDICTS == 3
    for lang in ("ka", "en"):
        sizes = measure(range(12), lang)
        assert statistics.median(lines for lines, _ in sizes.last) <= 10
        assert statistics.median(chars for _, chars in sizes.last) <= 400
        assert sizes.tails_left == 0 and sizes.buttons_left == 0


def test_the_simulated_telegram_refuses_a_malformed_date_time_entity_or_style() -> None:
    sim = TelegramSim()
    text = "⏰ until 12:34:56 UTC"
    good = {"type": "date_time", "offset": 8, "length": 12, "unix_time": 1_800_000_000}
    ok, _ = sim.handle(
        "sendMessage",
        {"chat_id": 1, "text": text, "entities": json.dumps([good | {"date_time_format": "T"}])},
    )
    assert ok == 200 and sim.last(1).moments() == [1_800_000_000]
    for bad in (
        good | {"date_time_format": "x"},  # not a format
        good | {"unix_time": "soon"},  # not a time
        good | {"offset": 15},  # past the text's end (UTF-16 units)
        {k: v for k, v in good.items() if k != "unix_time"},
    ):
        status, body = sim.handle(
            "sendMessage", {"chat_id": 1, "text": text, "entities": json.dumps([bad])}
        )
        assert status == 400 and "can't parse entities" in body["description"]
    markup = {"inline_keyboard": [[{"text": "x", "callback_data": "x", "style": "loud"}]]}
    status, _ = sim.handle(
        "sendMessage", {"chat_id": 1, "text": "x", "reply_markup": json.dumps(markup)}
    )
    assert status == 400


async def test_cancel_between_turns_leaves_the_verdict_as_it_was(
    redis_server_url: str,
) -> None:
    async with running_bot(redis_server_url) as h:
        users = players(3)
        game_id = await open_and_start(h, users)
        await h.delivered(game_id)
        # The deal's message (the lobby's, taken over) says who moves first, with no
        # moment: a line that stays true once they have moved, or the game is cancelled.
        first = h.sim.messages(GROUP)[0]
        assert first.text.splitlines()[-1].startswith(h.tr("➡️ next: {player}").split("{")[0])
        assert not first.moments()
        shown, edits = first.text, first.edits
        await h.say(users[0], GROUP, "/cancel")
        await h.delivered(game_id)
        assert h.tr("✖️ The game was cancelled.") in h.sim.last(GROUP).text
        # No edit only to take a line off: the deal's message is as it was.
        assert (first.text, first.edits) == (shown, edits)
        turn_tail = h.tr("▶️ {players} to move.").split("{")[0]
        for message in h.sim.messages(GROUP):
            assert turn_tail not in message.text, message.text
            assert not message.moments(), message.text


async def test_play_again_keeps_the_last_turns_story_at_the_top_of_the_end(
    redis_server_url: str,
) -> None:
    async with running_bot(redis_server_url) as h:
        a, b = players(2)
        game_id = await open_and_start(h, [a, b])
        await h.delivered(game_id)
        # b leaves before anyone moved: that turn had no message, the end tells its story.
        await h.say(b, GROUP, "/leave")
        await h.until(lambda: "🏆" in h.sim.text_of(GROUP))
        await h.delivered(game_id)
        end = next(m for m in h.sim.messages(GROUP) if "🏆" in m.text)
        left = h.tr("🚪 {player} leaves the game.").format(player=b.first_name)
        assert end.text.startswith(left), end.text
        before = end.text
        answer = await h.press_text(a, GROUP, h.tr("🆕 Play again"))
        assert answer["text"] == h.tr("🆕 New game opened.")
        await h.delivered(game_id)
        # Only its buttons and the line of who opened the new game change.
        assert end.text.startswith(before + "\n"), end.text
        assert [b["text"] for b in end.buttons()] == [h.tr("📜 Replay")]


async def test_a_card_chosen_within_seconds_is_told_by_the_verdict_alone(
    redis_server_url: str,
) -> None:
    # A bluff (Tax without a Duke, or Exchange without an Ambassador) is claimed and
    # challenged; the bluffer, holding two different cards, chooses the one to lose 2 s
    # later. The group's claim message is sent once and closed once by its verdict: no
    # edit in between for the challenge made or the card being chosen (the verdict tells
    # both), and no live buttons. (A deal with no such bluff is left for another.)
    async with running_bot(redis_server_url) as h:
        for attempt in range(20):  # a new group and new people each time
            group, users = GROUP - attempt, players(2, first_id=1000 + 10 * attempt)
            game_id = await open_and_start(h, users, group)
            record = await h.record(game_id)
            assert record is not None
            mover = next(u for u in users if h.sim.with_buttons(u.id))
            hand = set(next(p.hidden for p in record.game().players if p.id == mover.id))
            bluffs = [c for c in (Character.DUKE, Character.AMBASSADOR) if c not in hand]
            if len(hand) == 2 and bluffs:
                break
        else:
            raise AssertionError("20 deals without a bluff to make")
        other = next(u for u in users if u is not mover)
        before = {(u.id, m.message_id) for u in users for m in h.sim.messages(u.id)}
        claim_button = "👑 Tax" if bluffs[0] is Character.DUKE else "🔄 Exchange"
        await h.press_text(mover, mover.id, h.tr(claim_button))
        await h.until(lambda: bool(h.sim.with_buttons(group)))
        claim = h.sim.with_buttons(group)[-1]
        await h.press_text(other, group, h.tr("⚔️ Challenge"))

        def asked() -> list[tuple[TgUser, SimMessage]]:
            return [
                (u, m)
                for u in users
                for m in h.sim.with_buttons(u.id)
                if (u.id, m.message_id) not in before and answers(m)
            ]

        await h.until(lambda: bool(asked()))  # the card to lose is chosen in private
        await asyncio.sleep(2)
        [(chooser, prompt)] = asked()
        assert chooser is mover
        await h.press(chooser, chooser.id, prompt.message_id, answers(prompt)[0]["callback_data"])
        await h.delivered(game_id)
        edits = [
            c
            for c in h.sim.calls_to(group, "editMessageText")
            if c.status == 200 and int(c.params.get("message_id", 0)) == claim.message_id
        ]
        assert len(edits) == 1, [c.params.get("text") for c in edits]
        assert "➡️" in str(edits[0].params.get("text"))
        assert not h.sim.with_buttons(group)
