"""The preferences room: a person's language, a group's settings and their one write."""

from __future__ import annotations

import contextlib

from ..config import Deadlines
from ..contract.languages import LANGUAGES
from ..contract.outcomes import Notice, Refusal, Said
from ..contract.plan import Fallback, Send, screen_edit
from ..contract.settings import ChatSettings, next_setting
from ..rendering import settings_screens
from ..rendering.i18n import Translator, pick_language
from ..storage.keys import chat_owner
from ..storage.plan import Writes
from ..storage.updates import Handling
from .core import GameSteps, retried
from .results import Person, UserError


class Preferences:
    """Languages and group settings: read by every room, written here."""

    def __init__(self, steps: GameSteps, defaults: Deadlines) -> None:
        self.steps = steps
        self.store = steps.store
        self.catalogs = steps.catalogs
        self.defaults = defaults

    async def mark_unreachable(self, game_id: str, user_id: int, fallback: Fallback | None) -> None:
        """Telegram refused a private message of `game_id` to this person: note it, and the
        first time, tell the game's group how to fix it (`fallback`'s note, queued in the
        game's outbox behind the group's other messages)."""
        already_known = await self.store.prefs.refused_us(user_id)
        writes = Writes()
        self.store.prefs.note_refused(writes, user_id)
        if fallback is not None and fallback.note and not already_known:
            note = Send(fallback.group, fallback.note, thread=fallback.thread)
            writes.send(game_id, note.to_op())
        await self.store.commits.commit(writes)

    async def person_language(self, person: Person) -> str:
        """A person's language: their /language choice, else Telegram's if ka/en, else ka."""
        prefs = await self.store.prefs.user_prefs(person.id)
        return pick_language(prefs.get("lang"), person.language_code)

    async def translator_for(self, person: Person) -> Translator:
        """The translator for a person's private chat."""
        return self.catalogs.get(await self.person_language(person))

    async def chat_settings(self, chat_id: int) -> ChatSettings:
        """A group's settings (the defaults where its admins chose nothing)."""
        return ChatSettings.from_stored(
            await self.store.prefs.chat_settings(chat_id), self.defaults
        )

    @retried
    async def change_setting(
        self, chat_id: int, key: str, update: Handling | None, message_id: int
    ) -> ChatSettings:
        """Switch one of a group's settings (`key`, one of `settings.SETTINGS`) to its next
        value; the group's settings as they are then. Read and written in one
        compare-and-set with the update's mark and the new look of the settings screen
        (the message `message_id`), queued in the group's outbox as a reply: two presses
        at once both count, and a second delivery of one press raises Duplicate."""

        async with self.store.prefs.settings_transaction(chat_id, update) as (stored, tx):
            value = ChatSettings.from_stored(stored, self.defaults).stored_value(key)
            after = {**stored, key: next_setting(key, value)}
            tx.settings(after)
            now = ChatSettings.from_stored(after, self.defaults)
            shown = settings_screens.settings_screen(self.catalogs.get(now.language), now)
            tx.queue(screen_edit(chat_id, message_id, shown.text, shown.keyboard).to_op())
        await self.steps.committed(chat_owner(chat_id))
        return now

    async def group_language(self, chat_id: int) -> str:
        """A group's language (Georgian until its admins choose)."""
        return (await self.chat_settings(chat_id)).language

    async def group_translator(self, chat_id: int) -> Translator:
        """The translator for a group."""
        return self.catalogs.get(await self.group_language(chat_id))

    async def set_language(self, person: Person, lang: str) -> Said:
        """Store a person's language; the games they are in speak it from the next step."""
        if lang not in LANGUAGES:
            raise UserError(Refusal.UNKNOWN_LANGUAGE, await self.person_language(person))
        await self.store.prefs.set_user_prefs(person.id, lang=lang)
        game_id = await self.store.games.game_of_player(person.id)
        if game_id:
            with contextlib.suppress(UserError):  # the game is gone: nothing to tell it
                await self._seat_speaks(game_id, person.id, lang)
        return Said(Notice.LANGUAGE_SAVED, lang)  # said in the language just chosen

    @retried
    async def _seat_speaks(self, game_id: str, user_id: int, lang: str) -> None:
        """The person's seat in a game speaks `lang` from its next step."""
        async with self.steps.game(game_id) as g:
            seat = g.record.seat(user_id)
            if seat is not None:
                seat.lang = lang
