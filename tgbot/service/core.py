"""The game service's common ground: `GameSteps`, the compare-and-set transactions and
the step, which every room receives in its constructor.

Nothing here talks to Telegram: every message a step produces goes to the game's outbox
in the same transaction as the new state, and a sender delivers it; `notify` hears of
each commit (the edge's deliveries).
"""

from __future__ import annotations

import contextlib
import json
import logging
import random
import re
import string
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from ..contract.outcomes import Refusal
from ..contract.plan import Send, close_keyboard
from ..engine import Game, game_to_dict
from ..rendering import tabletop, ui
from ..rendering.app_links import AppLinks
from ..rendering.i18n import Catalogs
from ..storage.commit import retried as retried  # the rooms' one retry
from ..storage.games import GameTx, Seen
from ..storage.keys import chat_owner
from ..storage.plan import Writes
from ..storage.store import Store
from ..storage.updates import Handling
from .history import History
from .records import GAME_ID, LOBBY, OVER, GameRecord
from .results import Origin, Reply, UserError
from .step_messages import (
    StepMessages,
)

log = logging.getLogger(__name__)

ID_ALPHABET = string.ascii_lowercase + string.digits
DEADLINE_LEASE_MS = 30_000
JOIN_PAYLOAD = re.compile(rf"j{GAME_ID}")  # /start j<game id>, the lobby's deep link


# Whether the person is an admin of the given group: always asked about the game's own
# group, never about the chat a press or command came from.
AdminCheck = Callable[[int], Awaitable[bool]]


async def never_admin(_: int) -> bool:
    """The admin check of a caller that cannot ask Telegram: nobody is an admin."""
    return False


def reply_op(origin: Origin, reply: Reply) -> dict[str, Any]:
    """The outbox entry of a reply to an update, in the chat (and topic) it came from."""
    return Send(
        origin.chat_id,
        reply.text,
        reply.keyboard,
        thread=origin.thread_id,
        direct=True,
        moment=reply.moment,
        alone=bool(reply.more),
    ).to_op()


def reply_ops(origin: Origin, reply: Reply) -> list[dict[str, Any]]:
    """The outbox entries of a reply and the messages that follow it, each sent on its own."""
    more = [
        Send(origin.chat_id, text, thread=origin.thread_id, direct=True, alone=True).to_op()
        for text in reply.more
    ]
    return [reply_op(origin, reply), *more]


@dataclass(slots=True)
class Operation:
    """A game operation's unit of work (`GameSteps.game`): the record, what else its
    transaction read, and the transaction its writes go in."""

    record: GameRecord
    seen: Seen
    tx: GameTx


