"""Thin handlers: parse an update, call the game service, send what it returns."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from telegram import Bot, CallbackQuery, Message, Update, User
from telegram.constants import ChatMemberStatus, ChatType
from telegram.error import BadRequest, Forbidden

from ..config import DEFAULT_PERSON_UPDATES_PER_10S
from ..rendering import ui
from ..service.game_service import Duplicate, GameService
from ..service.results import Person, Reply, UserError
from ..tasks import settle
from .answers import CallbackAnswer
from .keyboards import markup
from .sender import Sender

log = logging.getLogger(__name__)

GROUP_TYPES = (ChatType.GROUP, ChatType.SUPERGROUP)
THROTTLE_WINDOW_S = 10


def person_of(user: User) -> Person:
    """The service's view of a Telegram user."""
    return Person(user.id, user.full_name[:40] or str(user.id), user.language_code)


class Dispatcher:
    """Routes every kind of update the bot cares about; the same for webhook and polling."""

    def __init__(
        self,
        service: GameService,
        bot: Bot,
        sender: Sender,
        throttle_limit: int = DEFAULT_PERSON_UPDATES_PER_10S,
    ) -> None:
        self.service = service
        self.throttle_limit = throttle_limit  # updates per person per THROTTLE_WINDOW_S
        self.bot = bot
        self.sender = sender
        self.store = service.store
        self._deliveries: set[asyncio.Task[None]] = set()
        service.on_commit = self.deliver_later

    async def deliver_later(self, game_id: str) -> None:
        """Deliver a committed step's messages without holding up the update."""
        task = asyncio.create_task(self._deliver(game_id))
        self._deliveries.add(task)
        task.add_done_callback(self._deliveries.discard)

    async def _deliver(self, game_id: str) -> None:
        try:
            await self.sender.flush(game_id)
        except Exception:  # the sweeper retries what stays queued
            log.exception("delivery of game %s failed; it stays queued", game_id)

    async def drain(self, timeout: float) -> None:
        """Let deliveries in flight finish (for a clean shutdown), waiting `timeout` s at most."""
        await settle(list(self._deliveries), timeout)

    async def process(self, update: Update) -> CallbackAnswer | None:
        """Handle one update; return the answer a button press gets, if it was one.

        Errors from storage propagate (the webhook answers 5xx and Telegram retries).
        """
        query = update.callback_query
        if await self.store.seen_update(update.update_id):
            log.info("update %s seen before: ignored", update.update_id)
            return CallbackAnswer(query.id) if query else None
        try:
            answer = await self._route(update)
        except Duplicate:
            log.info("update %s was applied before: ignored", update.update_id)
            return CallbackAnswer(query.id) if query else None
        chat = update.effective_chat
        log.info("update %s handled (chat %s)", update.update_id, chat.id if chat else None)
        await self.store.redis.set(self.store.keys.update(update.update_id), "1", ex=3 * 24 * 3600)
        return answer

    async def _route(self, update: Update) -> CallbackAnswer | None:
        if update.callback_query is not None:
            return await self._callback(update.callback_query, update.update_id)
        if update.my_chat_member is not None:
            member = update.my_chat_member
            if member.new_chat_member.status in (ChatMemberStatus.LEFT, ChatMemberStatus.BANNED):
                await self.service.chat_closed(member.chat.id)
        elif update.message is not None:
            await self._message(update.message, update.update_id)
        return None

    async def _throttled(self, user_id: int) -> bool:
        return await self.store.hit(user_id, THROTTLE_WINDOW_S) > self.throttle_limit

    # ---- buttons -------------------------------------------------------------------

    async def _callback(self, query: CallbackQuery, update_id: int) -> CallbackAnswer:
        person = person_of(query.from_user)
        if await self._throttled(person.id):
            t = await self.service.translator_for(person)
            return CallbackAnswer(query.id, t.gettext("Too fast: wait a moment."))
        data = query.data or ""
        if data.startswith("lang."):
            return CallbackAnswer(query.id, await self._language_chosen(person, data[5:]))
        if data.startswith("cfg."):
            return await self._setting_pressed(query, person, data[4:])
        chat_id = query.message.chat.id if query.message else None
        result = await self.service.press(
            person, data, update_id, is_admin=self._admin_check(chat_id, person.id)
        )
        answer = CallbackAnswer(query.id, result.text or None, result.alert, result.url)
        if result.edit is not None and query.message is not None:
            try:
                await query.edit_message_text(
                    result.edit.text, reply_markup=markup(result.edit.keyboard)
                )
            except BadRequest as err:
                if "not modified" not in err.message.lower():
                    raise
        return answer

    def _admin_check(self, chat_id: int | None, user_id: int) -> Callable[[], Awaitable[bool]]:
        async def check() -> bool:
            if chat_id is None or chat_id > 0:
                return False
            try:
                member = await self.bot.get_chat_member(chat_id, user_id)
            except (BadRequest, Forbidden):
                return False
            return member.status in (ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.OWNER)

        return check

    async def _language_chosen(self, person: Person, lang: str) -> str:
        try:
            return await self.service.set_language(person, lang)
        except UserError as err:
            return err.text

    async def _setting_pressed(
        self, query: CallbackQuery, person: Person, key: str
    ) -> CallbackAnswer:
        message = query.message
        t = await self.service.translator_for(person)
        if message is None or message.chat.type not in GROUP_TYPES or key not in ui.SETTING_CHOICES:
            return CallbackAnswer(query.id, t.gettext("This button is not valid."), True)
        if not await self._admin_check(message.chat.id, person.id)():
            return CallbackAnswer(
                query.id, t.gettext("Only group admins can change the settings."), True
            )
        current = await self._settings(message.chat.id)
        await self.store.set_chat_settings(
            message.chat.id, **{key: ui.next_setting(key, current[key])}
        )
        current = await self._settings(message.chat.id)
        group_t = self.service.catalogs.get(current["lang"])
        screen = ui.settings_screen(group_t, current)
        await query.edit_message_text(screen.text, reply_markup=markup(screen.keyboard))
        return CallbackAnswer(query.id)

    async def _settings(self, chat_id: int) -> dict[str, str]:
        stored = await self.store.chat_settings(chat_id)
        d = self.service.defaults
        return {
            "lang": await self.service.group_language(chat_id),
            "turn": stored.get("turn", str(d.turn)),
            "response": stored.get("response", str(d.response)),
            "lose_card": stored.get("lose_card", str(d.lose_card)),
            "exchange": stored.get("exchange", str(d.exchange)),
            "lobby": stored.get("lobby", str(d.lobby)),
            "afk_limit": stored.get("afk_limit", str(d.afk_limit)),
        }

    # ---- messages and commands -----------------------------------------------------

    async def _message(self, message: Message, update_id: int) -> None:
        if message.migrate_to_chat_id:
            await self.service.chat_migrated(message.chat.id, message.migrate_to_chat_id)
            return
        if message.left_chat_member is not None and message.left_chat_member.id == self.bot.id:
            await self.service.chat_closed(message.chat.id)
            return
        text = message.text or ""
        if not text.startswith("/") or message.from_user is None:
            return
        command, _, args = text[1:].partition(" ")
        command, _, addressee = command.partition("@")
        if addressee and addressee.lower() != (self.bot.username or "").lower():
            return
        person = person_of(message.from_user)
        if await self._throttled(person.id):
            return
        group = message.chat.type in GROUP_TYPES
        try:
            reply = await self._command(
                command.lower(), args.strip(), message, person, group, update_id
            )
        except UserError as err:
            reply = Reply(err.text)
        if reply is not None:
            await self._reply(message, reply)

    async def _reply(self, message: Message, reply: Reply) -> None:
        await self.sender.group_slot(message.chat.id)
        try:
            await self.bot.send_message(
                chat_id=message.chat.id,
                text=reply.text,
                reply_markup=markup(reply.keyboard),
                message_thread_id=message.message_thread_id if message.is_topic_message else None,
            )
        except Forbidden:  # they blocked the bot, or it was removed from the group
            if message.chat.id > 0:
                await self.service.person_unreachable(message.chat.id)
        except BadRequest as err:
            log.warning("reply in chat %s refused: %s", message.chat.id, err.message)

    async def _command(
        self,
        command: str,
        args: str,
        message: Message,
        person: Person,
        group: bool,
        update_id: int,
    ) -> Reply | None:
        service = self.service
        chat_id = message.chat.id
        t = await (service.group_translator(chat_id) if group else service.translator_for(person))
        if command == "help":
            return Reply(ui.help_text(t))
        if command == "rules":
            return Reply(ui.rules_text(t))
        if not group:
            return await self._private_command(command, args, person, update_id)
        thread = message.message_thread_id if message.is_topic_message else None
        if command == "newgame":
            return await service.new_game(chat_id, thread, person, update_id)
        if command == "board":
            return await service.board(chat_id)
        if command == "top":
            return await service.leaderboard(chat_id)
        if command == "settings":
            if not await self._admin_check(chat_id, person.id)():
                return Reply(t.gettext("Only group admins can change the settings."))
            screen = ui.settings_screen(t, await self._settings(chat_id))
            return Reply(screen.text, screen.keyboard)
        record = await service.game_of_chat(chat_id)
        if record is None:
            return Reply(t.gettext("No game here. Start one with /newgame."))
        if command == "join":
            return await self._join(record.id, person, update_id)
        if command == "leave":
            return Reply(await service.leave_lobby_or_game(record.id, person, update_id))
        if command == "startgame":
            await service.start_game(record.id, person, update_id)
            return None
        if command == "cancel":
            await service.cancel(
                record.id, person, self._admin_check(chat_id, person.id), update_id
            )
            return None
        return None

    async def _join(self, game_id: str, person: Person, update_id: int) -> Reply:
        result = await self.service.press(person, f"{game_id}.0.J", update_id)
        if result.url:
            t = await self.service.translator_for(person)
            return Reply(
                t.gettext("{name}, open the bot and press Start, then you are in.").format(
                    name=person.name
                ),
                [[{"text": t.gettext("🤖 Open the bot"), "url": result.url}]],
            )
        return Reply(result.text)

    async def _private_command(
        self, command: str, args: str, person: Person, update_id: int
    ) -> Reply | None:
        service = self.service
        if command == "start":
            texts = await service.private_started(person, args or None)
            return Reply("\n\n".join(texts))
        if command == "stats":
            return await service.my_stats(person)
        if command == "language":
            screen = ui.language_screen(await service.translator_for(person))
            return Reply(screen.text, screen.keyboard)
        if command == "leave":
            record = await service.game_of_person(person.id)
            t = await service.translator_for(person)
            if record is None:
                return Reply(t.gettext("You are not in a game."))
            return Reply(await service.leave_lobby_or_game(record.id, person, update_id))
        return None
