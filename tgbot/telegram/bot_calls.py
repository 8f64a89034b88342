"""The sender's Bot API calls, each with what Telegram's refusals of it mean: a message
sent, a message's text edited, a message's buttons taken off."""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from telegram import Message
from telegram.error import BadRequest, ChatMigrated, Forbidden
from telegram.ext import ExtBot

from ..contract.plan import Edit, Fallback, Op
from .keyboards import markup
from .lanes import thread_of, with_moment

log = logging.getLogger("tgbot.telegram.sender")  # the sender's lines, as before

# How long a send or an edit waits for Telegram's answer (python-telegram-bot's default
# read timeout is 5 s). Telegram answers in a few seconds even when it is slow, and a send
# whose answer did not come is made again, leaving a copy nobody can edit (with live
# buttons, if it has any); an edit made again spends another slot of a group's minute.
# Waiting longer costs the chat's lane only the time the answer takes.
WRITE_READ_TIMEOUT_S = 15.0


def pace(op: Op, calls: int = 1) -> dict[str, Any]:
    """The rate limiter's arguments: an answer to a person (a reply, a press's edit) is
    outside the queued share; the op's class in a group's minute (an optional edit takes a
    slot only while the minute has room to spare); `calls` to the same chat follow in a
    row."""
    return {"queued": not op.direct, "priority": op.rank, "chat_calls": calls}


def shares_count(chat: int) -> bool:
    """Whether a chat's message ids come from the bot's one count (a private chat, a basic
    group), not the chat's own (a supergroup: -100…)."""
    return not str(chat).startswith("-100")


class BotCalls:
    """The calls the sender makes, on the process's one bot object."""

    def __init__(
        self,
        bot: ExtBot[Any],
        on_unreachable: Callable[[str, int, Fallback | None], Awaitable[None]],
    ) -> None:
        self.bot = bot
        # Telegram refused a private message: (game, person, where to say so) is noted, and
        # the group told how to fix it the first time (the service's decision).
        self.on_unreachable = on_unreachable
        # The newest message id that private chats and basic groups gave this process's
        # sends: they share the bot's one count (a supergroup numbers its own), so an id
        # taken in any of them bounds from below the id of a later send to one of them.
        self._newest_shared = 0

    def newest_id(self, chat: int) -> int:
        """The newest message id known to be taken before this moment in `chat`'s count
        (0: none known; a supergroup's count is not followed)."""
        return self._newest_shared if shares_count(chat) else 0

    def _noted(self, chat: int, message_id: int) -> int:
        """Note the id a send was given (see `newest_id`); return it."""
        if shares_count(chat):
            self._newest_shared = max(self._newest_shared, message_id)
        return message_id

    async def send_text(
        self,
        game_id: str,
        op: Op,
        calls: int = 1,
        before_call: Callable[[], Awaitable[None]] | None = None,
    ) -> int | None:
        """One sendMessage; the new message's id, None when Telegram refused it (a 403 is
        noted, a 400 logged). Its answer is waited for longer than Telegram's slow ones
        (WRITE_READ_TIMEOUT_S): a send whose answer is late is not made again blindly."""
        op, entities = with_moment(op, int(time.time() * 1000))
        try:
            message = await self.bot.send_message(
                chat_id=op.chat,
                text=op.text,
                entities=entities,
                reply_markup=markup(op.kb),
                message_thread_id=thread_of(op),
                read_timeout=WRITE_READ_TIMEOUT_S,
                rate_limit_args=pace(op, calls) | {"before_call": before_call},
            )
        except Forbidden:
            await self._unreachable(game_id, op)
            return None
        except BadRequest as err:
            log.warning("message to chat %s refused: %s", op.chat, err.message)
            return None
        return self._noted(op.chat, message.message_id)

    async def edit_text(self, game_id: str, op: Op, message_id: int, calls: int = 1) -> bool:
        """Edit a message; False when it cannot be edited (gone, too old)."""
        op, entities = with_moment(op, int(time.time() * 1000))
        try:
            await self.bot.edit_message_text(
                text=op.text,
                entities=entities,
                chat_id=op.chat,
                message_id=message_id,
                reply_markup=markup(op.kb),
                read_timeout=WRITE_READ_TIMEOUT_S,
                rate_limit_args=pace(op, calls),
            )
        except BadRequest as err:
            if "not modified" in err.message.lower():
                return True
            log.warning("edit in chat %s refused: %s", op.chat, err.message)
            return False
        except Forbidden:
            await self._unreachable(game_id, op)
        return True

    async def take_buttons_off(self, op: Edit, message_id: int) -> str | None:
        """Take a message's buttons off, its text kept; the text it shows, None when it
        had none to take off (gone, too old, closed already, or no message of the bot's:
        said in one line)."""
        try:
            message = await self.bot.edit_message_reply_markup(
                chat_id=op.chat,
                message_id=message_id,
                reply_markup=None,
                read_timeout=WRITE_READ_TIMEOUT_S,
                rate_limit_args=pace(op),
            )
        except ChatMigrated:
            return None  # a message of the old group, which nobody edits any more
        except (BadRequest, Forbidden) as err:  # gone, too old, or closed already
            log.info("stale buttons in chat %s not taken off: %s", op.chat, err.message)
            return None
        return (message.text or "") if isinstance(message, Message) else None

    async def delete(self, op: Edit, message_id: int) -> None:
        """Delete one of the bot's messages (gone already, or refused: said in one line)."""
        try:
            await self.bot.delete_message(
                chat_id=op.chat,
                message_id=message_id,
                read_timeout=WRITE_READ_TIMEOUT_S,
                rate_limit_args=pace(op),
            )
        except (BadRequest, Forbidden, ChatMigrated) as err:
            log.info("message %s in chat %s not deleted: %s", message_id, op.chat, err.message)

    async def _unreachable(self, game_id: str, op: Op) -> None:
        """A private message was refused: the service notes it (and tells the group)."""
        if op.chat < 0:  # a group: the bot was removed; chat_closed deals with that
            return
        await self.on_unreachable(game_id, op.chat, op.fallback)
