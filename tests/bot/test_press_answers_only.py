"""A press's handler only answers it: every message edit goes through the outbox, its
lanes and its budget (issue 37). While the test holds every outbox's delivery lock, the
simulated Bot API may hear only the presses' answers (and an admin check); once the
locks are let go, the outboxes deliver the new looks."""

from __future__ import annotations

from tests.bot.play import open_and_start, players
from tests.telegram_sim.harness import Harness, TgUser, running_bot
from tgbot.contract import callbacks
from tgbot.contract.settings import ChatSettings
from tgbot.rendering.settings_screens import setting_label
from tgbot.rendering.ui import seconds_text
from tgbot.storage.keys import chat_owner

GROUP = -100930
# What a handler may ask Telegram itself: the press's answer (in the webhook's response)
# and whether the presser is an admin of the group (a settings press).
HANDLERS_MAY_CALL = {"answerCallbackQuery", "getChatMember"}


async def hold_deliveries(h: Harness, owners: list[str]) -> None:
    """Hold the delivery lock of each outbox, as a live process of another version would:
    nothing of theirs reaches Telegram until `let_go`."""
    for owner in owners:
        await h.store.redis.set(h.store.keys.sending(owner), "held-by-the-test", px=60_000)


async def let_go(h: Harness, owners: list[str]) -> None:
    """Let the outboxes' locks go: the sweeper delivers what waits."""
    for owner in owners:
        await h.store.redis.delete(h.store.keys.sending(owner))


async def test_presses_that_change_their_message_make_no_bot_api_call_but_the_answer(
    any_redis_url: str,
) -> None:
    async with running_bot(any_redis_url) as h:
        users = players(3, first_id=9300)
        admin = users[0]
        h.sim.admins.add((GROUP, admin.id))
        await h.say(admin, GROUP, "/settings")
        screen = h.sim.last(GROUP)
        game_id = await open_and_start(h, users, group=GROUP)
        await h.delivered(game_id)
        actor = next(u for u in users if h.sim.with_buttons(u.id))
        prompt = h.sim.with_buttons(actor.id)[-1]
        asked = prompt.text
        steal = prompt.button(h.tr("🏴 Steal"))["callback_data"]
        back = steal.rsplit(".", 1)[0] + "." + callbacks.BACK
        lose_card = screen.button("🔻")["callback_data"]  # 45 -> 90 s
        owners = [game_id, chat_owner(GROUP), *(chat_owner(u.id) for u in users)]
        await hold_deliveries(h, owners)
        since = len(h.sim.calls)
        presses: list[tuple[TgUser, int, int, str]] = [
            (actor, actor.id, prompt.message_id, steal),
            (actor, actor.id, prompt.message_id, back),
            (actor, actor.id, prompt.message_id, steal),
            (admin, GROUP, screen.message_id, lose_card),
        ]
        answers = []
        for user, chat, message_id, data in presses:
            response = await h.post(h.press_update(user, chat, message_id, data))
            assert response.status_code == 200
            answers.append(response.json())
        assert {c.method for c in h.sim.calls[since:]} <= HANDLERS_MAY_CALL
        assert [a["method"] for a in answers] == ["answerCallbackQuery"] * len(presses)
        # The picker's presses say nothing; the setting's names its new value at once.
        assert all("text" not in a for a in answers[:3])
        t = h.catalogs.get("ka")
        changed = ChatSettings(lose_card=90)
        assert answers[3]["text"] == setting_label(t, changed, "lose_card")
        assert prompt.text == asked  # nothing changed yet

        await let_go(h, owners)
        shown = h.tr("🔻 Losing a card: {value}").format(value=seconds_text(t, 90))
        await h.until(lambda: shown in str(screen.keyboard), 15)
        await h.until(lambda: h.tr("« Back") in str(prompt.keyboard), 15)
        edits = [c for c in h.sim.calls[since:] if c.method == "editMessageText"]
        assert edits and not any(c.via_webhook for c in edits)
        assert {int(c.params["chat_id"]) for c in edits} == {actor.id, GROUP}
