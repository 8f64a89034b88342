"""Deliveries asked for while one of the same outbox runs are folded into it (issue 14)."""

from __future__ import annotations

import asyncio

from tests.telegram_sim.harness import TgUser, running_bot
from tests.telegram_sim.server import TelegramSim
from tgbot.telegram import commands


async def test_replies_queued_while_their_chat_is_delivered_arrive_once_each(
    any_redis_url: str,
) -> None:
    # Telegram answers this chat slowly, so its first reply's delivery is still running
    # when the next commands commit theirs: those are folded into the running delivery,
    # which goes round again, and every reply arrives exactly once.
    sim = TelegramSim()
    person = TgUser(8600, "Slow")
    sim.delay("sendMessage", person.id, 0.5)
    async with running_bot(any_redis_url, sim=sim) as h:
        responses = await asyncio.gather(
            *(h.post(h.message_update(person, person.id, "/help")) for _ in range(6))
        )
        assert all(r.status_code == 200 for r in responses)
        await h.replied(person.id, timeout=30)
        help_text = commands.help_text(h.catalogs.get("ka"))
        shown = "\n\n".join(m.text for m in sim.messages(person.id))
        assert shown.count(help_text) == 6
        sent = [c for c in sim.calls_to(person.id, "sendMessage") if c.status == 200]
        assert len(sent) < 6  # the later replies went out together, in a later round
