"""A step's game-flow decisions, pure and without text: the decision context and its
deadline, which prompts open and close, the turn message's state. `advance` computes
them from the record as it was and the engine's step; `settle` writes them to the record.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..contract.steps import (
    BOARD_EVERY,
    END_REF,
    MOST_VERDICTS,
    Claim,
    Closing,
    Newest,
    Reader,
    StepOutcome,
    Table,
    Verdict,
    newest_from_dict,
    newest_to_dict,
    turn_ref_of,
)
from ..engine import (
    Character,
    DecisionKind,
    Game,
)
from ..engine import events as ev
from .records import GameRecord, Timing

# A decision's deadline runs from when its prompt reaches Telegram. Until then it is this
# much later, so a prompt held back (a group's 20 a minute) never costs anyone their turn.
DELIVERY_GRACE_S = 60


def seconds_for(timing: Timing, kind: DecisionKind | None) -> int:
    """The deadline of a decision kind (the settings table says which setting gives it)."""
    return timing.seconds(kind)


def table_of(record: GameRecord, over: bool = False) -> Table:
    """The game as its messages address it; the shuffle's seed only if it is `over`."""
    return Table(
        record.id,
        record.chat_id,
        record.thread_id,
        record.lang,
        record.names(),
        tuple(Reader(s.id, s.lang) for s in record.humans()),
        record.answers != "private",
        record.claims,
        record.commitment,
        record.seed if over else None,
        frozenset(record.more_time),
    )


def _tells_the_group(event: ev.Event) -> bool:
    """Whether an event is a line of the turn's story (public, and not a mere pass)."""
    return event.recipient is None and not isinstance(event, ev.ResponsePassed | ev.TurnStarted)


def advance(record: GameRecord, game: Game, events: list[ev.Event], now_ms: int) -> StepOutcome:
    """What this step decides, from the record as it was before it (read, not changed)."""
    waiting, over = game.awaiting(), game.over
    # Only passes, and the window is still open: the same decision, fewer to wait for.
    # (The last pass on an Examine opens the target's choice with no event of its own.)
    same_context = (
        bool(events)
        and all(isinstance(e, ev.ResponsePassed) for e in events)
        and waiting.kind is DecisionKind.RESPONSE
    )
    seconds = seconds_for(record.timing, waiting.kind)
    context, deadline_ms = record.context, record.deadline_ms
    if not same_context:
        context = game.version
        deadline_ms = None if over else now_ms + 1000 * (seconds + DELIVERY_GRACE_S)
    seconds_left = (
        None if deadline_ms is None else min(seconds, (deadline_ms - now_ms + 999) // 1000)
    )
    table = table_of(record, over)

    # The group's turn message: a new turn closes the old one's (its verdict, which says
    # who moves next). A turn is sent a message of its own once it opens a window to
    # answer (at once at the game's end); a turn with nothing to answer (Income, a Coup, a
    # timeout's default) has none: its verdict is added to the game's newest message.
    # rendering/step_plan.py renders what this decides.
    before = told_of(record)
    story, told = list(record.story), list(before)
    turn_ref = record.turn_ref
    turns = record.turns
    newest = newest_before = newest_from_dict(record.newest)
    closings: list[Closing] = []
    for e in events:
        if isinstance(e, ev.TurnStarted):
            if story or told:
                verdict = Verdict(tuple(story), tuple(told), turns % BOARD_EVERY == 0, e.player)
                quiet = turn_ref is None and newest is not None
                if quiet and newest is not None and len(newest.verdicts) < MOST_VERDICTS:
                    newest = Newest(newest.ref, (*newest.verdicts, verdict))
                    closings.append(Closing(newest.ref, False, newest.verdicts))
                else:
                    ref = turn_ref or turn_ref_of(turns)
                    newest = Newest(ref, (verdict,))
                    closings.append(Closing(ref, turn_ref is None, (verdict,)))
            turn_ref, story, told = None, [], []
            turns += 1
        elif _tells_the_group(e):
            told.append(e)
    turn_shown = (
        over
        or turn_ref is not None
        or (bool(story or told) and waiting.kind is DecisionKind.RESPONSE)
    )
    asks_table = not over and waiting.kind is DecisionKind.RESPONSE and table.answers_at_table
    options = tuple(game.answers()) if asks_table else ()
    table_context = context if turn_shown and options else None

    humans = {r.id for r in table.readers}
    prompted = frozenset(
        set()
        if same_context or (table.answers_at_table and waiting.kind is DecisionKind.RESPONSE)
        else set(waiting.players) & humans
    )
    closing = frozenset(
        uid
        for uid in humans
        if record.prompts.get(uid) is not None and (not same_context or uid not in waiting.players)
    )
    prompts = dict(record.prompts)
    for uid in humans:
        if uid in prompted:
            prompts[uid] = context
        elif uid in closing:
            del prompts[uid]
    return StepOutcome(
        table=table,
        context=context,
        same_context=same_context,
        deadline_ms=deadline_ms,
        seconds=seconds,
        seconds_left=seconds_left,
        prompted=prompted,
        closing=closing,
        prompts=prompts,
        turn_ref=record.turn_ref,
        turn_shown=turn_shown,
        turn_ref_after=(
            END_REF if over else (turn_ref or turn_ref_of(turns)) if turn_shown else None
        ),
        table_context=table_context,
        answer_options=options,
        story=tuple(record.story),
        told=before,
        story_after=tuple(story),
        told_after=tuple(told),
        closings=tuple(closings),
        newest_after=newest,
        newest=newest_before,
        turns=record.turns,
        turns_after=turns,
        end_tells_last_turn=over and turn_ref is None,
    )


def told_of(record: GameRecord) -> tuple[ev.Event, ...]:
    """The public events of the turn so far, as kept in the record."""
    return ev.events_from_dicts(record.turn_events)


def bluffs_of(record: GameRecord) -> list[Claim] | None:
    """The claims a finished game's replay revealed, as kept in its record."""
    if record.bluffs is None:
        return None
    return [(int(p), Character(c), int(turn), bool(true)) for p, c, turn, true in record.bluffs]


def settle(record: GameRecord, outcome: StepOutcome, bluffs: Sequence[Claim] | None) -> None:
    """Write a step's decisions to the record; `bluffs`, once the game is over, are the
    claims its replay revealed (None: it did not replay)."""
    record.context = outcome.context
    record.deadline_ms = outcome.deadline_ms
    record.prompts = dict(outcome.prompts)
    record.turn_ref = outcome.turn_ref_after
    record.table_context = outcome.table_context
    record.story = list(outcome.story_after)
    record.turn_events = ev.events_to_dicts(outcome.told_after)
    record.turns = outcome.turns_after
    record.newest = newest_to_dict(outcome.newest_after)
    record.end_tells_last_turn = outcome.end_tells_last_turn
    if bluffs is not None:
        record.bluffs = [list(claim) for claim in bluffs]
