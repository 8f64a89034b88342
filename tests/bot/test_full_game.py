"""Whole games played only by pressing the buttons the players were sent."""

from __future__ import annotations

import random

import pytest

from tests.telegram_sim.harness import running_bot
from tgbot.engine import Variant

from .play import GROUP, open_and_start, play_to_end, players


async def test_three_player_game_by_buttons(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h:
        users = players(3)
        await open_and_start(h, users)
        presses = await play_to_end(h, users, random.Random(3))
        assert presses > 3
        assert "🏆" in h.sim.text_of(GROUP)
        # No stale buttons stay live once the game is over.
        await h.until(lambda: not any(h.sim.with_buttons(u.id) for u in users))
        # Every player got their two cards privately at the start.
        for u in users:
            sent = [c.params["text"] for c in h.sim.calls_to(u.id, "sendMessage")]
            assert any(text.startswith("🂠") for text in sent[1:3])
        record = await h.record_of_chat(GROUP)
        assert record is None  # the group is free for a new game


async def test_six_player_game_by_buttons(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h:
        users = players(6)
        await open_and_start(h, users, group=-100600)
        await play_to_end(h, users, random.Random(6), group=-100600)
        assert "🏆" in h.sim.text_of(-100600)
        await h.until(lambda: not any(h.sim.with_buttons(u.id) for u in users))


@pytest.mark.parametrize("processes", [1, 2])
@pytest.mark.parametrize("answers", ["table", "private"])
@pytest.mark.parametrize("variant", list(Variant))
async def test_whole_games_log_no_error_in_any_mode(
    redis_server_url: str, variant: Variant, answers: str, processes: int
) -> None:
    # A 4-player game of each variant, with its answers at the table or in private, on one
    # webhook process or spread over two, played by buttons to its end: it ends, no live
    # button is left, and (this suite's autouse check) nothing was logged at ERROR and no
    # traceback, so a sender that fails and retries in a loop while the game goes on fails.
    group = -(101_000 + 100 * list(Variant).index(variant) + 10 * processes)
    group -= 1 if answers == "private" else 0
    async with running_bot(redis_server_url, instances=processes) as h:
        h.spread = True
        await h.store.prefs.set_chat_settings(group, answers=answers, variant=variant.value)
        users = players(4, first_id=-group * 10)
        await open_and_start(h, users, group=group)
        await play_to_end(h, users, random.Random(-group), group=group)
        assert "🏆" in h.sim.text_of(group)
        await h.until(lambda: not any(h.sim.with_buttons(u.id) for u in users))
        challenge = h.tr("⚔️ Challenge")

        def offered(chat: int) -> bool:
            sent = [m.sent_keyboard or [] for m in h.sim.messages(chat)]
            return any(b["text"] == challenge for rows in sent for row in rows for b in row)

        # The answers to claims came where the group chose: to the players, or to the table.
        in_private = any(offered(u.id) for u in users)
        assert (in_private, offered(group)) == (answers == "private", answers == "table")