class GameSteps:
    """Every game operation's transaction and step, shared by the service's rooms."""

    def __init__(
        self,
        store: Store,
        catalogs: Catalogs,
        history: History,
        notify: Callable[[str], Awaitable[None]],
        bot_username: str,
        ai_pause_ms: tuple[int, int],
        hold_ms: int,
        links: AppLinks,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.catalogs = catalogs
        self.clock = clock
        self.messages = StepMessages(catalogs, bot_username, links, hold_ms)
        # Kept records, ratings, stats, the claim tracker and replays (service/history.py).
        self.history = history
        self.notify = notify
        self.ai_pause_ms = ai_pause_ms  # an AI player thinks this long, like a person

    def now_ms(self) -> int:
        """The clock in epoch milliseconds."""
        return int(self.clock() * 1000)

    # ---- transactions --------------------------------------------------------------

    async def read(
        self, game_id: str, user_id: int, update: Handling | None = None
    ) -> tuple[dict[str, Any] | None, GameRecord | None, dict[str, str]]:
        """A game's record (as stored, and decoded) and a person's preferences, in one round
        trip; with `update`, the decoded record is kept for the update's transaction on
        the game, whose first attempt starts from this read (`record_of`)."""
        raw, prefs = await self.store.games.record_and_prefs(game_id, user_id, update)
        record = None if raw is None else GameRecord.from_dict(raw)
        if record is not None and update is not None:
            self.store.games.keep_decoded(update, game_id, record)
        return raw, record, prefs

    def record_of(self, game_id: str, seen: Seen, update: Handling | None) -> GameRecord | None:
        """The record a transaction's attempt read: the one `read` decoded for `update`
        when the attempt starts from that very read, else decoded now (None: no game)."""
        if seen.record is None:
            return None
        if update is not None:
            kept = self.store.games.take_decoded(update, game_id, seen.record)
            if isinstance(kept, GameRecord):
                return kept
        return GameRecord.from_dict(json.loads(seen.record))

    @contextlib.asynccontextmanager
    async def game(
        self,
        game_id: str,
        update: Handling | None = None,
        lang: str | None = None,
        players: tuple[int, ...] = (),
        saves: bool = True,
        step: bool = True,
    ) -> AsyncIterator[Operation]:
        """One operation on a game, as a block that reads top to bottom: the record read
        once (decoded once: the read `read` kept for `update`, if any) and its transaction.
        Leaving the block saves the record and commits it all compare-and-set, then tells
        the edge; an exception (a refusal, say) writes nothing. A read found out of date
        raises Stale: the room's operation is run again whole (`retried`). No game: the
        refusal that it is over, in `lang`. `saves` False: the operation changes nothing of
        the game's state (a prompt's new look): the record is not written; `step` False:
        it is written, but is no step of the game (its revision stays: buttons stay
        current)."""
        async with self.store.games.transaction(game_id, update, players) as (seen, tx):
            record = self.record_of(game_id, seen, update)
            if record is None:
                raise UserError(Refusal.GAME_OVER, lang)
            yield Operation(record, seen, tx)
            if saves:
                record.save_in(tx, step=step)
        await self.committed(game_id)

    async def committed(self, owner: str) -> None:
        """Tell the edge that `owner`'s outbox has a commit to deliver."""
        await self.notify(owner)

    async def close_buttons(self, owner: str, chat_id: int, message_id: int) -> None:
        """Queue in `owner`'s outbox the close of a message's stale buttons (see
        `plan.close_keyboard`): nothing of the game changes, no update is marked applied
        (a second delivery of the press queues a close that changes nothing)."""
        writes = Writes()
        writes.send(owner, close_keyboard(chat_id, message_id).to_op())
        await self.store.commits.commit(writes)
        await self.committed(owner)

    async def reply(self, origin: Origin, reply: Reply) -> None:
        """Queue the reply to an update that changed nothing else, marking it applied.

        The reply is not sent from the handler: it waits in the chat's outbox, written in
        the same transaction as the update's mark, so two processes handed the same update
        queue it once, and a crash before it is sent leaves it queued for the sweeper.
        Raises Duplicate if the update was applied before.
        """
        owner = chat_owner(origin.chat_id)
        await self.store.commits.queue(owner, reply_ops(origin, reply), origin.update)
        await self.committed(owner)

    def apply_step(self, record: GameRecord, game: Game, events: list[Any], tx: GameTx) -> None:
        """Store the engine state and queue the step's messages, deadline, stats, clean-up."""
        now, over = self.now_ms(), game.over
        self.history.tally_claims(record, events)  # before the plan: the table shows the tally
        bluffs = self.history.bluffs_revealed(record, game, now) if over else None
        plan = self.messages.build(record, game, events, now, bluffs)
        tx.send_all(plan.to_ops())
        record.engine = game_to_dict(game)
        if over:
            self._finish(record, tx, OVER)
            self.history.game_over(record, game, tx, now)  # kept and counted in this commit
            log.info("game %s ended in chat %s: winner %s", record.id, record.chat_id, game.winner)
            return
        record.ai_due_ms = None
        if set(game.awaiting().players) & record.ai_ids():
            low, high = self.ai_pause_ms
            pause = random.Random(f"{record.seed}:{game.version}").randint(low, high)
            record.ai_due_ms = now + pause
        if (due := record.next_due_ms()) is not None:
            tx.arm_deadline(due)

    def lobby_screen(self, record: GameRecord) -> ui.Screen:
        """The lobby's message as it stands: who opened it, who joined, how long it waits."""
        t = self.catalogs.get(record.lang)
        seated = next((s.name for s in record.players if s.id == record.creator), None)
        creator = seated or record.creator_name
        left = max(0, ((record.deadline_ms or 0) - self.now_ms()) // 1000)
        names = [s.name for s in record.players]
        # Honest about the opener who is not in yet: the deep link is in their reply.
        opener_out = seated is None and bool(record.creator_name) and record.status == LOBBY
        screen = tabletop.lobby_screen(
            t, record.id, creator, names, left, record.game_variant(), opener_out
        )
        screen.keyboard += self.messages.planner.app_row(t, record.id)
        return screen

    def finish(self, record: GameRecord, tx: GameTx, status: str) -> None:
        """Close a game for good (`status`): no deadline, no prompt, its chat and players
        let go; in `tx`."""
        self._finish(record, tx, status)

    def _finish(self, record: GameRecord, tx: GameTx, status: str) -> None:
        record.status = status
        record.deadline_ms = None
        record.prompts = {}
        tx.close(record.chat_id, [s.id for s in record.players])


class NeedsStart(Exception):
    """The person must open the bot privately before joining."""
