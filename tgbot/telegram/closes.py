"""Closes: a message's buttons taken off, by its id, through the outbox and its budget.
An answered prompt whose echo found no room, a copy that a press found stale, and the ids
tried for a copy that a send made again may have left."""

from __future__ import annotations

from itertools import islice

from ..contract.plan import STALE_CLOSE, Edit, close_copy, close_stale_prompt, shows
from ..storage.plan import Writes
from ..storage.store import Store
from .bot_calls import BotCalls
from .lanes import Pending
from .message_refs import message_id as message_id_of
from .message_refs import recorded_ids

# Ids above a send's floor tried for a copy it may have left (see `Closes.copies`): the
# copy went within moments of its attempt, so only the bot's few sends made meanwhile to
# other chats (and, in a supergroup, people's messages) can lie between.
COPY_PROBES = 8


class Closes:
    """The sender's closes: queued (`copies`, `later`) and made (`make`)."""

    def __init__(self, store: Store, calls: BotCalls) -> None:
        self.store = store
        self.calls = calls

    async def copies(
        self, game_id: str, item: Pending, resent: int | None, refs: dict[str, int]
    ) -> None:
        """Queue the closes of a copy that an unanswered send may have left: each id of
        its chat above the floor noted at its attempt, up to COPY_PROBES of them and below
        `resent` (the id the send made again was given), that the game records for no
        message of its own. A close takes only buttons off, and only the bot's own
        messages can be edited: an id that names another chat's message, a person's or a
        message without buttons changes nothing. Made as optional edits, in the chat's
        budget (see `plan.close_keyboard`)."""
        if not item.floor:
            return  # attempted by an older version: nothing bounds where a copy is
        chat = item.op.chat
        known = recorded_ids(refs, chat)
        top = item.floor + COPY_PROBES + 1 if resent is None else resent
        # Lazily: a busy bot's ids may run far past the floor before the send is made again.
        unknown = (i for i in range(item.floor + 1, top) if i not in known)
        candidates = list(islice(unknown, COPY_PROBES))
        if not candidates:
            return
        writes = Writes()
        for message_id in candidates:
            writes.send(game_id, close_copy(chat, message_id, item.op).to_op())
        await self.store.commits.commit(writes)

    async def later(
        self, game_id: str, op: Edit, refs: dict[str, int], after: list[Pending]
    ) -> None:
        """Queue the close of an answered prompt whose echo is not made (see
        `plan.close_stale_prompt`); a prompt never sent has nothing to close. When a newer
        prompt behind it in the lane already reached Telegram (a pass stopped after its
        send, before it was counted delivered), the reference names that one: nothing
        is closed rather than the live prompt."""
        message_id = message_id_of(refs, op)
        newer_sent = any(item.send and bool(item.sent) and item.op.ref == op.ref for item in after)
        if message_id is None or newer_sent:
            return
        writes = Writes()
        writes.send(game_id, close_stale_prompt(op.chat, message_id).to_op())
        await self.store.commits.commit(writes)

    async def make(self, op: Edit, message_id: int, refs: dict[str, int]) -> None:
        """Take the buttons off a message: an answered prompt (`plan.close_stale_prompt`),
        or a copy of a message that a press found stale or that is looked for by id,
        unless the game records that id for one of its messages in this chat (it may be
        the live one, about to be edited into its current buttons): see
        `plan.close_keyboard`. A copy looked for is deleted once it shows its text."""
        stale_prompt = op.ref.startswith(STALE_CLOSE)
        if not stale_prompt and (not refs or message_id in recorded_ids(refs, op.chat)):
            return  # (no ids kept any more, a game long over: nothing tells a copy apart)
        shown = await self.calls.take_buttons_off(op, message_id)
        if op.text and shown is not None and shows(shown, op):
            # The copy looked for (`close_copy`): the bot's, with buttons, and its text.
            await self.calls.delete(op, message_id)
