"""The hand room: 👁 My cards (a pop-up over the group, nothing sent) and ⏳ More time
(30 s more for a decision one is awaited for, once per player per game)."""

from __future__ import annotations

from ..contract.outcomes import Notice, Refusal, Said
from ..contract.steps import MORE_TIME_S
from ..engine import view_of
from ..rendering import hand
from ..rendering.i18n import pick_language
from ..storage.updates import Handling
from .core import GameSteps, retried
from .records import PLAYING, GameRecord
from .results import CallbackResult, Person, UserError
from .step_messages import group_send


class HandRoom:
    """Presses that help a player decide: their own cards, a little more time."""

    def __init__(self, steps: GameSteps) -> None:
        self.steps = steps
        self.store = steps.store
        self.catalogs = steps.catalogs

    async def _read(
        self, game_id: str, person: Person, update: Handling | None
    ) -> tuple[GameRecord | None, str]:
        _, record, prefs = await self.steps.read(game_id, person.id, update)
        return record, pick_language(prefs.get("lang"), person.language_code)

    async def my_cards(
        self, person: Person, game_id: str, update: Handling | None = None
    ) -> CallbackResult:
        """👁 My cards: the presser's own cards and coins as a pop-up in their language;
        it is an answer to the press, so the group's minute pays nothing for it."""
        record, lang = await self._read(game_id, person, update)
        if record is None or record.status != PLAYING:
            return CallbackResult(Said(Refusal.GAME_OVER, lang), alert=True)
        if record.seat(person.id) is None:
            return CallbackResult(Said(Refusal.NOT_IN_GAME, lang), alert=True)
        view = view_of(record.game(), person.id)
        return CallbackResult(text=hand.my_cards_alert(self.catalogs.get(lang), view), alert=True)

    @retried
    async def more_time(
        self, person: Person, game_id: str, context: int, update: Handling | None = None
    ) -> CallbackResult:
        """⏳ More time: the decision of `context`, awaited from the presser, gets 30 s more
        (once per player per game, remembered in the record); the group reads a line."""
        _, lang = await self._read(game_id, person, update)
        try:
            # No step of the game: its revision stays, so the buttons stay current.
            async with self.steps.game(game_id, update, lang, step=False) as g:
                record = g.record
                if record.status != PLAYING:
                    raise UserError(Refusal.GAME_OVER, lang)
                seat = record.seat(person.id)
                if seat is None:
                    raise UserError(Refusal.NOT_IN_GAME, lang)
                if person.id in record.more_time:
                    raise UserError(Refusal.MORE_TIME_USED, lang)
                if record.context != context:
                    # An earlier decision's button (a prompt whose optional close was dropped)
                    older = context < record.context
                    raise UserError(Refusal.ALREADY_DECIDED if older else Refusal.OUT_OF_DATE, lang)
                if person.id not in record.game().awaiting().players or record.deadline_ms is None:
                    raise UserError(Refusal.NOT_WAITING_FOR_YOU, lang)
                record.more_time[person.id] = context
                record.deadline_ms += 1000 * MORE_TIME_S
                g.tx.arm_deadline(record.next_due_ms() or record.deadline_ms)
                line = hand.more_time_line(self.catalogs.get(record.lang), seat.name)
                g.tx.send(record.id, group_send(record, line).to_op())
                # The group's message that shows until when shows the new moment (one edit,
                # optional: a newer state of that message replaces it while it waits).
                if (moved := self.steps.messages.deadline_moved(record, record.game())) is not None:
                    g.tx.send(record.id, moved.to_op())
        except UserError as err:
            return CallbackResult(err.said, alert=err.said.what is Refusal.MORE_TIME_USED)
        return CallbackResult(Said(Notice.MORE_TIME, lang))
