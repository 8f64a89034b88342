"""Thin handlers: parse an update, call the game service, send what it returns.

python-telegram-bot's handlers match and parse the updates (`CommandHandler`,
`CallbackQueryHandler`, `ChatMemberHandler`, `MessageHandler` with its filters), as its
`ConversationHandler` uses them: `check_update` says whether one applies and what it found
(a command's arguments, a pattern's match). `Dispatcher.process` runs the first that
applies inside the update's lease and returns what the press is answered, so that the
webhook can answer it in its HTTP response; polling runs the same `process`.

Not `Application.process_update`: it hands a handler's exception to the error handlers and
returns nothing, where the webhook needs the answer, and a storage error to answer 503
(Telegram then retries); and without persistence it keeps every chat and user id it sees.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from collections.abc import Callable, Coroutine
from typing import Any, overload

from telegram import Bot, Message, Update, User
from telegram.constants import ChatMemberStatus, ChatType
from telegram.error import BadRequest, Forbidden
from telegram.ext import (
    BaseHandler,
    CallbackQueryHandler,
    ChatMemberHandler,
    CommandHandler,
    MessageHandler,
    filters,
)

from ..config import DEFAULT_PERSON_UPDATES_PER_10S
from ..contract import callbacks
from ..contract.outcomes import Said
from ..contract.settings import SETTING_CHOICES
from ..rendering import notices, replies, settings_screens
from ..rendering.i18n import Catalogs, Translator
from ..service.game_service import AdminCheck, Duplicate, GameService
from ..service.results import CallbackResult, Origin, Person, Reply, UserError
from ..storage.updates import Handling
from .answers import CallbackAnswer
from .commands import COMMANDS, Command, CommandCall

log = logging.getLogger(__name__)

GROUP_TYPES = (ChatType.GROUP, ChatType.SUPERGROUP)
THROTTLE_WINDOW_S = 10
NAME_LIMIT = 40
_JOINERS = {"\u200c", "\u200d"}  # zero-width (non-)joiner: part of emoji and some scripts

Route = Callable[[Update, Any, Handling | None], Coroutine[Any, Any, CallbackAnswer | None]]
Handler = BaseHandler[Update, Any, CallbackAnswer | None]


def clean_name(raw: str, limit: int = NAME_LIMIT) -> str:
    """A name safe to store and to send: no control or format characters (bidi overrides
    included), no unpaired surrogates, whitespace collapsed, at most `limit` characters."""
    kept = []
    for ch in raw:
        category = unicodedata.category(ch)
        if category in ("Cc", "Zl", "Zp"):
            kept.append(" ")
        elif category == "Cs" or (category == "Cf" and ch not in _JOINERS):
            continue
        else:
            kept.append(ch)
    return " ".join("".join(kept).split())[:limit].strip()


def person_of(user: User) -> Person:
    """The service's view of a Telegram user."""
    name = clean_name(str(user.full_name)) or str(user.id)
    language = user.language_code if isinstance(user.language_code, str) else None
    return Person(user.id, name, language)


def offers(message: object, data: str) -> bool:
    """Whether a message (as Telegram sent it with the press) shows a button with `data`."""
    markup = getattr(message, "reply_markup", None)
    rows = getattr(markup, "inline_keyboard", None) or ()
    return any(getattr(b, "callback_data", None) == data for row in rows for b in row)


@overload
def service_text(catalogs: Catalogs, outcome: UserError | Said) -> str: ...
@overload
def service_text(catalogs: Catalogs, outcome: CallbackResult) -> str | None: ...
def service_text(catalogs: Catalogs, outcome: UserError | CallbackResult | Said) -> str | None:
    """What the person reads of a service's refusal or result (None: nothing): the one
    place where what the service said becomes words, in the language it resolved."""
    said = outcome.said if isinstance(outcome, UserError | CallbackResult) else outcome
    return None if said is None else notices.said_text(catalogs, said)


class ButtonFamily(CallbackQueryHandler[Any, CallbackAnswer | None]):
    """python-telegram-bot's handler for the presses whose data matches `pattern` (its
    own check lets a press without data through every pattern: not this one)."""

    def check_update(self, update: object) -> re.Match[str] | None:
        """The pattern's match on the press's data, or None."""
        found = super().check_update(update)
        return found if isinstance(found, re.Match) else None


def where(command: Command) -> filters.BaseFilter:
    """The chats a command works in, as a filter (new messages only, not edits)."""
    chats = {
        (True, False): filters.ChatType.GROUPS,
        (False, True): filters.ChatType.PRIVATE,
        (True, True): filters.ChatType.GROUPS | filters.ChatType.PRIVATE,
    }[(command.group is not None, command.private is not None)]
    return filters.UpdateType.MESSAGE & chats


