"""The lobby room: open, join, leave, start, cancel a game; Play again; group changes."""

from __future__ import annotations

import contextlib
import logging
import secrets
from collections.abc import Callable
from typing import Any

from ..contract.outcomes import Notice, Refusal, Said
from ..contract.plan import Edit, Send
from ..engine import MAX_PLAYERS, MIN_PLAYERS, Game, IllegalDecision
from ..rendering import guide, notices, replies, tabletop, ui
from ..rendering import history as history_texts
from ..rendering.i18n import pick_language
from ..storage.games import GameTx
from ..storage.plan import Writes
from ..storage.prefs import can_write
from ..storage.updates import Handling
from . import archive, fairness
from .core import (
    ID_ALPHABET,
    JOIN_PAYLOAD,
    AdminCheck,
    GameSteps,
    NeedsStart,
    never_admin,
    reply_op,
    retried,
)
from .preferences import Preferences
from .records import CANCELLED, LOBBY, OVER, PLAYING, GameRecord, Seat, Timing
from .results import Origin, Person, Reply, UserError
from .step_messages import (
    LOBBY_REF,
    TURN_REF,
    group_edit,
    group_send,
    prompt_ref,
)

log = logging.getLogger(__name__)


class LobbyRoom:
    """Games before they start, and games that close before their end."""

    def __init__(
        self,
        steps: GameSteps,
        prefs: Preferences,
        bot_username: str,
        new_seed: Callable[[], int],
    ) -> None:
        self.steps = steps
        self.prefs = prefs
        self.store = steps.store
        self.catalogs = steps.catalogs
        self.bot_username = bot_username
        self.new_seed = new_seed

    async def _timing(self, chat_id: int) -> Timing:
        return (await self.prefs.chat_settings(chat_id)).timing()

    def _lobby_edit(self, record: GameRecord) -> dict[str, Any]:
        screen = self.steps.lobby_screen(record)
        # Joins come in bursts: while the group is busy, the newest list replaces the others.
        edit = group_edit(record, LOBBY_REF, screen.text, screen.keyboard)
        hold = self.steps.messages.hold_ms
        return Edit(edit.chat, edit.ref, edit.text, edit.kb, hold, optional=True).to_op()

    async def _new_record(self, chat_id: int, thread_id: int | None, creator: int) -> GameRecord:
        """A new lobby's record, with the group's settings of now."""
        timing = await self._timing(chat_id)
        settings = await self.prefs.chat_settings(chat_id)
        now = self.steps.now_ms()
        return GameRecord(
            id="".join(secrets.choice(ID_ALPHABET) for _ in range(10)),
            chat_id=chat_id,
            thread_id=thread_id,
            lang=settings.language,
            creator=creator,
            timing=timing,
            deadline_ms=now + timing.lobby * 1000,
            created_ms=now,
            answers=settings.answers,
            variant=settings.variant.value,
        )

    async def play_again(self, old_id: str, person: Person, update: Handling | None = None) -> Said:
        """Play again: a new lobby in the same group with the finished game's players.

        Everyone who can still be written to and is not in another game is listed at once
        (AI players too); each may leave, and the lobby starts by itself after its wait, as
        any lobby. Whoever pressed opens it. The old message loses its button.
        """
        lang = await self.prefs.person_language(person)
        raw = await self.store.games.record(old_id, update)
        if raw is None:
            raise UserError(Refusal.GAME_OVER, lang)
        old = GameRecord.from_dict(raw)
        if old.status != OVER or old.turn_ref is None:
            raise UserError(Refusal.OUT_OF_DATE, lang)
        if old.seat(person.id) is None:
            raise UserError(Refusal.NOT_A_PLAYER_OF_FINISHED, lang)
        record = await self._new_record(old.chat_id, old.thread_id, person.id)
        prefs = {s.id: await self.store.prefs.user_prefs(s.id) for s in old.humans()}
        # Two transactions, each in one slot (a Redis Cluster has no other kind): first the
        # new lobby, which claims the group's index, so that of two presses one opens it;
        # then the finished game's message loses Play again. A crash in between leaves the
        # button, and a press then hears that a game is open in the group.
        humans = tuple(s.id for s in old.humans())
        await self._open_again(old, record, prefs, lang, update, humans)
        log.info(
            "lobby %s opened in chat %s to play again after %s", record.id, old.chat_id, old_id
        )
        with contextlib.suppress(UserError):  # the finished game is gone: nothing to close
            await self._close_old(old_id, person.name)
        return Said(Notice.NEW_GAME_OPENED, lang)

    @retried
    async def _open_again(
        self,
        old: GameRecord,
        record: GameRecord,
        prefs: dict[int, dict[str, str]],
        lang: str,
        update: Handling | None,
        humans: tuple[int, ...],
    ) -> None:
        """Play again's new lobby, seating everyone of the finished game who can still be
        written to and is in no other game (and its AI players); it claims the group."""
        watched = self.store.games.transaction(record.id, update, humans, (old.chat_id,))
        async with watched as (seen, tx):
            if seen.chat(old.chat_id):
                raise UserError(Refusal.GAME_OPEN_IN_GROUP, lang)
            record.players = []
            for seat in old.players:
                if seat.ai:
                    record.players.append(Seat(seat.id, seat.name, record.lang, ai=True))
                    continue
                mine = prefs[seat.id]
                if not can_write(mine) or seen.player(seat.id):
                    continue  # cannot get cards privately, or already in another game
                record.players.append(Seat(seat.id, mine.get("name") or seat.name, seat.lang))
                tx.claim_player(seat.id)
            tx.claim_chat(old.chat_id)
            screen = self.steps.lobby_screen(record)
            tx.send(record.id, group_send(record, screen.text, LOBBY_REF, screen.keyboard).to_op())
            record.save_in(tx, step=False)
            tx.arm_deadline(record.deadline_ms or record.created_ms)
        await self.steps.committed(record.id)

    @retried
    async def _close_old(self, old_id: str, opener: str) -> None:
        """The finished game's message keeps its story and its Replay, loses Play again."""
        async with self.steps.game(old_id) as g:
            finished = g.record
            if finished.turn_ref is None:
                return  # another press closed it already
            group_t = self.catalogs.get(finished.lang)
            again = notices.new_game_opened_by(group_t, opener)
            text = ui.then(self.steps.messages.final_message(finished), again)
            replay = history_texts.replay_button(group_t, old_id)
            replay += self.steps.messages.planner.app_row(group_t, old_id)
            g.tx.send(old_id, group_edit(finished, finished.turn_ref, text, replay).to_op())
            finished.turn_ref = None

    @retried
    async def new_game(
        self,
        chat_id: int,
        thread_id: int | None,
        person: Person,
        update: Handling | None = None,
        title: str = "",
    ) -> Reply | None:
        """Open a lobby in a group; the creator joins it if the bot may write to them."""
        lang = await self.prefs.group_language(chat_id)
        existing = await self.store.games.game_of_chat(chat_id)
        if existing:
            raise UserError(Refusal.GAME_OPEN_IN_GROUP, lang)
        prefs = await self.store.prefs.user_prefs(person.id)
        record = await self._new_record(chat_id, thread_id, person.id)
        record.creator_name = person.name
        game_id, now = record.id, record.created_ms
        reachable = can_write(prefs)
        opener_lang = pick_language(prefs.get("lang"), person.language_code)
        # The new record's key first: its slot is the transaction's; the indexes are claimed.
        watched = self.store.games.transaction(game_id, update, (person.id,), (chat_id,))
        async with watched as (seen, tx):
            if seen.chat(chat_id):
                raise UserError(Refusal.GAME_OPEN_IN_GROUP, lang)
            if reachable and not seen.player(person.id):
                record.players.append(Seat(person.id, person.name, opener_lang))
                tx.claim_player(person.id)
            tx.claim_chat(chat_id)
            screen = self.steps.lobby_screen(record)
            tx.send(game_id, group_send(record, screen.text, LOBBY_REF, screen.keyboard).to_op())
            if not reachable:  # as Join does: the deep link that seats them at Start
                t = self.catalogs.get(opener_lang)
                link = replies.open_the_bot_first(t, person.name, self.join_link(game_id))
                origin = Origin(update, chat_id, thread_id)
                tx.send(game_id, reply_op(origin, Reply(link.text, link.keyboard)))
            record.save_in(tx, step=False)
            tx.arm_deadline(record.deadline_ms or now)
        log.info("lobby %s opened in chat %s by %s", game_id, chat_id, person.id)
        await self.steps.committed(game_id)
        await self._tell_the_notify_list(record, person, title)
        return None

    async def toggle_notify(self, chat_id: int, person: Person, reachable_link: str) -> Reply:
        """/notify in a group: the person is told privately when a game opens there (or no
        longer); one who never started the bot is shown where to (they are told only then)."""
        on = await self.store.prefs.toggle_notify(chat_id, person.id, person.language_code or "")
        prefs = await self.store.prefs.user_prefs(person.id)
        t = self.catalogs.get(pick_language(prefs.get("lang"), person.language_code))
        screen = notices.notify_toggled(t, person.name, on, can_write(prefs), reachable_link)
        return Reply(screen.text, screen.keyboard or None)

    async def _tell_the_notify_list(self, record: GameRecord, opener: Person, title: str) -> None:
        """Tell privately those on the group's /notify list that a game opened there: only
        people who started the bot, never the opener, each at most once per group in
        NOTIFY_COOLDOWN_S (storage/prefs.py), so a busy group floods nobody."""
        listed = await self.store.prefs.notify_list(record.chat_id)
        reachable = []
        for user_id, code in listed.items():
            prefs = await self.store.prefs.user_prefs(user_id)
            if user_id != opener.id and can_write(prefs):
                reachable.append((user_id, pick_language(prefs.get("lang"), code or None)))
        told = set(await self.store.prefs.claim_notices(record.chat_id, [u for u, _ in reachable]))
        writes = Writes()
        for user_id, lang in reachable:
            if user_id in told:
                t = self.catalogs.get(lang)
                text = notices.game_opened_notice(t, opener.name, title)
                writes.send(record.id, Send(user_id, text).to_op())
        if writes.outbox:
            await self.store.commits.commit(writes)
            await self.steps.committed(record.id)

    @retried
    async def join(
        self,
        game_id: str,
        person: Person,
        update: Handling | None = None,
        reply_to: Origin | None = None,
        lead: str = "",
    ) -> Said:
        """Add a person to a lobby; return the confirmation to show them.

        With `reply_to`, the confirmation (after `lead`) is also queued as the reply there.
        """
        prefs = await self.store.prefs.user_prefs(person.id)
        lang = pick_language(prefs.get("lang"), person.language_code)
        if not can_write(prefs):
            raise NeedsStart(game_id)

        joined = Said(Notice.JOINED, lang)
        async with self.steps.game(game_id, update, lang, players=(person.id,)) as g:
            record = g.record
            if record.status != LOBBY:
                raise UserError(Refusal.ALREADY_STARTED, lang)
            if record.seat(person.id):
                raise UserError(Refusal.ALREADY_IN_GAME, lang)
            elsewhere = g.seen.player(person.id)
            if elsewhere and elsewhere != record.id:
                raise UserError(Refusal.IN_ANOTHER_GAME, lang)
            if len(record.players) >= MAX_PLAYERS:
                raise UserError(Refusal.GAME_FULL, lang)
            record.players.append(Seat(person.id, person.name, lang))
            g.tx.claim_player(person.id)
            g.tx.send(record.id, self._lobby_edit(record))
            if reply_to is not None:  # in the game's outbox: its slot, its transaction
                text = notices.say(self.catalogs.get(lang), joined)
                g.tx.send(record.id, reply_op(reply_to, Reply(ui.then(lead, text))))
        return joined

    @retried
    async def leave_lobby_or_game(
        self,
        game_id: str,
        person: Person,
        update: Handling | None = None,
        reply_to: Origin | None = None,
    ) -> Said:
        """Leave a lobby, or a running game (all your cards turn face up).

        With `reply_to`, the confirmation is also queued as the reply there.
        """
        lang = await self.prefs.person_language(person)

        left = Said(Notice.LEFT, lang)
        async with self.steps.game(game_id, update, lang) as g:
            record, tx = g.record, g.tx
            seat = record.seat(person.id)
            if seat is None:
                raise UserError(Refusal.NOT_IN_GAME, lang)
            if record.status == LOBBY:
                record.players.remove(seat)
                tx.release_player(person.id)
                tx.send(record.id, self._lobby_edit(record))
            elif record.status != PLAYING:
                raise UserError(Refusal.GAME_OVER, lang)
            else:
                game = record.game()
                try:
                    events = game.leave(person.id)
                except IllegalDecision:
                    raise UserError(Refusal.ALREADY_OUT, lang) from None
                archive.note_move(record, self.steps.now_ms(), person.id, archive.LEAVE)
                tx.release_player(person.id)
                self.steps.apply_step(record, game, events, tx)
            if reply_to is not None:
                text = notices.say(self.catalogs.get(lang), left)
                tx.send(record.id, reply_op(reply_to, Reply(text)))
        return left

    @retried
    async def start_game(
        self, game_id: str, person: Person | None, update: Handling | None = None
    ) -> None:
        """Start a lobby now (a player's request, or its timer with `person` None)."""
        lang = None if person is None else await self.prefs.person_language(person)

        async with self.steps.game(game_id, update, lang) as g:
            record = g.record
            if record.status != LOBBY:
                raise UserError(Refusal.ALREADY_STARTED, lang)
            if person is not None and record.seat(person.id) is None:
                raise UserError(Refusal.NOT_IN_LOBBY, lang)
            if len(record.players) < MIN_PLAYERS:
                raise UserError(Refusal.TOO_FEW_PLAYERS, lang)
            if not record.humans():
                raise UserError(Refusal.NO_HUMAN, lang)
            self.begin(record, g.tx)

    @retried
    async def change_ai(
        self, game_id: str, person: Person, add: bool, update: Handling | None = None
    ) -> Said:
        """The lobby's creator adds or removes an AI player."""
        lang = await self.prefs.person_language(person)

        async with self.steps.game(game_id, update, lang) as g:
            record = g.record
            if record.status != LOBBY:
                raise UserError(Refusal.ALREADY_STARTED, lang)
            if person.id != record.creator:
                raise UserError(Refusal.NOT_CREATOR, lang)
            ais = [s for s in record.players if s.ai]
            if add:
                if len(record.players) >= MAX_PLAYERS:
                    raise UserError(Refusal.GAME_FULL, lang)
                taken = {s.id for s in ais}
                seat_id = next(i for i in range(-1, -MAX_PLAYERS - 1, -1) if i not in taken)
                name = notices.ai_name(self.catalogs.get(record.lang), seat_id)
                record.players.append(Seat(seat_id, name, record.lang, ai=True))
            elif ais:
                record.players.remove(ais[-1])
            else:
                raise UserError(Refusal.NO_AI_TO_REMOVE, lang)
            g.tx.send(record.id, self._lobby_edit(record))
        return Said(Notice.AI_CHANGED, lang)

    def begin(self, record: GameRecord, tx: GameTx) -> None:
        """Deal the lobby's players in: the game's first step, in `tx`."""
        record.seed = self.new_seed()
        game, events = Game.new(
            [s.id for s in record.players],
            record.seed,
            afk_limit=record.timing.afk_limit,
            variant=record.game_variant(),
        )
        # The commitment the group sees now; the seed itself only at the end.
        record.commitment = fairness.commitment(record.id, record.seed)
        record.deal = fairness.deal_of(events)
        record.status = PLAYING
        # The lobby message becomes the first turn's: who plays, the table, who moves first.
        record.story, record.turn_events = [], []
        record.turn_ref = LOBBY_REF
        self.steps.apply_step(record, game, events, tx)
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
        is_admin: AdminCheck = never_admin,
        update: Handling | None = None,
    ) -> None:
        """Cancel a game (its creator or an admin of the game's group). Telegram is asked
        once who is an admin, before the transaction, which alone is retried."""
        lang = await self.prefs.person_language(person)
        raw = await self.store.games.record(game_id, update)
        creator = raw is not None and raw.get("creator") == person.id
        if raw is not None and not creator and not await is_admin(int(raw["chat_id"])):
            raise UserError(Refusal.NOT_CREATOR_OR_ADMIN, lang)
        await self._cancel(game_id, lang, update)

    @retried
    async def _cancel(self, game_id: str, lang: str, update: Handling | None) -> None:
        async with self.steps.game(game_id, update, lang) as g:
            if g.record.status not in (LOBBY, PLAYING):
                raise UserError(Refusal.GAME_OVER, lang)
            self.close(g.record, g.tx)

    def close(self, record: GameRecord, tx: GameTx, reason: str = "cancelled") -> None:
        """Close a lobby or a game before its end (`reason`), telling everyone, in `tx`."""
        group_t = self.catalogs.get(record.lang)
        text = tabletop.lobby_closed_text(group_t, reason, [s.name for s in record.players])
        if record.status == LOBBY:
            tx.send(record.id, group_edit(record, LOBBY_REF, text).to_op())
        elif record.turn_ref is not None:
            # The turn message still says who must decide (or offers answers): it closes
            # with the news instead, so no expired waiting line or live button stays.
            story = ui.then(ui.lines(self.steps.messages.turn_story(record)), text)
            tx.send(record.id, group_edit(record, record.turn_ref, story).to_op())
        else:
            # Between turns, or in a turn with no message yet (a Coup's card being chosen):
            # the news tells what that turn did so far.
            story = ui.then(ui.lines(self.steps.messages.turn_story(record)), text)
            tx.send(record.id, group_send(record, story, TURN_REF).to_op())
        self._tell_everyone(record, tx, reason)
        self.steps.finish(record, tx, CANCELLED)
        log.info("game %s in chat %s closed: %s", record.id, record.chat_id, reason)

    def _tell_everyone(self, record: GameRecord, tx: GameTx, reason: str) -> None:
        """Each person in the game reads privately that it is over: their open prompt is
        edited to say so (no live buttons stay), else a short message is sent."""
        for seat in record.humans():
            t = self.catalogs.get(seat.lang)
            text = tabletop.game_closed_notice(t, reason)
            fallback = self.steps.messages.fallback(record, seat.id)
            op: Edit | Send
            if seat.id in record.prompts:
                op = Edit(seat.id, prompt_ref(seat.id), text)
            elif record.status == PLAYING or reason == "removed":
                op = Send(seat.id, text, fallback=None if reason == "removed" else fallback)
            else:
                continue  # a lobby that closed: the group saw it, nobody was dealt cards
            tx.send(record.id, op.to_op())

    @retried
    async def chat_closed(self, chat_id: int) -> None:
        """The bot was removed from a group: cancel its game, telling its players privately."""
        game_id = await self.store.games.game_of_chat(chat_id)
        if not game_id:
            return

        with contextlib.suppress(UserError):  # no game any more: nothing to cancel
            async with self.steps.game(game_id) as g:
                record = g.record
                if record.status in (LOBBY, PLAYING):
                    self._tell_everyone(record, g.tx, "removed")
                    self.steps.finish(record, g.tx, CANCELLED)
                    log.info("game %s cancelled: the bot left chat %s", record.id, chat_id)

    async def chat_migrated(self, old_chat_id: int, new_chat_id: int) -> None:
        """A group became a supergroup: its game follows it, and so does what it queued
        for the group. The supergroup has none of the old group's messages (which nobody
        can edit any more), so the game shows its lobby or turn message there anew, and
        edits that one from then on; the buttons left in the old group are refused (a
        press counts only in the game's chat)."""
        game_id = await self.store.games.game_of_chat(old_chat_id)
        if game_id:
            # Three steps, so that no moment has the game's buttons shown in the supergroup
            # while the game still names the old group (a press there would be refused):
            # the game moves, what it queued is readdressed, and then its screen is shown
            # anew, after everything queued. Only the call that moved it shows it.
            with contextlib.suppress(UserError):  # no game any more: nothing follows
                if await self._move(game_id, old_chat_id, new_chat_id):
                    await self.store.outboxes.outbox_move_chat(game_id, old_chat_id, new_chat_id)
                    await self._show_anew(game_id, new_chat_id)
        settings = await self.store.prefs.chat_settings(old_chat_id)
        if settings:
            await self.store.prefs.set_chat_settings(new_chat_id, **settings)

    @retried
    async def _move(self, game_id: str, old_chat_id: int, new_chat_id: int) -> bool:
        """The game names the supergroup its group became; False if it named it already."""
        async with self.steps.game(game_id) as g:
            moved = g.record.chat_id == old_chat_id
            if moved:
                g.record.chat_id = new_chat_id
                g.tx.release_chat(old_chat_id)
                g.tx.claim_chat(new_chat_id)
        return moved

    @retried
    async def _show_anew(self, game_id: str, new_chat_id: int) -> None:
        """The game's lobby or turn message, shown anew in the supergroup."""
        async with self.steps.game(game_id) as g:
            record = g.record
            shown: Edit | None = None
            here = record.chat_id == new_chat_id  # else it moved on meanwhile
            if here and record.status == LOBBY:
                screen = self.steps.lobby_screen(record)
                shown = group_edit(record, LOBBY_REF, screen.text, screen.keyboard)
            elif here and record.status == PLAYING:
                shown = self.steps.messages.turn_as_it_stands(record, record.game())
            if shown is not None:
                g.tx.send(record.id, shown.to_op())

    def start_link(self) -> str:
        """The deep link that opens the bot privately (its Start button)."""
        return f"https://t.me/{self.bot_username}?start=hi"

    def join_link(self, game_id: str) -> str:
        """The deep link that opens the bot privately and joins the lobby at Start."""
        return f"https://t.me/{self.bot_username}?start=j{game_id}"

    async def private_started(
        self, person: Person, payload: str | None, origin: Origin | None = None
    ) -> None:
        """/start in private: the bot may now write to this person; join a lobby if asked.

        The welcome (and the join's outcome) is queued as the reply to `origin`, if given.
        """
        await self.store.prefs.note_started(person.id, person.name)
        t = await self.prefs.translator_for(person)
        text = guide.start_text(t)
        if payload and JOIN_PAYLOAD.fullmatch(payload):
            update = None if origin is None else origin.update
            try:
                await self.join(payload[1:], person, update, origin, lead=text)
                return
            except UserError as err:  # in the language the refusal was resolved in
                text = ui.then(text, notices.say(self.catalogs.get(err.said.lang), err.said))
        if origin is not None:
            await self.steps.reply(origin, Reply(text))
