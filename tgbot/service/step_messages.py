"""A step, from the engine's events to its message plan: the service decides what happens
to the game (`advance`, pure), applies it to the record (`settle`), and rendering writes
the messages from that outcome (`rendering/step_plan.py`), taking no record to change."""

from __future__ import annotations

from collections.abc import Sequence

from ..contract.plan import Edit, Fallback, Keyboard, Plan, Send
from ..contract.steps import LOBBY_REF, TURN_REF, Claim, prompt_ref
from ..engine import Game
from ..engine import events as ev
from ..rendering import ui
from ..rendering.app_links import AppLinks
from ..rendering.i18n import Catalogs
from ..rendering.step_plan import StepPlanner
from .advance import (
    DELIVERY_GRACE_S,
    advance,
    bluffs_of,
    seconds_for,
    settle,
    table_of,
    told_of,
)
from .records import GameRecord

__all__ = [
    "DELIVERY_GRACE_S",
    "LOBBY_REF",
    "TURN_REF",
    "StepMessages",
    "group_edit",
    "group_send",
    "prompt_ref",
    "seconds_for",
]


def group_send(
    record: GameRecord, text: str, ref: str | None = None, kb: Keyboard | None = None
) -> Send:
    """A message to the game's group (in its forum topic, if any)."""
    return Send(record.chat_id, text, kb or None, ref, record.thread_id)


def group_edit(record: GameRecord, ref: str, text: str, kb: Keyboard | None = None) -> Edit:
    """A new look for one of the group's messages."""
    return Edit(record.chat_id, ref, text, kb or None)


class StepMessages:
    """Builds a step's message plan for a game record, and applies the step to it."""

    def __init__(
        self,
        catalogs: Catalogs,
        bot_username: str,
        links: AppLinks | None = None,
        hold_ms: int = 0,
    ) -> None:
        self.planner = StepPlanner(catalogs, bot_username, links)
        # How long an edit of the lobby's list waits for a newer one (joins come in bursts;
        # the process's value is config's `answer_edit_hold_ms`; 0: not held).
        self.hold_ms = hold_ms

    def unreachable_note(self, record: GameRecord, user_id: int) -> str:
        """What the group reads when a player cannot be written to privately."""
        return self.planner.unreachable_note(table_of(record), user_id)

    def fallback(self, record: GameRecord, user_id: int) -> Fallback:
        """Where a refused private message is reported."""
        return self.planner.fallback(table_of(record), user_id)

    def build(
        self,
        record: GameRecord,
        game: Game,
        events: list[ev.Event],
        now_ms: int,
        bluffs: Sequence[Claim] | None = None,
    ) -> Plan:
        """The plan of this step; the step's outcome (contexts, deadline, prompts, the turn
        message's state and story) is written to the record. `bluffs`, once the game is
        over, are the claims its replay revealed, for the final message."""
        outcome = advance(record, game, events, now_ms)
        plan = self.planner.render(outcome, game, events, bluffs)
        settle(record, outcome, bluffs)
        return plan

    def turn_story(self, record: GameRecord) -> list[str]:
        """The turn's story so far, as the group reads it: its lines."""
        return self.planner.turn_story(table_of(record), record.story, told_of(record))

    def final_message(self, record: GameRecord) -> str:
        """A finished game's last message, without its buttons (Play again edits it)."""
        if not record.turn_events:  # kept by an older record: the message itself
            return ui.lines(record.story)
        return self.planner.final_message(
            table_of(record, over=True),
            record.game(),
            record.story,
            told_of(record),
            bluffs_of(record),
            record.end_tells_last_turn,
        )

    def turn_as_it_stands(
        self, record: GameRecord, game: Game, optional: bool = False
    ) -> Edit | None:
        """The group's turn message as it stands now (None between turns, or after the
        game), to show it in a chat that has no copy of it (a group that became a
        supergroup), or with its deadline moved (`optional`)."""
        if record.turn_ref is None or game.over:
            return None
        settled = record.delivered == record.context
        deadline_ms = record.deadline_ms if settled else None
        shows_answers = record.table_context is not None and record.table_context == record.context
        return self.planner.turn_as_it_stands(
            table_of(record),
            game,
            record.turn_ref,
            record.story,
            told_of(record),
            deadline_ms,
            record.context if shows_answers else None,
            game.answers() if shows_answers else (),
            optional,
        )

    def deadline_moved(self, record: GameRecord, game: Game) -> Edit | None:
        """The turn message showing the awaited decision's new moment (⏳ More time). None
        when no message shows it (between turns the closed turn's verdict names who moves
        next, with no moment), or its deadline has not started yet (its message still
        shows the moment it will start with, earlier than the new one: nobody is told they
        have more time than they do)."""
        if game.over or record.deadline_ms is None or record.delivered != record.context:
            return None
        if record.turn_ref is None:
            return None
        return self.turn_as_it_stands(record, game, optional=True)