# A python-telegram-bot handler that matches an update, and our route for what it matched
# (which also takes the update's handling: see tgbot/storage/updates.py).
Routed = tuple[Handler, Route]


async def _matches_only(update: Update, context: Any) -> CallbackAnswer | None:
    """Never called: the handlers here only match (`first_match`), the routes handle."""
    return None


def first_match(routes: list[Routed], update: Update) -> tuple[Route, Any] | None:
    """The route of the first handler that applies to the update, with what its check
    found."""
    for handler, route in routes:
        found = handler.check_update(update)
        if found is not None and found is not False:
            return route, found
    return None


class Dispatcher:
    """Routes every kind of update the bot cares about; the same for webhook and polling."""

    def __init__(
        self,
        service: GameService,
        bot: Bot,
        throttle_limit: int = DEFAULT_PERSON_UPDATES_PER_10S,
    ) -> None:
        self.service = service
        self.throttle_limit = throttle_limit  # updates per person per THROTTLE_WINDOW_S
        self.bot = bot
        # Presses are counted before they are matched (a forged one counts too).
        self._buttons: list[Routed] = [
            (
                ButtonFamily(_matches_only, pattern=callbacks.LANGUAGE_PATTERN),
                self._language_pressed,
            ),
            (ButtonFamily(_matches_only, pattern=callbacks.SETTING_PATTERN), self._setting_pressed),
            (ButtonFamily(_matches_only, pattern=callbacks.REPLAY_PATTERN), self._replay_pressed),
            (ButtonFamily(_matches_only, pattern=callbacks.MY_CARDS_PATTERN), self._hand_pressed),
            (ButtonFamily(_matches_only, pattern=callbacks.MORE_TIME_PATTERN), self._hand_pressed),
            # Any other data: a game's button.
            (CallbackQueryHandler(_matches_only), self._game_pressed),
        ]
        # Unknown commands, and commands addressed to another bot, match none: quiet.
        message = filters.UpdateType.MESSAGE
        private = message & filters.ChatType.PRIVATE
        self._others: list[Routed] = [
            (
                ChatMemberHandler(_matches_only, ChatMemberHandler.MY_CHAT_MEMBER),
                self._membership_changed,
            ),
            (MessageHandler(message & filters.StatusUpdate.MIGRATE, _matches_only), self._migrated),
            (
                MessageHandler(message & filters.StatusUpdate.LEFT_CHAT_MEMBER, _matches_only),
                self._left,
            ),
            *(
                (CommandHandler(c.name, _matches_only, where(c)), self._command_route(c))
                for c in COMMANDS
            ),
            # A group's command sent in private: a one-line hint, not silence.
            *(
                (CommandHandler(c.name, _matches_only, private), self._group_only)
                for c in COMMANDS
                if c.private is None
            ),
        ]

    async def process(self, update: Update) -> CallbackAnswer | None:
        """Handle one update; return the answer a button press gets, if it was one.

        Errors from storage propagate (the webhook answers 5xx and Telegram retries). A
        second delivery of an update is recognised where the update was applied (its
        game's, or its chat's, latest update ids: tgbot/storage/updates.py) and changes nothing.
        """
        query = update.callback_query
        chat = update.effective_chat
        if chat is None:
            return await self._handle(update, None)
        # A press's throttle count rides with the update's lease (one round trip). What
        # its commits leave for after them is done at its end, also when it fails.
        counting = (query.from_user.id, THROTTLE_WINDOW_S) if query is not None else None
        async with self.service.intake.update(chat.id, update.update_id, counting) as handling:
            if handling.applied_before:
                log.info("update %s seen before: ignored", update.update_id)
                return CallbackAnswer(query.id) if query else None
            answer = await self._handle(update, handling)
            log.info("update %s handled (chat %s)", update.update_id, chat.id)
        return answer

    async def _handle(self, update: Update, handling: Handling | None) -> CallbackAnswer | None:
        query = update.callback_query
        try:
            return await self._route(update, handling)
        except Duplicate:
            log.info("update %s was applied before: ignored", update.update_id)
            return CallbackAnswer(query.id) if query else None

    async def _route(self, update: Update, handling: Handling | None) -> CallbackAnswer | None:
        if update.callback_query is not None:
            return await self._press(update, handling)
        message = update.message
        if message is not None and not isinstance(message.text, str | None):
            return None  # de_json lets a text through that is no string: no command
        route = first_match(self._others, update)
        return None if route is None else await route[0](update, route[1], handling)

    async def _over_limit(self, who: int, handling: Handling | None) -> int:
        """Count an update from `who`: 0 within the limit, 1 for the first one over it in
        this window (it gets a short notice), 2 for the rest (dropped quietly)."""
        count = await self.service.intake.hit(who, THROTTLE_WINDOW_S, handling)
        if count <= self.throttle_limit:
            return 0
        return 1 if count == self.throttle_limit + 1 else 2

    def _admin_check(self, user_id: int, anonymous_in: int | None = None) -> AdminCheck:
        """Asks Telegram whether the person is an admin of the group it is given.

        `anonymous_in` is the group the update was sent in as the group itself (by one of
        its anonymous admins): there they are an admin without asking.
        """

        async def check(chat_id: int) -> bool:
            if chat_id >= 0:
                return False
            if chat_id == anonymous_in:
                return True
            try:
                member = await self.bot.get_chat_member(chat_id, user_id)
            except (BadRequest, Forbidden):
                return False
            return member.status in (ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.OWNER)

        return check

    # ---- the chat and its members ----------------------------------------------------

    async def _membership_changed(self, update: Update, _: object, __: Handling | None) -> None:
        member = update.my_chat_member
        assert member is not None  # what ChatMemberHandler(MY_CHAT_MEMBER) matched
        if member.new_chat_member.status in (ChatMemberStatus.LEFT, ChatMemberStatus.BANNED):
            await self.service.lobby.chat_closed(member.chat.id)

    async def _migrated(self, update: Update, _: object, __: Handling | None) -> None:
        message = update.message
        assert message is not None
        if message.migrate_to_chat_id:  # said in the old group (the new one says "from")
            await self.service.lobby.chat_migrated(message.chat.id, message.migrate_to_chat_id)

    async def _left(self, update: Update, _: object, __: Handling | None) -> None:
        message = update.message
        assert message is not None and message.left_chat_member is not None
        if message.left_chat_member.id == self.bot.id:
            await self.service.lobby.chat_closed(message.chat.id)

    # ---- buttons -------------------------------------------------------------------

    async def _press(self, update: Update, handling: Handling | None) -> CallbackAnswer:
        query = update.callback_query
        assert query is not None
        person = person_of(query.from_user)
        over = await self._over_limit(person.id, handling)
        if over:
            if over == 1:
                t = await self.service.prefs.translator_for(person)
                return CallbackAnswer(query.id, replies.too_fast(t))
            return CallbackAnswer(query.id)  # stops the spinner, says nothing
        route = first_match(self._buttons, update)
        assert route is not None  # the last button handler takes every press
        answer = await route[0](update, route[1], handling)
        assert answer is not None
        return answer

    async def _not_valid(self, query_id: str, person: Person) -> CallbackAnswer:
        t = await self.service.prefs.translator_for(person)
        return CallbackAnswer(query_id, replies.button_not_valid(t), True)

    async def _language_pressed(
        self, update: Update, found: re.Match[str], _: Handling | None
    ) -> CallbackAnswer:
        query = update.callback_query
        assert query is not None
        person = person_of(query.from_user)
        message = query.message
        if message is None or message.chat.id != person.id:  # the screen is in private
            return await self._not_valid(query.id, person)
        try:
            said = await self.service.prefs.set_language(person, found.group(1))
        except UserError as err:
            return CallbackAnswer(query.id, service_text(self.service.catalogs, err))
        return CallbackAnswer(query.id, service_text(self.service.catalogs, said))

    async def _replay_pressed(
        self, update: Update, _: re.Match[str], handling: Handling | None
    ) -> CallbackAnswer:
        query = update.callback_query
        assert query is not None and isinstance(query.data, str)
        person = person_of(query.from_user)
        result = await self.service.history.replay_pressed(person, query.data, handling)
        return CallbackAnswer(query.id, service_text(self.service.catalogs, result), result.alert)

    async def _hand_pressed(
        self, update: Update, found: re.Match[str], handling: Handling | None
    ) -> CallbackAnswer:
        """👁 My cards (a pop-up, nothing sent to the group) or ⏳ More time."""
        query = update.callback_query
        assert query is not None
        person = person_of(query.from_user)
        service = self.service
        if str(query.data).startswith(callbacks.MY_CARDS_PREFIX):
            result = await service.hand.my_cards(person, found.group(1), handling)
        else:
            result = await service.hand.more_time(
                person, found.group(1), int(found.group(2)), handling
            )
        text = result.text if result.text is not None else service_text(service.catalogs, result)
        return CallbackAnswer(query.id, text, result.alert)

    async def _game_pressed(
        self, update: Update, _: object, handling: Handling | None
    ) -> CallbackAnswer:
        query = update.callback_query
        assert query is not None
        person = person_of(query.from_user)
        data = query.data if isinstance(query.data, str) else ""
        message = query.message
        chat_id = message.chat.id if message is not None else None
        result = await self.service.play.press(
            person,
            data,
            handling,
            is_admin=self._admin_check(person.id),
            chat_id=chat_id,
            message_id=message.message_id if message is not None else None,
            # Only a message that shows the button may have its buttons taken off.
            shows_button=message is not None and offers(message, data),
        )
        toast = service_text(self.service.catalogs, result)
        return CallbackAnswer(query.id, toast, result.alert, result.url)

    async def _setting_pressed(
        self, update: Update, found: re.Match[str], handling: Handling | None
    ) -> CallbackAnswer:
        query = update.callback_query
        assert query is not None
        person = person_of(query.from_user)
        key = found.group(1)
        message = query.message
        if (
            message is None
            or message.chat.type not in GROUP_TYPES
            or key not in SETTING_CHOICES
            or not offers(
                message, callbacks.setting(key)
            )  # forged onto another message (the lobby)
        ):
            return await self._not_valid(query.id, person)
        chat_id = message.chat.id
        if not await self._admin_check(person.id)(chat_id):
            t = await self.service.prefs.translator_for(person)
            return CallbackAnswer(query.id, replies.settings_for_admins(t), True)

        # The screen's new look is queued in the group's outbox, in its replies' share of
        # the group's minute; the answer names the new value at once.
        current = await self.service.prefs.change_setting(
            chat_id, key, handling, message.message_id
        )
        t = self.service.catalogs.get(current.language)
        return CallbackAnswer(query.id, settings_screens.setting_label(t, current, key))

    # ---- commands --------------------------------------------------------------------

    async def _group_only(
        self, update: Update, found: tuple[list[str], object], handling: Handling | None
    ) -> None:
        """A command that works only in a group, sent in private: say where it works."""
        message = update.message
        assert message is not None and message.from_user is not None and handling is not None
        person = person_of(message.from_user)
        if await self._over_limit(person.id, handling):
            return
        t = await self.service.prefs.translator_for(person)
        name = (message.text or "/").split()[0].split("@")[0]
        origin = Origin(handling, message.chat.id)
        await self.service.steps.reply(origin, Reply(replies.group_only(t, name)))

    def _command_route(self, command: Command) -> Route:
        """The route of one command of the table: CommandHandler found it and its words."""

        async def route(
            update: Update, found: tuple[list[str], object], handling: Handling | None
        ) -> CallbackAnswer | None:
            assert update.message is not None and handling is not None  # a message's chat
            await self._command(command, update.message, handling, " ".join(found[0]))
            return None  # a command's reply is queued, never a press's answer

        return route

    async def _translator(self, chat_id: int, person: Person, group: bool) -> Translator:
        service = self.service
        return await (
            service.prefs.group_translator(chat_id)
            if group
            else service.prefs.translator_for(person)
        )

    async def _command(
        self, command: Command, message: Message, handling: Handling, args: str
    ) -> None:
        """Run a command of the table and queue its reply (unless it queued its own)."""
        if message.from_user is None:
            return
        person = person_of(message.from_user)
        # Sent on behalf of a chat: the group itself (one of its anonymous admins, the
        # sender being GroupAnonymousBot), or a channel. Throttled as that chat.
        on_behalf = message.sender_chat
        group = message.chat.type in GROUP_TYPES
        anonymous_admin = group and on_behalf is not None and on_behalf.id == message.chat.id
        thread = message.message_thread_id if message.is_topic_message else None
        origin = Origin(handling, message.chat.id, thread)
        over = await self._over_limit(
            on_behalf.id if on_behalf is not None else person.id, handling
        )
        if over:
            if over == 1:
                t = await self._translator(message.chat.id, person, group)
                await self.service.steps.reply(origin, Reply(replies.too_fast(t)))
            return
        t = await self._translator(message.chat.id, person, group)
        admin_check = self._admin_check(person.id, message.chat.id if anonymous_admin else None)
        title = message.chat.title if isinstance(message.chat.title, str) else ""
        call = CommandCall(self.service, person, origin, group, args, t, admin_check, title)
        if command.seated and on_behalf is not None:
            # Someone writing as the group (an anonymous admin) or as a channel has no
            # private chat for the cards and no seat at the table: they may cancel a game
            # (as an admin) and use the other commands, but they cannot open, join, start
            # or leave one; opening a lobby for nobody would only leave it to time out.
            reply: Reply | None = Reply(replies.write_as_yourself(t))
        else:
            try:
                reply = await command.run(call)
            except UserError as err:
                reply = Reply(service_text(self.service.catalogs, err))
        if reply is not None:
            await self.service.steps.reply(origin, reply)
