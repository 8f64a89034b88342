"""Whole games played only by pressing the buttons the players were sent."""

from __future__ import annotations

import asyncio
import random

from tests.telegram_sim.harness import Harness, TgUser, running_bot

GROUP = -100500


async def open_and_start(h: Harness, users: list[TgUser], group: int = GROUP) -> None:
    for u in users:
        await h.say(u, u.id, "/start")
    await h.say(users[0], group, "/newgame")
    await h.until(
        lambda: any("Join" in b["text"] for m in h.sim.messages(group) for b in m.buttons())
    )
    for u in users[1:]:
        answer = await h.press_text(u, group, "Join")
        assert "url" not in answer
    await h.press_text(users[0], group, "Start")
    await h.until(lambda: any(h.sim.with_buttons(u.id) for u in users))


async def play_to_end(
    h: Harness, users: list[TgUser], rng: random.Random, group: int = GROUP
) -> int:
    presses = 0
    for _ in range(5000):
        if "🏆" in h.sim.text_of(group):
            return presses
        live = [(u, m) for u in users for m in h.sim.with_buttons(u.id)]
        if not live:
            await asyncio.sleep(0.02)
            continue
        user, message = rng.choice(live)
        button = rng.choice(message.buttons())
        await h.press(user, user.id, message.message_id, button["callback_data"])
        presses += 1
    raise AssertionError("the game did not end")


def players(n: int) -> list[TgUser]:
    return [TgUser(1000 + i, f"Player{i}") for i in range(n)]


async def test_three_player_game_by_buttons(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h:
        users = players(3)
        await open_and_start(h, users)
        presses = await play_to_end(h, users, random.Random(3))
        assert presses > 3
        group_text = h.sim.text_of(GROUP)
        assert "🏆" in group_text
        # No stale buttons stay live once the game is over.
        await h.until(lambda: not any(h.sim.with_buttons(u.id) for u in users))
        # Every player got their two cards privately at the start.
        for u in users:
            sent = [c.params["text"] for c in h.sim.calls_to(u.id, "sendMessage")]
            assert any("Your cards:" in text for text in sent[1:3])


async def test_six_player_game_by_buttons(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h:
        users = players(6)
        await open_and_start(h, users, group=-100600)
        await play_to_end(h, users, random.Random(6), group=-100600)
        assert "🏆" in h.sim.text_of(-100600)
