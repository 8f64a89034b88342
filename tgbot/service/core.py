"""The game service's common ground: languages, compare-and-set transactions, the step.

Nothing here talks to Telegram: every message a step produces goes to the game's outbox
in the same transaction as the new state, and a sender delivers it.
"""

from __future__ import annotations

import contextlib
import json
import logging
import random
import re
import secrets
import string
import time
from collections.abc import Awaitable, Callable
from typing import Any

from ..config import Deadlines
from ..engine import SEED_BITS, Game, game_to_dict
from ..rendering import tabletop, ui
from ..rendering.i18n import LANGUAGES, Catalogs, Translator, pick_language
from ..storage.commit import Duplicate
from ..storage.games import GameTx, Seen
from ..storage.keys import chat_owner
from ..storage.store import Store
from ..storage.updates import Handling
from .history import History
from .outcomes import Notice, Refusal, Said
from .plan import Send
from .records import GAME_ID, OVER, GameRecord
from .results import Origin, Person, Reply, UserError
from .settings import ChatSettings, next_setting
from .step_messages import (
    StepMessages,
)

log = logging.getLogger(__name__)

ID_ALPHABET = string.ascii_lowercase + string.digits
DEADLINE_LEASE_MS = 30_000
JOIN_PAYLOAD = re.compile(rf"j{GAME_ID}")  # /start j<game id>, the lobby's deep link


class _Skip(Exception):
    """Abort a transaction without writing anything."""


# Whether the person is an admin of the given group: always asked about the game's own
# group, never about the chat a press or command came from.
AdminCheck = Callable[[int], Awaitable[bool]]


async def _never_admin(_: int) -> bool:
    return False


def reply_op(origin: Origin, reply: Reply) -> dict[str, Any]:
    """The outbox entry of a reply to an update, in the chat (and topic) it came from."""
    return Send(
        origin.chat_id, reply.text, reply.keyboard, thread=origin.thread_id, direct=True
    ).to_op()


