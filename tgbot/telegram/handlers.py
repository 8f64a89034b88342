"""Thin handlers: parse an update, call the game service, send what it returns."""

from __future__ import annotations

import asyncio
import logging
import unicodedata

from telegram import Bot, CallbackQuery, Message, Update, User
from telegram.constants import ChatMemberStatus, ChatType
from telegram.error import BadRequest, ChatMigrated, Forbidden, RetryAfter

from ..config import DEFAULT_PERSON_UPDATES_PER_10S
from ..rendering import history as history_texts
from ..rendering import notices, ui
from ..rendering.i18n import LANGUAGES, Translator
from ..service.game_service import AdminCheck, Duplicate, GameService, NeedsStart
from ..service.lobby import chat_variant
from ..service.outcomes import Said
from ..service.results import Origin, Person, Reply, UserError
from ..tasks import settle
from .answers import CallbackAnswer
from .keyboards import markup
from .sender import Sender

log = logging.getLogger(__name__)

GROUP_TYPES = (ChatType.GROUP, ChatType.SUPERGROUP)
THROTTLE_WINDOW_S = 10
NAME_LIMIT = 40
_JOINERS = {"\u200c", "\u200d"}  # zero-width (non-)joiner: part of emoji and some scripts
# Commands that need a person who can sit at the table and get cards privately.
_PLAYER_COMMANDS = frozenset({"newgame", "join", "leave", "startgame"})


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

    async def deliver_later(self, owner: str) -> None:
        """Deliver a committed step's messages (or a reply) without holding up the update."""
        task = asyncio.create_task(self._deliver(owner))
        self._deliveries.add(task)
        task.add_done_callback(self._deliveries.discard)

    async def _deliver(self, owner: str) -> None:
        try:
            await self.sender.flush(owner)
        except Exception:  # the sweeper retries what stays queued
            log.exception("delivery of outbox %s failed; it stays queued", owner)

    async def drain(self, timeout: float) -> None:
        """Let deliveries in flight finish (for a clean shutdown), waiting `timeout` s at most."""
        await settle(list(self._deliveries), timeout)

    async def process(self, update: Update) -> CallbackAnswer | None:
        """Handle one update; return the answer a button press gets, if it was one.

        Errors from storage propagate (the webhook answers 5xx and Telegram retries). A
        second delivery of an update is recognised where the update was applied (its
        game's, or its chat's, latest update ids: tgbot.storage.store) and changes nothing.
        """
        query = update.callback_query
        chat = update.effective_chat
        # A press's throttle count rides with the update's lease (one round trip).
        counting = (query.from_user.id, THROTTLE_WINDOW_S) if query is not None else None
        if chat is not None and not await self.store.begin_update(
            chat.id, update.update_id, counting
        ):
            log.info("update %s seen before: ignored", update.update_id)
            return CallbackAnswer(query.id) if query else None
        try:
            answer = await self._route(update)
        except Duplicate:
            log.info("update %s was applied before: ignored", update.update_id)
            answer = CallbackAnswer(query.id) if query else None
        except BaseException:
            if chat is not None:  # what its commits left to do still is done
                try:
                    await self.store.abandon_update()
                except Exception as err:
                    log.warning(
                        "update %s: writes after its commits failed: %s", update.update_id, err
                    )
            raise
        log.info("update %s handled (chat %s)", update.update_id, chat.id if chat else None)
        if chat is not None:
            await self.store.end_update(chat.id, update.update_id)
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

    async def _over_limit(self, who: int) -> int:
        """Count an update from `who`: 0 within the limit, 1 for the first one over it in
        this window (it gets a short notice), 2 for the rest (dropped quietly)."""
        count = await self.store.hit(who, THROTTLE_WINDOW_S)
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

    # ---- buttons -------------------------------------------------------------------

    async def _callback(self, query: CallbackQuery, update_id: int) -> CallbackAnswer:
        person = person_of(query.from_user)
        over = await self._over_limit(person.id)
        if over:
            if over == 1:
                t = await self.service.translator_for(person)
                return CallbackAnswer(query.id, t.gettext("Too fast: wait a moment."))
            return CallbackAnswer(query.id)  # stops the spinner, says nothing
        data = query.data if isinstance(query.data, str) else ""
        message = query.message
        chat_id = message.chat.id if message is not None else None
        if data.startswith("lang."):
            if chat_id != person.id:  # the language screen lives in the private chat
                return await self._not_valid(query, person)
            return CallbackAnswer(query.id, await self._language_chosen(person, data[5:]))
        if data.startswith("cfg."):
            return await self._setting_pressed(query, person, data[4:], update_id)
        if data.startswith(history_texts.REPLAY_BUTTON_PREFIX):  # issue 19 hook: Replay button
            result = await self.service.history.replay_pressed(person, data, update_id)
            return CallbackAnswer(query.id, self._toast(result.said), result.alert)
        result = await self.service.press(
            person, data, update_id, is_admin=self._admin_check(person.id), chat_id=chat_id
        )
        answer = CallbackAnswer(query.id, self._toast(result.said), result.alert, result.url)
        if result.edit is not None and message is not None:
            try:
                await query.edit_message_text(
                    result.edit.text, reply_markup=markup(result.edit.keyboard)
                )
            except RetryAfter:  # the private chat's short window, never a group's
                t = await self.service.translator_for(person)
                return CallbackAnswer(query.id, t.gettext("Too fast: wait a moment."))
            except (BadRequest, Forbidden) as err:
                # Too old, deleted, or unchanged: the press changes nothing, and says so.
                if "not modified" not in err.message.lower():
                    log.warning("edit after press in chat %s refused: %s", chat_id, err.message)
                    t = await self.service.translator_for(person)
                    return CallbackAnswer(query.id, t.gettext("This button is out of date."))
        return answer

    async def _not_valid(self, query: CallbackQuery, person: Person) -> CallbackAnswer:
        t = await self.service.translator_for(person)
        return CallbackAnswer(query.id, t.gettext("This button is not valid."), True)

    async def _language_chosen(self, person: Person, lang: str) -> str:
        try:
            said = await self.service.set_language(person, lang)
        except UserError as err:
            said = err.said
        return self._words(said)

    def _words(self, said: Said) -> str:
        """What the service said (a refusal or a notice) in words, in the language it chose."""
        return notices.say(self.service.catalogs.get(said.lang), said)

    def _toast(self, said: Said | None) -> str | None:
        """A press's toast: what the service said, if anything."""
        return None if said is None else self._words(said)

    async def _setting_pressed(
        self, query: CallbackQuery, person: Person, key: str, update_id: int
    ) -> CallbackAnswer:
        message = query.message
        if (
            message is None
            or message.chat.type not in GROUP_TYPES
            or key not in ui.SETTING_CHOICES
            or not offers(message, f"cfg.{key}")  # forged onto another message (the lobby)
        ):
            return await self._not_valid(query, person)
        chat_id = message.chat.id
        if not await self._admin_check(person.id)(chat_id):
            t = await self.service.translator_for(person)
            return CallbackAnswer(
                query.id, t.gettext("Only group admins can change the settings."), True
            )

        def change(stored: dict[str, str]) -> dict[str, str]:
            return {key: ui.next_setting(key, self._settings(stored)[key])}

        # Read and written in one compare-and-set with the update's mark: two presses at
        # once both count, a second delivery of one press counts once.
        written = await self.store.change_chat_settings(chat_id, update_id, change)
        if written is None:
            raise Duplicate
        current = self._settings(written)
        screen = ui.settings_screen(self.service.catalogs.get(current["lang"]), current)
        try:
            await query.edit_message_text(screen.text, reply_markup=markup(screen.keyboard))
        except RetryAfter:  # the group's window is full: never waited for in a handler
            t = self.service.catalogs.get(current["lang"])
            return CallbackAnswer(query.id, t.gettext("Too fast: wait a moment."))
        except ChatMigrated as err:  # the group became a supergroup: its game follows
            await self.service.chat_migrated(chat_id, err.new_chat_id)
        except BadRequest as err:
            if "not modified" not in err.message.lower():
                log.warning("settings edit in chat %s refused: %s", chat_id, err.message)
        return CallbackAnswer(query.id)

    def _settings(self, stored: dict[str, str]) -> dict[str, str]:
        """A group's settings: what it stored, else the defaults."""
        d = self.service.defaults
        lang = stored.get("lang", "")
        return {
            "lang": lang if lang in LANGUAGES else "ka",
            "turn": stored.get("turn", str(d.turn)),
            "response": stored.get("response", str(d.response)),
            "lose_card": stored.get("lose_card", str(d.lose_card)),
            "exchange": stored.get("exchange", str(d.exchange)),
            "lobby": stored.get("lobby", str(d.lobby)),
            "afk_limit": stored.get("afk_limit", str(d.afk_limit)),
            "answers": "private" if stored.get("answers") == "private" else "table",
            "variant": chat_variant(stored).value,
        }

    # ---- messages and commands -----------------------------------------------------

    async def _message(self, message: Message, update_id: int) -> None:
        if message.migrate_to_chat_id:
            await self.service.chat_migrated(message.chat.id, message.migrate_to_chat_id)
            return
        if message.left_chat_member is not None and message.left_chat_member.id == self.bot.id:
            await self.service.chat_closed(message.chat.id)
            return
        text = message.text if isinstance(message.text, str) else ""
        if not text.startswith("/") or message.from_user is None:
            return
        command, _, args = text[1:].partition(" ")
        command, _, addressee = command.partition("@")
        if addressee and addressee.lower() != (self.bot.username or "").lower():
            return
        person = person_of(message.from_user)
        # Sent on behalf of a chat: the group itself (one of its anonymous admins, the
        # sender being GroupAnonymousBot), or a channel. Throttled as that chat.
        on_behalf = message.sender_chat
        group = message.chat.type in GROUP_TYPES
        anonymous_admin = group and on_behalf is not None and on_behalf.id == message.chat.id
        thread = message.message_thread_id if message.is_topic_message else None
        origin = Origin(update_id, message.chat.id, thread)
        over = await self._over_limit(on_behalf.id if on_behalf is not None else person.id)
        if over:
            if over == 1:
                t = await self._translator(message.chat.id, person, group)
                await self.service.reply(origin, Reply(t.gettext("Too fast: wait a moment.")))
            return
        try:
            reply = await self._command(
                command.lower(),
                args.strip(),
                person,
                group,
                origin,
                on_behalf is not None,
                anonymous_admin,
            )
        except UserError as err:
            reply = Reply(self._words(err.said))
        if reply is not None:
            await self.service.reply(origin, reply)

    async def _translator(self, chat_id: int, person: Person, group: bool) -> Translator:
        service = self.service
        return await (
            service.group_translator(chat_id) if group else service.translator_for(person)
        )

    async def _command(
        self,
        command: str,
        args: str,
        person: Person,
        group: bool,
        origin: Origin,
        on_behalf: bool,
        anonymous_admin: bool,
    ) -> Reply | None:
        """Run a command; return the reply to queue, or None when it queued its own."""
        service = self.service
        chat_id = origin.chat_id
        update_id = origin.update_id
        t = await self._translator(chat_id, person, group)
        if command == "help":
            return Reply(ui.help_text(t))
        if command == "rules":  # the group's variant; in private, the game one is in
            if group:
                return Reply(await service.group_rules(chat_id, t))
            return Reply(await service.person_rules(person, t))
        if not group:
            return await self._private_command(command, args, person, origin)
        admin_check = self._admin_check(person.id, chat_id if anonymous_admin else None)
        if command == "board":
            return await service.board(chat_id)
        if command == "top":
            return await service.leaderboard(chat_id)
        if command == "claims":  # issue 19 hook
            return service.history.claims(await service.game_of_chat(chat_id), t)
        if command == "replay":  # issue 19 hook: the group's last game, public log only
            await service.history.replay_for_group(origin, t)
            return None
        if command == "settings":
            if not await admin_check(chat_id):
                return Reply(t.gettext("Only group admins can change the settings."))
            screen = ui.settings_screen(t, self._settings(await self.store.chat_settings(chat_id)))
            return Reply(screen.text, screen.keyboard)
        if on_behalf and command in _PLAYER_COMMANDS:
            # Someone writing as the group (an anonymous admin) or as a channel has no
            # private chat for the cards and no seat at the table: they may cancel a game
            # (as an admin) and use the other commands, but they cannot open, join, start
            # or leave one; opening a lobby for nobody would only leave it to time out.
            return Reply(t.gettext("To play, write as yourself, not as the group or a channel."))
        if command == "newgame":
            return await service.new_game(chat_id, origin.thread_id, person, update_id)
        record = await service.game_of_chat(chat_id)
        if record is None:
            return Reply(t.gettext("No game here. Start one with /newgame."))
        if command == "join":
            try:
                await service.join(record.id, person, update_id, reply_to=origin)
            except NeedsStart:
                return await self._open_the_bot_first(person, record.id)
            return None
        if command == "leave":
            await service.leave_lobby_or_game(record.id, person, update_id, reply_to=origin)
            return None
        if command == "startgame":
            await service.start_game(record.id, person, update_id)
            return None
        if command == "cancel":
            await service.cancel(record.id, person, admin_check, update_id)
            return None
        return None

    async def _open_the_bot_first(self, person: Person, game_id: str) -> Reply:
        """The reply to /join from someone the bot may not write to yet: a deep link."""
        t = await self.service.translator_for(person)
        text = t.gettext("{name}, open the bot and press Start, and you're in.")
        button = {"text": t.gettext("🤖 Open the bot"), "url": self.service.join_link(game_id)}
        return Reply(text.format(name=person.name), [[button]])

    async def _private_command(
        self, command: str, args: str, person: Person, origin: Origin
    ) -> Reply | None:
        service = self.service
        if command == "start":
            await service.private_started(person, args or None, origin)
            return None
        if command == "stats":
            return await service.my_stats(person)
        if command == "top":  # issue 19 hook: the board of all groups
            return await service.history.top(None, await service.translator_for(person))
        if command == "claims":  # issue 19 hook
            record = await service.game_of_person(person.id)
            return service.history.claims(record, await service.translator_for(person))
        if command == "replay":  # issue 19 hook: public log, then the person's own view
            await service.history.replay_for_person(person, origin, args)
            return None
        if command == "language":
            screen = ui.language_screen(await service.translator_for(person))
            return Reply(screen.text, screen.keyboard)
        if command == "leave":
            record = await service.game_of_person(person.id)
            t = await service.translator_for(person)
            if record is None:
                return Reply(t.gettext("You are not in a game."))
            await service.leave_lobby_or_game(record.id, person, origin.update_id, origin)
            return None
        return None
