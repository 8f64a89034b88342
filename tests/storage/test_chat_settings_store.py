"""A group's settings in the group's slot, written with what their change queues (issue 37)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tgbot.contract.plan import screen_edit
from tgbot.storage.commit import Duplicate
from tgbot.storage.keys import chat_owner
from tgbot.storage.store import Store
from tgbot.storage.updates import Handling

GROUP = -100777

Screen = Callable[[dict[str, str]], list[dict[str, object]]]


async def change(
    store: Store,
    values: Callable[[dict[str, str]], dict[str, str]],
    update: Handling | None = None,
    screen: Screen | None = None,
) -> dict[str, str]:
    """One change of the group's settings, as the service makes it: from their current
    values, with what it queues; the settings then."""
    async with store.prefs.settings_transaction(GROUP, update) as (current, tx):
        after = {**current, **values(current)}
        tx.settings(after)
        for op in screen(after) if screen is not None else []:
            tx.queue(op)
    return after


async def test_settings_written_before_they_moved_are_read_until_the_first_change(
    store: Store,
) -> None:
    before = store.keys.chat_settings_before(GROUP)
    await store.redis.hset(before, mapping={"lang": "en", "turn": "60"})
    assert await store.prefs.chat_settings(GROUP) == {"lang": "en", "turn": "60"}
    # The first change starts from them and moves them: the old hash goes.
    written = await change(store, lambda _: {"turn": "90"})
    assert written == {"lang": "en", "turn": "90"}
    assert await store.prefs.chat_settings(GROUP) == written
    assert not await store.redis.exists(before)
    await store.prefs.set_chat_settings(GROUP, answers="private")
    assert await store.prefs.chat_settings(GROUP) == {**written, "answers": "private"}


async def test_a_change_queues_its_screen_in_the_same_script_once_per_update(
    store: Store,
) -> None:
    owner = chat_owner(GROUP)

    def screen(values: dict[str, str]) -> list[dict[str, object]]:
        return [screen_edit(GROUP, 5, f"turn {values['turn']}", None).to_op()]

    def next_turn(stored: dict[str, str]) -> dict[str, str]:
        return {"turn": str(int(stored.get("turn", "60")) + 30)}

    for update_id in (41, 42):
        handling = await store.updates.begin(GROUP, update_id, (1, 10))
        await change(store, next_turn, handling, screen)
        await store.updates.end(handling)
    queued = [op for _, op in await store.outboxes.outbox_items(owner)]
    assert [(op["op"], op["message_id"], op["text"]) for op in queued] == [
        ("edit", 5, "turn 90"),
        ("edit", 5, "turn 120"),
    ]
    assert all(op["direct"] and op["ref"] == "screen:5" for op in queued)
    # A second delivery of a press changes nothing and queues nothing: it is found in
    # the settings it changed (marked there, as a game's press is in its record).
    handling = await store.updates.begin(GROUP, 42, (1, 10))
    assert not handling.applied_before
    with pytest.raises(Duplicate):
        await change(store, lambda _: {"turn": "30"}, handling, screen)
    assert (await store.prefs.chat_settings(GROUP))["turn"] == "120"
    assert len(await store.outboxes.outbox_items(owner)) == 2
