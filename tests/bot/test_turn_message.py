"""The group's turn messages over a whole game, as Telegram shows them: each turn's last
edit keeps its story and has neither buttons nor a "whose turn" line; deadlines are
moments (date_time entities), never an ageing count; the end is a message of its own;
a proven card's return to the deck is told to the group; Challenge and Pass are styled.
And the size of a 6-player turn message, through the real message builder."""

from __future__ import annotations

import json
import random
import statistics

from bench.turn_size import measure
from tests.telegram_sim.harness import running_bot
from tests.telegram_sim.server import TelegramSim
from tgbot.config import DEFAULT_LOCALES
from tgbot.engine import Game, game_to_dict
from tgbot.engine import events as ev
from tgbot.rendering.i18n import Catalogs
from tgbot.service.records import GameRecord, Seat, Timing
from tgbot.service.step_messages import StepMessages

from .play import GROUP, open_and_start, play_to_end, players


async def test_a_whole_game_leaves_no_turn_tail_no_button_and_ends_in_a_new_message(
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
        ageing = [w.strip(" .") for w in h.tr("{time} left.").split("{time}") if w.strip(" .")]
        for message in messages[:-1]:
            # Every earlier message (the lobby, which the first turn took over, and each
            # turn's) is closed: no buttons, no "whose turn", no count of seconds.
            assert not message.keyboard, message.text
            assert turn_tail not in message.text, message.text
            assert "🏆" not in message.text
            assert not any(word in message.text for word in ageing)
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
    """Within a phone's glance: ≤ 8 lines and ≤ 350 characters at the median
    (bench/turn_size.py prints the figures for more games)."""
    for lang in ("ka", "en"):
        sizes = measure(range(12), lang)
        assert statistics.median(lines for lines, _ in sizes.last) <= 8
        assert statistics.median(chars for _, chars in sizes.last) <= 350
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


async def test_cancel_between_turns_takes_the_whose_turn_line_off_the_closed_turn(
    redis_server_url: str,
) -> None:
    async with running_bot(redis_server_url) as h:
        users = players(3)
        game_id = await open_and_start(h, users)
        await h.delivered(game_id)
        turn_tail = h.tr("▶️ {players} to move.").split("{")[0]
        # The deal's message (the lobby's, taken over) says who moves first, until when.
        first = h.sim.messages(GROUP)[0]
        assert turn_tail in first.text and first.moments()
        await h.say(users[0], GROUP, "/cancel")
        await h.delivered(game_id)
        assert h.tr("✖️ The game was cancelled.") in h.sim.last(GROUP).text
        # Nobody is to move any more: no message says so, nor until when.
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
