"""The deadlines room: time-outs, AI moves, lobbies that start or close by themselves."""

from __future__ import annotations

import logging
import random

from ..ai import choose
from ..contract.steps import MORE_TIME_S
from ..engine import MIN_PLAYERS, view_of
from ..storage.games import GameTx
from . import archive
from .core import DEADLINE_LEASE_MS, GameSteps, retried
from .lobby import LobbyRoom
from .records import LOBBY, OVER, PLAYING, GameRecord

log = logging.getLogger(__name__)


class DeadlineRoom:
    """Deadlines kept in the store, fired once across processes."""

    def __init__(self, steps: GameSteps, lobby: LobbyRoom) -> None:
        self.steps = steps
        self.lobby = lobby
        self.store = steps.store
        self.history = steps.history

    @retried
    async def fire_deadline(self, game_id: str) -> None:
        """A deadline came due: start or close a lobby, apply the timeout default, or count
        a finished game (its last step armed its deadline to fire at once)."""
        now = self.steps.now_ms()
        fired = finished = False
        async with self.store.games.transaction(game_id) as (seen, tx):
            record = self.steps.record_of(game_id, seen, None)
            if record is None or record.status == OVER:
                # Counted below, from its kept record if there is one (the game's state may
                # be gone before it). Its deadline stays armed until then: a crash before
                # the count fires it again.
                finished = True
            elif record.status not in (LOBBY, PLAYING) or record.deadline_ms is None:
                tx.clear_deadline()
            elif (due := record.next_due_ms() or record.deadline_ms) > now:
                tx.arm_deadline(due)  # the game moved on since: re-arm its real deadline
            else:
                self._fire(record, tx, now)
                record.save_in(tx)
                fired = True
        if fired:
            await self.steps.committed(game_id)
        if finished and not await self.history.settle_if_over(game_id):
            await self.store.deadlines.clear_deadline(game_id)  # nothing kept to count

    def _fire(self, record: GameRecord, tx: GameTx, now: int) -> None:
        """What a due deadline does: a lobby starts (or closes, with too few players); a
        game applies its awaited AI player's move, or the timeout's default."""
        if record.status == LOBBY:
            if len(record.players) >= MIN_PLAYERS and record.humans():
                self.lobby.begin(record, tx)
            else:
                self.lobby.close(record, tx, "empty")
            return
        game = record.game()
        ai = [p for p in game.awaiting().players if p in record.ai_ids()]
        if ai and record.ai_due_ms is not None and record.ai_due_ms <= now:
            rng = random.Random(f"{record.seed}:{game.version}:{ai[0]}")
            decision = choose(view_of(game, ai[0]), rng)
            events = game.apply(ai[0], decision)
            archive.note_move(record, now, ai[0], decision)
        else:
            events = game.apply_timeout()
            archive.note_move(record, now, None, None)  # replayed as a timeout
        self.steps.apply_step(record, game, events, tx)

    @retried
    async def prompt_delivered(self, game_id: str, context: int, seconds: int) -> None:
        """A decision's prompt reached Telegram: its deadline is `seconds` from now if it is
        the first of its prompts to arrive, else at least that (compare-and-set: only while
        that decision is still the one awaited)."""
        now_ms = self.steps.now_ms()
        async with self.store.games.transaction(game_id) as (seen, tx):
            record = self.steps.record_of(game_id, seen, None)
            due_ms = None if record is None else _delivered_due(record, context, seconds, now_ms)
            if record is not None and due_ms is not None:
                record.deadline_ms = due_ms
                record.delivered = context
                record.save_in(tx, step=False)  # not a step of the game: rev stays
                tx.arm_deadline(record.next_due_ms() or due_ms)

    async def claim_and_fire(self, limit: int = 20) -> int:
        """Fire every deadline that is due (claimed once across processes); return how many."""
        due = await self.store.deadlines.claim_due(self.steps.now_ms(), DEADLINE_LEASE_MS, limit)
        for game_id in due:
            try:
                await self.fire_deadline(game_id)
            except Exception:  # one broken game must not stop the others' deadlines
                log.exception("deadline of game %s failed; it will fire again", game_id)
        return len(due)


def _delivered_due(record: GameRecord, context: int, seconds: int, now_ms: int) -> int | None:
    """The deadline of the decision `context` once its prompt reached Telegram: `seconds`
    from now (and the ⏳ More time taken for it before), if that decision is still the one
    awaited and this is its first prompt to arrive or moves the deadline later; else None."""
    first = record.delivered != context
    extra = sum(MORE_TIME_S for c in record.more_time.values() if c == context)
    due_ms = now_ms + 1000 * (seconds + extra)
    if (
        record.status != PLAYING
        or record.context != context
        or record.deadline_ms is None
        or (record.deadline_ms >= due_ms and not first)
    ):
        return None
    return due_ms
