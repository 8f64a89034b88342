"""Acting as players in the simulated Telegram: open a lobby, join, press buttons."""

from __future__ import annotations

import asyncio
import random

from tests.telegram_sim.harness import Harness, TgUser

GROUP = -100500


def players(n: int, lang: str | None = "ka", first_id: int = 1000) -> list[TgUser]:
    """n Telegram users."""
    return [TgUser(first_id + i, f"Player{i}", lang) for i in range(n)]


async def open_lobby(h: Harness, users: list[TgUser], group: int = GROUP, lang: str = "ka") -> str:
    """Everyone starts the bot privately, the first opens a lobby, the rest join it."""
    for u in users:
        await h.say(u, u.id, "/start")
    await h.say(users[0], group, "/newgame")
    join = h.tr("✋ Join", lang)
    await h.until(lambda: h.has_button(group, join))
    for u in users[1:]:
        answer = await h.press_text(u, group, join)
        assert "url" not in answer, answer
    record = await h.record_of_chat(group)
    assert record is not None
    return record.id


async def open_and_start(
    h: Harness, users: list[TgUser], group: int = GROUP, lang: str = "ka"
) -> str:
    """Open a lobby, fill it and press Start; wait for the first prompt."""
    game_id = await open_lobby(h, users, group, lang)
    await h.press_text(users[0], group, h.tr("▶️ Start", lang))
    await h.until(lambda: any(h.sim.with_buttons(u.id) for u in users))
    return game_id


async def press_random(
    h: Harness, users: list[TgUser], rng: random.Random, group: int = GROUP
) -> str | None:
    """Press one random live button: of a player's private chat, or of the group's turn
    message (Challenge / Block / Pass) by a player who may answer; return the answer's
    text, or None if no button is live."""
    live = [(u, u.id, m) for u in users for m in h.sim.with_buttons(u.id)]
    record = await h.record_of_chat(group)
    table = [  # the answers on the turn message, not Play again
        m for m in h.sim.with_buttons(group) if not m.buttons()[0]["callback_data"].endswith(".G")
    ]
    if table and record is not None and record.engine is not None:
        answering = set(record.game().awaiting().players)
        live += [(u, group, m) for u in users if u.id in answering for m in table]
    if not live:
        return None
    user, chat, message = rng.choice(live)
    button = rng.choice(message.buttons())
    answer = await h.press(user, chat, message.message_id, button["callback_data"])
    return str(answer.get("text", ""))


async def play_to_end(
    h: Harness,
    users: list[TgUser],
    rng: random.Random,
    group: int = GROUP,
    only_humans: bool = True,
) -> int:
    """Press buttons until the group reads the winner; return how many presses it took.

    Each press waits until the bot has delivered the last step's messages, as a person
    reads before they tap (not a story line held for the verdict to replace it). Then no
    button left on screen may be out of date, unless an AI player (`only_humans=False`)
    moved in between.
    """
    record = await h.record_of_chat(group)
    assert record is not None, "no game in the group"
    out_of_date = h.tr("This button is out of date.", record.lang)
    presses = idle = 0
    while presses < 2000:
        await h.delivered(record.id, held=False)
        if "🏆" in h.sim.text_of(group):
            return presses
        answer = await press_random(h, users, rng, group)
        if answer is None:  # an AI player thinks, or a deadline is due: not a press
            idle += 1
            assert idle < 1000, "no button came up for a long time"
            await asyncio.sleep(0.02)
            continue
        presses, idle = presses + 1, 0
        if only_humans:
            # (A private prompt whose close a busy bot dropped answers "Already decided.")
            assert answer != out_of_date, "a button stayed live after its question closed"
    raise AssertionError("the game did not end")


def first_income_press(h: Harness, users: list[TgUser]) -> tuple[TgUser, dict]:
    """The update of the first player pressing Income on their turn prompt."""
    actor = next(u for u in users if h.sim.with_buttons(u.id))
    prompt = h.sim.with_buttons(actor.id)[-1]
    data = prompt.button(h.tr("💰 Income"))["callback_data"]
    return actor, h.press_update(actor, actor.id, prompt.message_id, data)


HAND_PREFIXES = ("me.", "mt.")  # 👁 My cards and ⏳ More time, on the turn message and prompts


def answers(message: object) -> list[dict]:
    """A message's buttons but 👁 My cards and ⏳ More time: its answers or choices."""
    return [
        b
        for b in message.buttons()  # type: ignore[attr-defined]
        if not str(b.get("callback_data", "")).startswith(HAND_PREFIXES)
    ]
