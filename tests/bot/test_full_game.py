"""Whole games played only by pressing the buttons the players were sent."""

from __future__ import annotations

import random

from tests.telegram_sim.harness import running_bot

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
