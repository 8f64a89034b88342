"""A private prompt's close is the bot's lowest priority (issue 38, item 4): its echo is
made only while the bot's second has room, else dropped; its stale buttons answer
"Already decided." and change nothing, no later delivery writes over the chat, and once
there is room they come off (issue 37: no keyboard outlives its game)."""

from __future__ import annotations

import asyncio
import time

from tests.telegram_sim.harness import Harness, running_bot
from tgbot.telegram import rate_limit

from .play import GROUP, open_and_start, players

BUSY_MS = 3_000


async def fill_spare_room(h: Harness, messages_per_second: int) -> None:
    """Other games take the bot's queued calls for the next BUSY_MS up to the share an
    optional call may use: what must go out still has room, a prompt's close has none."""
    queued = max(1, messages_per_second * rate_limit.QUEUED_SHARE_PERCENT // 100)
    num, den = rate_limit.SPARE_SHARE
    for shard, share in enumerate(rate_limit._split(queued)):
        busy = max(1, share * num // den)
        now = int(time.time() * 1000)
        window = rate_limit.BOT_WINDOW_MS
        # Counted as the other games' calls, whatever this second holds already.
        taken, _ = await h.store.windows.take_bot(
            True, shard, now, share + busy, window, busy, BUSY_MS
        )
        assert taken == busy


async def test_a_close_with_no_room_is_dropped_and_its_buttons_answer_already_decided(
    redis_server_url: str,
) -> None:
    async with running_bot(redis_server_url, messages_per_second=30) as h:
        users = players(3)
        game_id = await open_and_start(h, users)
        await h.delivered(game_id)
        actor = next(u for u in users if h.sim.with_buttons(u.id))
        prompt = h.sim.with_buttons(actor.id)[-1]
        text, edits = prompt.text, prompt.edits
        income = prompt.button(h.tr("💰 Income"))["callback_data"]
        await fill_spare_room(h, 30)
        answer = await h.press(actor, actor.id, prompt.message_id, income)
        assert answer["text"] == h.tr("✔️ Done.")
        # The group was told and the next player asked; the prompt kept its look and
        # buttons (its echo dropped, its close waiting for room).
        others = [u for u in users if u != actor]
        await h.until(lambda: any(h.sim.with_buttons(u.id) for u in others))
        record = await h.record(game_id)
        assert record is not None and record.game().player(actor.id).coins == 3
        assert (prompt.text, prompt.edits) == (text, edits) and prompt.keyboard
        # A press on them answers "Already decided." and changes nothing.
        calls, rev = len(h.sim.calls), record.rev
        answer = await h.press(actor, actor.id, prompt.message_id, income)
        assert answer["text"] == h.tr("Already decided.")
        after = await h.record(game_id)
        assert after is not None and after.rev == rev
        made = [c for c in h.sim.calls[calls:] if c.method != "answerCallbackQuery"]
        assert not made
        # Once the bot has room again, the buttons come off; the text is never rewritten.
        await asyncio.sleep(BUSY_MS / 1000)
        await h.delivered(game_id)
        assert not prompt.keyboard
        assert prompt.text == text
        assert not [c for c in h.sim.calls_to(actor.id, "editMessageText")]
        assert len(h.sim.calls_to(actor.id, "editMessageReplyMarkup")) == 1


async def test_a_close_with_room_is_made(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h:
        users = players(3)
        game_id = await open_and_start(h, users)
        await h.delivered(game_id)
        actor = next(u for u in users if h.sim.with_buttons(u.id))
        prompt = h.sim.with_buttons(actor.id)[-1]
        income = prompt.button(h.tr("💰 Income"))["callback_data"]
        await h.press(actor, actor.id, prompt.message_id, income)
        await h.delivered(game_id)
        await h.until(lambda: not prompt.keyboard)
        assert GROUP  # the group's turn is told as ever (tests/bot/test_verdicts.py)