class ServiceCore:
    """Every game operation, as compare-and-set transactions on Redis."""

    def __init__(
        self,
        store: Store,
        catalogs: Catalogs,
        defaults: Deadlines,
        bot_username: str,
        clock: Callable[[], float] = time.time,
        new_seed: Callable[[], int] = lambda: secrets.randbits(SEED_BITS),
    ) -> None:
        self.store = store
        self.catalogs = catalogs
        self.defaults = defaults
        self.bot_username = bot_username
        self.clock = clock
        self.new_seed = new_seed
        self.messages = StepMessages(catalogs, bot_username)
        # Kept records, ratings, stats, the claim tracker and replays (service/history.py).
        self.history = History(store, catalogs, self._committed, clock)
        self.on_commit: Callable[[str], Awaitable[None]] | None = None
        self.ai_pause_ms = (1500, 3500)  # an AI player thinks this long, like a person

    def now_ms(self) -> int:
        """The clock in epoch milliseconds."""
        return int(self.clock() * 1000)

    # ---- languages -----------------------------------------------------------------

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

    async def change_setting(self, chat_id: int, key: str, update_id: int) -> ChatSettings:
        """Switch one of a group's settings (`key`, one of `settings.SETTINGS`) to its next
        value; the group's settings as they are then. Read and written in one
        compare-and-set with the update's mark: two presses at once both count, and a
        second delivery of one press raises Duplicate."""

        def change(stored: dict[str, str]) -> dict[str, str]:
            current = ChatSettings.from_stored(stored, self.defaults).stored_value(key)
            return {key: next_setting(key, current)}

        written = await self.store.prefs.change_chat_settings(chat_id, update_id, change)
        if written is None:
            raise Duplicate
        return ChatSettings.from_stored(written, self.defaults)

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

            def build(record: GameRecord, _: Seen, __: GameTx) -> None:
                seat = record.seat(person.id)
                if seat is not None:
                    seat.lang = lang

            with contextlib.suppress(UserError):
                await self._mutate(game_id, build)
        return Said(Notice.LANGUAGE_SAVED, lang)  # said in the language just chosen

    # ---- transactions --------------------------------------------------------------

    async def _mutate(
        self,
        game_id: str,
        change: Callable[[GameRecord, Seen, GameTx], None],
        players: tuple[int, ...] = (),
        update: Handling | None = None,
        reply: tuple[Origin, Reply] | None = None,
        lang: str | None = None,
    ) -> GameRecord:
        """Load the game, let `change` alter it and queue writes, save compare-and-set.

        `players`' indexes are read with the record (`change` sees which game each names);
        `reply` goes to the outbox of the chat the update came from, in the same transaction;
        `lang` is the language of whoever asked (a game gone by now is refused in it).
        """
        result: list[GameRecord] = []

        def build(seen: Seen, tx: GameTx) -> None:
            if seen.record is None:
                raise _Skip
            record = GameRecord.from_dict(json.loads(seen.record))
            change(record, seen, tx)
            if reply is not None:  # in the game's outbox: its slot, its transaction
                tx.send(game_id, reply_op(*reply))
            tx.save(record)
            result[:] = [record]

        try:
            await self.store.games.transact(game_id, build, update, players=players)
        except _Skip:
            raise UserError(Refusal.GAME_OVER, lang) from None
        await self._committed(game_id)
        return result[0]

    async def _committed(self, owner: str) -> None:
        if self.on_commit is not None:
            await self.on_commit(owner)

    async def reply(self, origin: Origin, reply: Reply) -> None:
        """Queue the reply to an update that changed nothing else, marking it applied.

        The reply is not sent from the handler: it waits in the chat's outbox, written in
        the same transaction as the update's mark, so two processes handed the same update
        queue it once, and a crash before it is sent leaves it queued for the sweeper.
        Raises Duplicate if the update was applied before.
        """
        owner = chat_owner(origin.chat_id)
        await self.store.commits.queue(owner, [reply_op(origin, reply)], origin.update)
        await self._committed(owner)

    def _apply_step(self, record: GameRecord, game: Game, events: list[Any], tx: GameTx) -> None:
        """Store the engine state and queue the step's messages, deadline, stats, clean-up."""
        now = self.now_ms()
        self.history.tally_claims(record, events)  # before the plan: the table shows the tally
        bluffs = self.history.bluffs_revealed(record, game, now) if game.over else None
        plan = self.messages.build(record, game, events, now, bluffs)
        tx.send_all([op.to_op() for op in plan.ops])
        record.engine = game_to_dict(game)
        if game.over:
            self._finish(record, tx, OVER)
            self.history.game_over(record, game, tx, now)  # kept and counted in this commit
            log.info("game %s ended in chat %s: winner %s", record.id, record.chat_id, game.winner)
            return
        record.ai_due_ms = None
        if set(game.awaiting().players) & record.ai_ids():
            low, high = self.ai_pause_ms
            pause = random.Random(f"{record.seed}:{game.version}").randint(low, high)
            record.ai_due_ms = now + pause
        due = [d for d in (record.deadline_ms, record.ai_due_ms) if d is not None]
        if due:
            tx.arm_deadline(min(due))

    def _lobby_screen(self, record: GameRecord) -> ui.Screen:
        t = self.catalogs.get(record.lang)
        creator = next((s.name for s in record.players if s.id == record.creator), "")
        left = max(0, ((record.deadline_ms or 0) - self.now_ms()) // 1000)
        names = [s.name for s in record.players]
        return tabletop.lobby_screen(t, record.id, creator, names, left, record.game_variant())

    def _finish(self, record: GameRecord, tx: GameTx, status: str) -> None:
        record.status = status
        record.deadline_ms = None
        record.prompts = {}
        tx.close(record.chat_id, [s.id for s in record.players])


class NeedsStart(Exception):
    """The person must open the bot privately before joining."""


def _joined(lead: str, text: str) -> str:
    return f"{lead}\n\n{text}" if lead else text
