"""The game service: load a game from Redis, apply the engine, save compare-and-set.

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

from ..ai import choose
from ..config import Deadlines
from ..engine import Game, IllegalDecision, Reason, game_to_dict, view_of
from ..rendering import buttons, ui
from ..rendering.i18n import LANGUAGES, N_, Catalogs, Translator, pick_language
from ..storage.keys import chat_owner
from ..storage.store import Duplicate, Store, Writes, applied
from . import archive  # issue 19: the decisions of each game, for its record
from .history import History
from .records import CANCELLED, LOBBY, OVER, PLAYING, GameRecord, Seat, Timing
from .results import CallbackResult, Origin, Person, Reply, UserError
from .step_messages import StepMessages, group_send

log = logging.getLogger(__name__)

LOBBY_REF = "lobby"
MAX_PLAYERS = 6
MIN_PLAYERS = 2
ID_ALPHABET = string.ascii_lowercase + string.digits
RECORD_TTL_S = 7 * 24 * 3600  # an untouched game is dropped after a week
FINISHED_TTL_S = 24 * 3600
DEADLINE_LEASE_MS = 30_000
AI_NAMES = [N_("Nino"), N_("Levan"), N_("Tamar"), N_("Giorgi"), N_("Mariam")]
JOIN_PAYLOAD = re.compile(r"j[a-z0-9]{6,16}")  # /start j<game id>, the lobby's deep link


class _Skip(Exception):
    """Abort a transaction without writing anything."""


__all__ = ["Duplicate", "GameService"]


# Whether the person is an admin of the given group: always asked about the game's own
# group, never about the chat a press or command came from.
AdminCheck = Callable[[int], Awaitable[bool]]


async def _never_admin(_: int) -> bool:
    return False


def reply_op(origin: Origin, reply: Reply) -> dict[str, Any]:
    """The outbox entry of a reply to an update, in the chat (and topic) it came from."""
    return {
        "op": "send",
        "chat": origin.chat_id,
        "thread": origin.thread_id,
        "text": reply.text,
        "kb": reply.keyboard,
        "ref": None,
        "direct": True,
    }


class GameService:
    """Every game operation, as compare-and-set transactions on Redis."""

    def __init__(
        self,
        store: Store,
        catalogs: Catalogs,
        defaults: Deadlines,
        bot_username: str,
        clock: Callable[[], float] = time.time,
        new_seed: Callable[[], int] = lambda: secrets.randbits(64),
    ) -> None:
        self.store = store
        self.keys = store.keys
        self.catalogs = catalogs
        self.defaults = defaults
        self.bot_username = bot_username
        self.clock = clock
        self.new_seed = new_seed
        self.messages = StepMessages(catalogs, bot_username)
        # Issue 19: records, ratings, stats, claim tracker, replays (service/history.py).
        self.history = History(store, catalogs, self._committed, clock)
        self.on_commit: Callable[[str], Awaitable[None]] | None = None
        self.ai_pause_ms = (1500, 3500)  # an AI player thinks this long, like a person

    def now_ms(self) -> int:
        """The clock in epoch milliseconds."""
        return int(self.clock() * 1000)

    # ---- languages -----------------------------------------------------------------

    async def person_language(self, person: Person) -> str:
        """A person's language: their /language choice, else Telegram's if ka/en, else ka."""
        prefs = await self.store.user_prefs(person.id)
        return pick_language(prefs.get("lang"), person.language_code)

    async def translator_for(self, person: Person) -> Translator:
        """The translator for a person's private chat."""
        return self.catalogs.get(await self.person_language(person))

    async def group_language(self, chat_id: int) -> str:
        """A group's language (Georgian until its admins choose)."""
        lang = (await self.store.chat_settings(chat_id)).get("lang")
        return lang if lang in LANGUAGES else "ka"

    async def group_translator(self, chat_id: int) -> Translator:
        """The translator for a group."""
        return self.catalogs.get(await self.group_language(chat_id))

    async def set_language(self, person: Person, lang: str) -> str:
        """Store a person's language; the games they are in speak it from the next step."""
        if lang not in LANGUAGES:
            raise UserError((await self.translator_for(person)).gettext("Unknown language."))
        await self.store.set_user_prefs(person.id, lang=lang)
        game_id = await self.store.get(self.keys.user_game(person.id))
        if game_id:

            def build(record: GameRecord, _: dict[str, str | None], __: Writes) -> None:
                seat = record.seat(person.id)
                if seat is not None:
                    seat.lang = lang

            with contextlib.suppress(UserError):
                await self._mutate(game_id, build)
        return self.catalogs.get(lang).gettext("🌐 Language saved.")

    # ---- transactions --------------------------------------------------------------

    async def _mutate(
        self,
        game_id: str,
        change: Callable[[GameRecord, dict[str, str | None], Writes], None],
        extra_watch: tuple[str, ...] = (),
        update_id: int | None = None,
        reply: tuple[Origin, Reply] | None = None,
    ) -> GameRecord:
        """Load the game, let `change` alter it and queue writes, save compare-and-set.

        `reply` goes to the outbox of the chat the update came from, in the same transaction.
        """
        key = self.keys.game(game_id)
        result: list[GameRecord] = []
        watch = [key, *extra_watch]

        def build(seen: dict[str, str | None]) -> Writes:
            raw = seen[key]
            if raw is None:
                raise _Skip
            record = GameRecord.from_dict(json.loads(raw))
            writes = Writes(mark_update=update_id)
            change(record, seen, writes)
            if reply is not None:  # in the game's outbox: its slot, its transaction
                writes.send(game_id, reply_op(*reply))
            record.rev += 1
            writes.set_json[key] = record.to_dict()
            if record.status in (OVER, CANCELLED):
                writes.expire[key] = FINISHED_TTL_S
            else:
                writes.expire[key] = RECORD_TTL_S
            result[:] = [record]
            return writes

        try:
            await self.store.atomic(watch, build, update_id)
        except _Skip:
            raise UserError(self.catalogs.get(None).gettext("This game is over.")) from None
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

        def build(_: dict[str, str | None]) -> Writes:
            writes = Writes(mark_update=origin.update_id)
            writes.send(owner, reply_op(origin, reply))
            return writes

        await self.store.atomic([], build, origin.update_id, scope=self.keys.outbox(owner))
        await self._committed(owner)

    def _apply_step(
        self, record: GameRecord, game: Game, events: list[Any], writes: Writes
    ) -> None:
        """Store the engine state and queue the step's messages, deadline, stats, clean-up."""
        now = self.now_ms()
        self.history.tally_claims(record, events)  # issue 19 hook: the public claim tracker
        output = self.messages.build(record, game, events, now)
        for op in output.ops:
            writes.send(record.id, op)
        record.engine = game_to_dict(game)
        if game.over:
            self._finish(record, writes, OVER)
            self.history.game_over(record, game, writes, now)  # issue 19 hook: record, bluffs
            log.info("game %s ended in chat %s: winner %s", record.id, record.chat_id, game.winner)
            return
        record.ai_due_ms = None
        if set(game.awaiting().players) & record.ai_ids():
            low, high = self.ai_pause_ms
            pause = random.Random(f"{record.seed}:{game.version}").randint(low, high)
            record.ai_due_ms = now + pause
        due = [d for d in (record.deadline_ms, record.ai_due_ms) if d is not None]
        if due:
            writes.deadline_set[record.id] = min(due)

    def _finish(self, record: GameRecord, writes: Writes, status: str) -> None:
        record.status = status
        record.deadline_ms = None
        record.prompts = {}
        writes.deadline_clear.append(record.id)
        writes.delete.append(self.keys.chat_game(record.chat_id))
        writes.delete.extend(self.keys.user_game(s.id) for s in record.players)
        writes.expire[self.keys.messages(record.id)] = FINISHED_TTL_S

    # ---- the lobby -----------------------------------------------------------------

    async def _timing(self, chat_id: int) -> Timing:
        settings = await self.store.chat_settings(chat_id)
        d = self.defaults

        def pick(name: str, default: int) -> int:
            try:
                return int(settings.get(name, default))
            except ValueError:
                return default

        return Timing(
            turn=pick("turn", d.turn),
            response=pick("response", d.response),
            lose_card=pick("lose_card", d.lose_card),
            exchange=pick("exchange", d.exchange),
            lobby=pick("lobby", d.lobby),
            afk_limit=pick("afk_limit", d.afk_limit),
        )

    def _lobby_screen(self, record: GameRecord) -> ui.Screen:
        t = self.catalogs.get(record.lang)
        creator = next((s.name for s in record.players if s.id == record.creator), "")
        left = max(0, ((record.deadline_ms or 0) - self.now_ms()) // 1000)
        return ui.lobby_screen(t, record.id, creator, [s.name for s in record.players], left)

    def _lobby_edit(self, record: GameRecord) -> dict[str, Any]:
        screen = self._lobby_screen(record)
        return {
            "op": "edit",
            "chat": record.chat_id,
            "ref": LOBBY_REF,
            "text": screen.text,
            "kb": screen.keyboard,
        }

    async def new_game(
        self, chat_id: int, thread_id: int | None, person: Person, update_id: int | None = None
    ) -> Reply | None:
        """Open a lobby in a group; the creator joins it if the bot may write to them."""
        t = await self.group_translator(chat_id)
        existing = await self.store.get(self.keys.chat_game(chat_id))
        if existing:
            raise UserError(t.gettext("A game is already open in this group: /board"))
        lang = await self.group_language(chat_id)
        timing = await self._timing(chat_id)
        prefs = await self.store.user_prefs(person.id)
        game_id = "".join(secrets.choice(ID_ALPHABET) for _ in range(10))
        now = self.now_ms()
        record = GameRecord(
            id=game_id,
            chat_id=chat_id,
            thread_id=thread_id,
            lang=lang,
            creator=person.id,
            timing=timing,
            deadline_ms=now + timing.lobby * 1000,
            created_ms=now,
        )
        chat_key, user_key = self.keys.chat_game(chat_id), self.keys.user_game(person.id)
        # The new record's key first: its slot is the transaction's; the indexes are claimed.
        watch = [self.keys.game(game_id), chat_key, user_key]

        def build(seen: dict[str, str | None]) -> Writes:
            if seen[chat_key]:
                raise UserError(t.gettext("A game is already open in this group: /board"))
            writes = Writes(mark_update=update_id)
            if prefs.get("dm") == "1" and not seen[user_key]:
                record.players.append(
                    Seat(
                        person.id,
                        person.name,
                        pick_language(prefs.get("lang"), person.language_code),
                    )
                )
                writes.set_str[user_key] = game_id
                writes.expire[user_key] = RECORD_TTL_S
            writes.set_str[chat_key] = game_id
            writes.expire[chat_key] = RECORD_TTL_S
            screen = self._lobby_screen(record)
            writes.send(game_id, group_send(record, screen.text, LOBBY_REF, screen.keyboard))
            writes.set_json[self.keys.game(game_id)] = record.to_dict()
            writes.expire[self.keys.game(game_id)] = RECORD_TTL_S
            writes.deadline_set[game_id] = record.deadline_ms or now
            return writes

        await self.store.atomic(watch, build, update_id)
        log.info("lobby %s opened in chat %s by %s", game_id, chat_id, person.id)
        await self._committed(game_id)
        return None

    async def join(
        self,
        game_id: str,
        person: Person,
        update_id: int | None = None,
        reply_to: Origin | None = None,
        lead: str = "",
    ) -> str:
        """Add a person to a lobby; return the confirmation to show them.

        With `reply_to`, the confirmation (after `lead`) is also queued as the reply there.
        """
        prefs = await self.store.user_prefs(person.id)
        t = self.catalogs.get(pick_language(prefs.get("lang"), person.language_code))
        if prefs.get("dm") != "1":
            raise NeedsStart(game_id)
        user_key = self.keys.user_game(person.id)

        def change(record: GameRecord, seen: dict[str, str | None], writes: Writes) -> None:
            if record.status != LOBBY:
                raise UserError(t.gettext("This game has already started."))
            if record.seat(person.id):
                raise UserError(t.gettext("You are already in this game."))
            if seen[user_key] and seen[user_key] != record.id:
                raise UserError(t.gettext("You are already playing in another game."))
            if len(record.players) >= MAX_PLAYERS:
                raise UserError(t.gettext("The game is full (6 players)."))
            lang = pick_language(prefs.get("lang"), person.language_code)
            record.players.append(Seat(person.id, person.name, lang))
            writes.set_str[user_key] = record.id
            writes.expire[user_key] = RECORD_TTL_S
            writes.send(record.id, self._lobby_edit(record))

        text = t.gettext("✋ You joined the game.")
        reply = None if reply_to is None else (reply_to, Reply(_joined(lead, text)))
        await self._mutate(game_id, change, (user_key,), update_id, reply)
        return text

    async def leave_lobby_or_game(
        self,
        game_id: str,
        person: Person,
        update_id: int | None = None,
        reply_to: Origin | None = None,
    ) -> str:
        """Leave a lobby, or a running game (all your cards turn face up).

        With `reply_to`, the confirmation is also queued as the reply there.
        """
        t = await self.translator_for(person)

        def change(record: GameRecord, _: dict[str, str | None], writes: Writes) -> None:
            seat = record.seat(person.id)
            if seat is None:
                raise UserError(t.gettext("You are not in this game."))
            if record.status == LOBBY:
                record.players.remove(seat)
                writes.delete.append(self.keys.user_game(person.id))
                writes.send(record.id, self._lobby_edit(record))
                return
            if record.status != PLAYING:
                raise UserError(t.gettext("This game is over."))
            game = record.game()
            try:
                events = game.leave(person.id)
            except IllegalDecision:
                raise UserError(t.gettext("You are already out of this game.")) from None
            archive.note_move(record, self.now_ms(), person.id, archive.LEAVE)  # issue 19 hook
            writes.delete.append(self.keys.user_game(person.id))
            self._apply_step(record, game, events, writes)

        text = t.gettext("🚪 You left the game.")
        reply = None if reply_to is None else (reply_to, Reply(text))
        await self._mutate(game_id, change, (), update_id, reply)
        return text

    async def start_game(
        self, game_id: str, person: Person | None, update_id: int | None = None
    ) -> None:
        """Start a lobby now (a player's request, or its timer with `person` None)."""
        t = self.catalogs.get(None) if person is None else await self.translator_for(person)

        def change(record: GameRecord, _: dict[str, str | None], writes: Writes) -> None:
            if record.status != LOBBY:
                raise UserError(t.gettext("This game has already started."))
            if person is not None and record.seat(person.id) is None:
                raise UserError(t.gettext("Only players in the lobby can start it."))
            if len(record.players) < MIN_PLAYERS:
                raise UserError(t.gettext("At least 2 players are needed."))
            if not record.humans():
                raise UserError(t.gettext("A game needs at least one person."))
            self._start(record, writes)

        await self._mutate(game_id, change, (), update_id)

    async def change_ai(
        self, game_id: str, person: Person, add: bool, update_id: int | None = None
    ) -> str:
        """The lobby's creator adds or removes an AI player."""
        t = await self.translator_for(person)

        def change(record: GameRecord, _: dict[str, str | None], writes: Writes) -> None:
            if record.status != LOBBY:
                raise UserError(t.gettext("This game has already started."))
            if person.id != record.creator:
                raise UserError(t.gettext("Only the game's creator can add or remove AI players."))
            ais = [s for s in record.players if s.ai]
            if add:
                if len(record.players) >= MAX_PLAYERS:
                    raise UserError(t.gettext("The game is full (6 players)."))
                taken = {s.id for s in ais}
                seat_id = next(i for i in range(-1, -MAX_PLAYERS - 1, -1) if i not in taken)
                group_t = self.catalogs.get(record.lang)
                name = "🤖 " + group_t.gettext(AI_NAMES[(-seat_id - 1) % len(AI_NAMES)])
                record.players.append(Seat(seat_id, name, record.lang, ai=True))
            elif ais:
                record.players.remove(ais[-1])
            else:
                raise UserError(t.gettext("There is no AI player to remove."))
            writes.send(record.id, self._lobby_edit(record))

        await self._mutate(game_id, change, (), update_id)
        return t.gettext("🤖 Done.")

    def _start(self, record: GameRecord, writes: Writes) -> None:
        group_t = self.catalogs.get(record.lang)
        record.seed = self.new_seed()
        game, events = Game.new(
            [s.id for s in record.players], record.seed, afk_limit=record.timing.afk_limit
        )
        record.status = PLAYING
        writes.send(
            record.id,
            {
                "op": "edit",
                "chat": record.chat_id,
                "ref": LOBBY_REF,
                "text": ui.lobby_closed_text(group_t, "started", [s.name for s in record.players]),
                "kb": None,
            },
        )
        self._apply_step(record, game, events, writes)
        log.info(
            "game %s started in chat %s with %d players",
            record.id,
            record.chat_id,
            len(record.players),
        )

    async def cancel(
        self,
        game_id: str,
        person: Person,
        is_admin: AdminCheck = _never_admin,
        update_id: int | None = None,
    ) -> None:
        """Cancel a game (its creator or an admin of the game's group)."""
        t = await self.translator_for(person)
        raw = await self.store.get_json(self.keys.game(game_id))
        creator = raw is not None and raw.get("creator") == person.id
        if raw is not None and not creator and not await is_admin(int(raw["chat_id"])):
            raise UserError(t.gettext("Only the game's creator or an admin can cancel it."))

        def change(record: GameRecord, _: dict[str, str | None], writes: Writes) -> None:
            if record.status not in (LOBBY, PLAYING):
                raise UserError(t.gettext("This game is over."))
            self._cancel(record, writes)

        await self._mutate(game_id, change, (), update_id)

    def _cancel(self, record: GameRecord, writes: Writes, reason: str = "cancelled") -> None:
        group_t = self.catalogs.get(record.lang)
        text = ui.lobby_closed_text(group_t, reason, [s.name for s in record.players])
        if record.status == LOBBY:
            writes.send(
                record.id,
                {"op": "edit", "chat": record.chat_id, "ref": LOBBY_REF, "text": text, "kb": None},
            )
        else:
            writes.send(record.id, group_send(record, text))
            for user_id in list(record.prompts):
                writes.send(
                    record.id,
                    {
                        "op": "edit",
                        "chat": user_id,
                        "ref": f"prompt:{user_id}",
                        "text": text,
                        "kb": None,
                    },
                )
        self._finish(record, writes, CANCELLED)
        log.info("game %s in chat %s closed: %s", record.id, record.chat_id, reason)

    async def chat_closed(self, chat_id: int) -> None:
        """The bot was removed from a group: cancel its game quietly."""
        game_id = await self.store.get(self.keys.chat_game(chat_id))
        if not game_id:
            return

        def change(record: GameRecord, _: dict[str, str | None], writes: Writes) -> None:
            if record.status in (LOBBY, PLAYING):
                self._finish(record, writes, CANCELLED)

        with contextlib.suppress(UserError):
            await self._mutate(game_id, change)

    async def chat_migrated(self, old_chat_id: int, new_chat_id: int) -> None:
        """A group became a supergroup: its game follows it."""
        game_id = await self.store.get(self.keys.chat_game(old_chat_id))
        if game_id:

            def change(record: GameRecord, _: dict[str, str | None], writes: Writes) -> None:
                record.chat_id = new_chat_id
                writes.delete.append(self.keys.chat_game(old_chat_id))
                writes.set_str[self.keys.chat_game(new_chat_id)] = record.id

            with contextlib.suppress(UserError):
                await self._mutate(game_id, change)
        settings = await self.store.chat_settings(old_chat_id)
        if settings:
            await self.store.set_chat_settings(new_chat_id, **settings)

    def join_link(self, game_id: str) -> str:
        """The deep link that opens the bot privately and joins the lobby at Start."""
        return f"https://t.me/{self.bot_username}?start=j{game_id}"

    # ---- playing -------------------------------------------------------------------

    async def press(
        self,
        person: Person,
        data: str,
        update_id: int | None = None,
        is_admin: AdminCheck = _never_admin,
        chat_id: int | None = None,
    ) -> CallbackResult:
        """A button was pressed in `chat_id`: check it is current and theirs, then apply it.

        A button counts only on the kind of message it was made for: lobby buttons on the
        game's group, prompt buttons in the presser's own private chat.
        """
        t = await self.translator_for(person)
        invalid = CallbackResult(t.gettext("This button is not valid."), alert=True)
        try:
            pressed = buttons.unpack(data)
        except buttons.BadButton:
            return invalid
        raw = await self.store.get_json(self.keys.game(pressed.game_id))
        if raw is None:
            return CallbackResult(t.gettext("This game is over."))
        if applied(raw, update_id):
            raise Duplicate
        record = GameRecord.from_dict(raw)
        if pressed.code in buttons.LOBBY_CODES:
            if chat_id != record.chat_id:
                return invalid
            return await self._lobby_press(person, pressed, t, update_id, is_admin)
        if chat_id != person.id:
            return invalid
        if record.status != PLAYING:
            return CallbackResult(t.gettext("This game is over."))
        if record.seat(person.id) is None:
            return CallbackResult(t.gettext("You are not in this game."), alert=True)
        if record.prompts.get(person.id) != pressed.context:
            return CallbackResult(t.gettext("This button is out of date."))
        game = record.game()
        names = record.names()
        picker = buttons.picker_action(pressed.code)
        if picker is not None or pressed.code == buttons.BACK:
            if game.awaiting().players != (person.id,):
                return CallbackResult(t.gettext("This button is out of date."))
            asking = ui.Asking(t, game, record.id, record.context, person.id, names)
            if picker is not None:
                return CallbackResult(edit=ui.target_screen(asking, picker))
            return CallbackResult(edit=ui.turn_screen(asking))
        try:
            decision = buttons.decode_decision(pressed.code, [p.id for p in game.players])
        except buttons.BadButton:
            return CallbackResult(t.gettext("This button is not valid."), alert=True)
        return await self._decide(pressed.game_id, pressed.context, person, decision, t, update_id)

    async def _decide(
        self,
        game_id: str,
        context: int,
        person: Person,
        decision: Any,
        t: Translator,
        update_id: int | None,
    ) -> CallbackResult:
        def change(record: GameRecord, _: dict[str, str | None], writes: Writes) -> None:
            if record.status != PLAYING or record.prompts.get(person.id) != context:
                raise UserError(t.gettext("This button is out of date."))
            game = record.game()
            try:
                events = game.apply(person.id, decision)
            except IllegalDecision as err:
                raise UserError(refusal_text(t, err.reason)) from None
            archive.note_move(record, self.now_ms(), person.id, decision)  # issue 19 hook
            self._apply_step(record, game, events, writes)

        try:
            await self._mutate(game_id, change, (), update_id)
        except UserError as err:
            return CallbackResult(err.text, alert=True)
        return CallbackResult(t.gettext("✔️ Done."))

    async def _lobby_press(
        self,
        person: Person,
        pressed: buttons.ButtonPress,
        t: Translator,
        update_id: int | None,
        is_admin: AdminCheck,
    ) -> CallbackResult:
        try:
            if pressed.code == buttons.LOBBY_JOIN:
                return CallbackResult(await self.join(pressed.game_id, person, update_id))
            if pressed.code == buttons.LOBBY_LEAVE:
                return CallbackResult(
                    await self.leave_lobby_or_game(pressed.game_id, person, update_id)
                )
            if pressed.code == buttons.LOBBY_START:
                await self.start_game(pressed.game_id, person, update_id)
                return CallbackResult(t.gettext("▶️ Starting."))
            if pressed.code in (buttons.LOBBY_ADD_AI, buttons.LOBBY_REMOVE_AI):
                add = pressed.code == buttons.LOBBY_ADD_AI
                return CallbackResult(await self.change_ai(pressed.game_id, person, add, update_id))
            await self.cancel(pressed.game_id, person, is_admin, update_id)
            return CallbackResult(t.gettext("✖️ Cancelled."))
        except NeedsStart:
            return CallbackResult(url=self.join_link(pressed.game_id))
        except UserError as err:
            return CallbackResult(err.text, alert=True)

    async def fire_deadline(self, game_id: str) -> None:
        """A deadline came due: start or close a lobby, or apply the timeout default."""
        if await self.history.settle_if_over(game_id):  # issue 19 hook: count a finished game
            return
        key = self.keys.game(game_id)
        now = self.now_ms()
        fired: list[bool] = []

        def build(seen: dict[str, str | None]) -> Writes:
            raw = seen[key]
            writes = Writes()
            if raw is None:
                writes.deadline_clear.append(game_id)
                return writes
            record = GameRecord.from_dict(json.loads(raw))
            if record.status not in (LOBBY, PLAYING) or record.deadline_ms is None:
                writes.deadline_clear.append(game_id)
                return writes
            due = min(d for d in (record.deadline_ms, record.ai_due_ms) if d is not None)
            if due > now:  # the game moved on since: re-arm its real deadline
                writes.deadline_set[game_id] = due
                return writes
            if record.status == LOBBY:
                if len(record.players) >= MIN_PLAYERS and record.humans():
                    self._start(record, writes)
                else:
                    self._cancel(record, writes, "empty")
            else:
                game = record.game()
                ai = [p for p in game.awaiting().players if p in record.ai_ids()]
                if ai and record.ai_due_ms is not None and record.ai_due_ms <= now:
                    rng = random.Random(f"{record.seed}:{game.version}:{ai[0]}")
                    decision = choose(view_of(game, ai[0]), rng)
                    events = game.apply(ai[0], decision)
                    archive.note_move(record, now, ai[0], decision)  # issue 19 hook
                else:
                    events = game.apply_timeout()
                    archive.note_move(record, now, None, None)  # issue 19 hook
                self._apply_step(record, game, events, writes)
            record.rev += 1
            writes.set_json[key] = record.to_dict()
            writes.expire[key] = (
                FINISHED_TTL_S if record.status in (OVER, CANCELLED) else RECORD_TTL_S
            )
            fired.append(True)
            return writes

        await self.store.atomic([key], build)
        if fired:
            await self._committed(game_id)

    async def prompt_delivered(self, game_id: str, context: int, seconds: int) -> None:
        """A decision's prompt reached Telegram: its deadline is at least `seconds` from now
        (compare-and-set: only while that decision is still the one awaited)."""
        key = self.keys.game(game_id)
        due_ms = self.now_ms() + 1000 * seconds

        def build(seen: dict[str, str | None]) -> Writes:
            writes = Writes()
            raw = seen[key]
            if raw is None:
                return writes
            record = GameRecord.from_dict(json.loads(raw))
            if (
                record.status != PLAYING
                or record.context != context
                or record.deadline_ms is None
                or record.deadline_ms >= due_ms
            ):
                return writes
            record.deadline_ms = due_ms  # not a step of the game: rev stays
            writes.set_json[key] = record.to_dict()
            writes.expire[key] = RECORD_TTL_S
            due = [d for d in (record.deadline_ms, record.ai_due_ms) if d is not None]
            writes.deadline_set[game_id] = min(due)
            return writes

        await self.store.atomic([key], build)

    async def claim_and_fire(self, limit: int = 20) -> int:
        """Fire every deadline that is due (claimed once across processes); return how many."""
        due = await self.store.claim_due(self.now_ms(), DEADLINE_LEASE_MS, limit)
        for game_id in due:
            try:
                await self.fire_deadline(game_id)
            except Exception:  # one broken game must not stop the others' deadlines
                log.exception("deadline of game %s failed; it will fire again", game_id)
        return len(due)

    # ---- reading -------------------------------------------------------------------

    async def game_of_chat(self, chat_id: int) -> GameRecord | None:
        """The open game of a group."""
        return await self._indexed_game(self.keys.chat_game(chat_id))

    async def game_of_person(self, user_id: int) -> GameRecord | None:
        """The game a person is in."""
        return await self._indexed_game(self.keys.user_game(user_id))

    async def _indexed_game(self, index_key: str) -> GameRecord | None:
        game_id = await self.store.get(index_key)
        if not game_id:
            return None
        raw = await self.store.get_json(self.keys.game(game_id))
        # An index entry is removed after the record's last step: one left behind (a crash
        # in between) names a game that is over, which reads as none.
        if raw is None or raw.get("status") not in (LOBBY, PLAYING):
            return None
        return GameRecord.from_dict(raw)

    async def board(self, chat_id: int) -> Reply:
        """The table of the group's game (or the lobby), posted again."""
        t = await self.group_translator(chat_id)
        record = await self.game_of_chat(chat_id)
        if record is None:
            return Reply(t.gettext("No game here. Start one with /newgame."))
        if record.status == LOBBY:
            screen = self._lobby_screen(record)
            return Reply(screen.text, screen.keyboard)
        game = record.game()
        names = record.names()
        left = None if record.deadline_ms is None else (record.deadline_ms - self.now_ms()) // 1000
        text = ui.board_text(t, game, names) + "\n\n" + ui.status_text(t, game, names, left)
        if claimed := self.history.claims_line(t, record):  # issue 19 hook: claim tracker
            text += "\n" + claimed
        return Reply(text)

    async def my_stats(self, person: Person) -> Reply:
        """A person's rating, games, wins, claims and bluffs (issue 19: service/history.py)."""
        return await self.history.stats(person, await self.translator_for(person))

    async def leaderboard(self, chat_id: int) -> Reply:
        """The group's players by rating (issue 19: service/history.py)."""
        return await self.history.top(chat_id, await self.group_translator(chat_id))

    async def private_started(
        self, person: Person, payload: str | None, origin: Origin | None = None
    ) -> None:
        """/start in private: the bot may now write to this person; join a lobby if asked.

        The welcome (and the join's outcome) is queued as the reply to `origin`, if given.
        """
        await self.store.set_user_prefs(person.id, dm="1", name=person.name)
        t = await self.translator_for(person)
        text = ui.start_text(t)
        if payload and JOIN_PAYLOAD.fullmatch(payload):
            update_id = None if origin is None else origin.update_id
            try:
                await self.join(payload[1:], person, update_id, origin, lead=text)
                return
            except UserError as err:
                text = _joined(text, err.text)
        if origin is not None:
            await self.reply(origin, Reply(text))

    async def person_unreachable(self, user_id: int) -> None:
        """Telegram refused a private message (403): remember it."""
        await self.store.set_user_prefs(user_id, dm="0")


class NeedsStart(Exception):
    """The person must open the bot privately before joining."""


def _joined(lead: str, text: str) -> str:
    return f"{lead}\n\n{text}" if lead else text


def refusal_text(t: Translator, reason: Reason) -> str:
    """Why the engine refused a decision, in words."""
    texts = {
        Reason.MUST_COUP: t.gettext("With 10 or more coins you must stage a Coup."),
        Reason.CANNOT_AFFORD: t.gettext("You do not have enough coins."),
        Reason.BAD_TARGET: t.gettext("You cannot target that player."),
        Reason.NOT_YOUR_DECISION: t.gettext("It is not your decision now."),
    }
    return texts.get(reason, t.gettext("That is not allowed now."))
