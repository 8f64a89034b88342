"""Turn one step's outcome into its message plan, from what each recipient may know.

The group's turn message is sent when the group must pay attention and edited in place as
the turn unfolds, with the answers to a claim as its buttons (unless the group chose
answers in private); it ends with the turn's story, the table and who moves next. Each
player's private chat gets a new message only when they must act, each prompt closes when
its decision is made (a challenger's with the challenge's result), and nothing else is
sent there but secrets, notices, a knock-out and the winner's win.

What happens to the game (contexts, deadlines, which prompts open and close, whether the
turn message shows) is decided by the service (`service/advance.py`) and read here from
the `StepOutcome`; this module writes the words and takes no record to change.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..contract.plan import END, Deadline, Edit, Fallback, Moment, Plan, Riders, Send
from ..contract.steps import (
    END_REF,
    Claim,
    Newest,
    StepOutcome,
    Table,
    Verdict,
    turn_ref_of,
)
from ..engine import Decision, Game, PlayerView, view_of
from ..engine import events as ev
from . import app_links, hand, history, tabletop, ui
from .app_links import AppLinks
from .i18n import Catalogs, Translator
from .private_plan import PrivatePlanner
from .texts import Names, describe
from .texts import told as worth_a_line

# A story state between a turn's claim and its verdict waits this long for them before it
# is shown: a choice made within it is told by the verdict alone, a longer wait (a person
# choosing a card, thinking) is shown while it lasts, if the group's minute has room.
STORY_HOLD_MS = 6_000

# A quiet turn's verdict (Income, a Coup, a timeout's default) waits this long for the
# game's next new message (a claim, the end) to carry it at its top before it is added to
# the newest message by an edit of its own, and then only while the group's minute has
# room: the next new message carries it anyway.
RIDE_HOLD_MS = 6_000


def story_lines(
    t: Translator, names: Names, story: Sequence[str], told: Sequence[ev.Event]
) -> list[str]:
    """The turn's story as the group reads it: the lines an older record kept, then a
    line for each public event that says something."""
    return [*story, *(line for e in worth_a_line(told) if (line := describe(e, t, names)))]


def _target_name(view: PlayerView, names: Names) -> str | None:
    """The name of the turn's target, as the story names them (None: the action has none)."""
    if view.target is None:
        return None
    return names.get(view.target, str(view.target))


def seed_line(t: Translator, table: Table) -> str:
    """The final message's line that reveals the shuffle's seed ("" before the end: the
    service gives the seed only once the game is over, and never for an older game that
    showed no commitment)."""
    if table.seed is None or table.commitment is None:
        return ""
    return history.shuffle_revealed(t, table.game_id, table.seed)


class StepPlanner:
    """Writes a step's message plan from its outcome."""

    def __init__(
        self, catalogs: Catalogs, bot_username: str, links: AppLinks | None = None
    ) -> None:
        self.catalogs = catalogs
        self.bot_username = bot_username
        self.links = links or AppLinks()  # the Mini App's buttons (none when not configured)
        self.private = PrivatePlanner(catalogs, bot_username, self.links)

    def table_rows(self, t: Translator, game_id: str, context: int, more_time: bool) -> ui.Keyboard:
        """The live turn message's last rows: 👁 My cards (and ⏳ More time), then the
        Mini App's direct link when it is configured."""
        return hand.table_row(t, game_id, context, more_time) + self.app_row(t, game_id)

    def app_row(self, t: Translator, game_id: str) -> ui.Keyboard:
        """A group message's row to the Mini App on `game_id` ([] when not configured)."""
        return app_links.group_row(t, self.links, self.bot_username, game_id)

    def unreachable_note(self, table: Table, user_id: int) -> str:
        """What the group reads when a player cannot be written to privately."""
        return self.private.unreachable_note(table, user_id)

    def fallback(self, table: Table, user_id: int) -> Fallback:
        """Where a refused private message is reported."""
        return self.private.fallback(table, user_id)

    def render(
        self,
        outcome: StepOutcome,
        game: Game,
        events: list[ev.Event],
        bluffs: Sequence[Claim] | None = None,
    ) -> Plan:
        """The messages of this step. `bluffs` closes the final message: the claims the
        game's replay revealed (None: none are shown)."""
        plan = Plan()
        self._table(plan, outcome, game, events, bluffs)
        for reader in outcome.table.readers:
            self.private.add(plan, outcome, game, events, reader.id, reader.lang)
        return plan

    def final_message(
        self,
        table: Table,
        game: Game,
        story: Sequence[str],
        told: Sequence[ev.Event],
        bluffs: Sequence[Claim] | None,
        with_story: bool = False,
    ) -> str:
        """A finished game's end message as the step wrote it: the last turn's story,
        `story` and `told`, if that turn had no message of its own (`with_story`), the
        winner and every card, then who bluffed."""
        t = self.catalogs.get(table.lang)
        names = dict(table.names)
        lines = self._end_story(t, table, story, told) if with_story else []
        summary = "" if bluffs is None else history.bluff_summary(t, bluffs, names)
        view = view_of(game)
        return tabletop.game_over_message(t, view, names, lines, summary, seed_line(t, table))

    def _end_story(
        self, t: Translator, table: Table, story: Sequence[str], told: Sequence[ev.Event]
    ) -> list[str]:
        """The last turn's story at the top of the end message (the end is its own line)."""
        played = [e for e in told if not isinstance(e, ev.GameEnded)]
        return self._story(t, table, story, played)

    def turn_story(self, table: Table, story: Sequence[str], told: Sequence[ev.Event]) -> list[str]:
        """The turn's story so far, as the group reads it: its lines."""
        t = self.catalogs.get(table.lang)
        return story_lines(t, dict(table.names), story, told)

    # ---- the group -----------------------------------------------------------------

    def _table(
        self,
        plan: Plan,
        outcome: StepOutcome,
        game: Game,
        events: list[ev.Event],
        bluffs: Sequence[Claim] | None,
    ) -> None:
        """The group's turn message: closed when a turn ends by its verdict (its story, the
        seats it changed, who moves next), else sent or edited with the turn so far and
        its answers; the game's end is a message of its own (`service/advance.py` follows
        the same steps)."""
        table = outcome.table
        t = self.catalogs.get(table.lang)
        public = view_of(game)
        legacy, told = list(outcome.story), list(outcome.told)
        turn_ref, turns = outcome.turn_ref, outcome.turns
        closings = iter(outcome.closings)
        newest = outcome.newest
        for e in events:
            if isinstance(e, ev.TurnStarted):
                if legacy or told:
                    closing = next(closings)
                    text = self._verdicts_text(t, table, public, closing.verdicts)
                    if closing.new or len(closing.verdicts) == 1:
                        deadline = Deadline(outcome.context, outcome.seconds)
                        riders = self._riders(t, table, public, newest) if closing.new else None
                        self._turn_op(
                            plan, table, closing.ref, closing.new, text, None, deadline, riders
                        )
                    else:
                        # A quiet turn added to the newest message: it waits a while for
                        # the next new message to carry it at its top (one call, not two),
                        # and is made by itself only with room in the group's minute.
                        added = len(closing.verdicts) - 1
                        plan.add(
                            Edit(
                                table.chat,
                                closing.ref,
                                text,
                                hold_ms=RIDE_HOLD_MS,
                                optional=True,
                                rides=added,
                            )
                        )
                    newest = Newest(closing.ref, closing.verdicts)
                legacy, told, turn_ref = [], [], None
                turns += 1
            elif e.recipient is None and not isinstance(e, ev.ResponsePassed):
                told.append(e)
        riders = self._riders(t, table, public, newest)
        if public.winner is not None:
            self._game_over(plan, outcome, public, turn_ref, legacy, told, bluffs, riders)
            return
        self._turn_now(plan, outcome, t, public, turn_ref, turns, legacy, told, riders)

    def _riders(
        self, t: Translator, table: Table, view: PlayerView, newest: Newest | None
    ) -> Riders | None:
        """The quiet turns' verdicts added to the newest message, which may ride at the
        top of a new message instead (None: none were added)."""
        if newest is None or len(newest.verdicts) < 2:
            return None
        parts = tuple(
            self._closed_text(t, table, view, v.story, v.told, v.board, v.next_player)
            for v in newest.verdicts[1:]
        )
        return Riders(newest.ref, parts)

    def _turn_now(
        self,
        plan: Plan,
        outcome: StepOutcome,
        t: Translator,
        public: PlayerView,
        turn_ref: str | None,
        turns: int,
        legacy: list[str],
        told: list[ev.Event],
        riders: Riders | None = None,
    ) -> None:
        """The current turn's message: sent with the turn so far, its answers and its
        deadline; edited when its buttons change (a new window), and otherwise only
        optionally (a challenge made, a card being chosen: the verdict tells it anyway).
        A pass changes nothing the group is shown."""
        if not outcome.turn_shown or outcome.same_context:
            return
        table = outcome.table
        names = dict(table.names)
        story = self._story(t, table, legacy, told)
        waiting = public.awaiting
        kb: ui.Keyboard | None = None
        question = ""
        if outcome.answer_options:
            options = outcome.answer_options
            kb = tabletop.answer_buttons(t, table.game_id, outcome.context, options, names)
            target = _target_name(public, names)
            asked = len(waiting.players)
            question = ui.answers_question(t, waiting.window, options, asked, target)
            # 👁 My cards and ⏳ More time ride on the answer buttons only
            more = bool(set(waiting.players) - table.more_time_used)
            kb = kb + self.table_rows(t, table.game_id, outcome.context, more)
        ref = turn_ref or turn_ref_of(turns)
        if turn_ref is None or kb is not None:
            text = tabletop.turn_message(t, public, names, story, True, question)
            deadline = Deadline(outcome.context, outcome.seconds)
            self._turn_op(plan, table, ref, turn_ref is None, text, kb, deadline, riders)
            return
        # A story state with no buttons (a challenge made, a card being chosen): shown only
        # when the choice it waits for takes a while (it is held STORY_HOLD_MS for the
        # verdict or the next window to replace it), and then only while the group's minute
        # has room; the window's buttons it replaces answer "already answered" meanwhile.
        text = tabletop.turn_message(t, public, names, story, False, question)
        plan.add(Edit(table.chat, ref, text, hold_ms=STORY_HOLD_MS, optional=True))

    def _story(
        self, t: Translator, table: Table, legacy: Sequence[str], told: Sequence[ev.Event]
    ) -> list[str]:
        """A turn's story lines; the game's first also seals the shuffle (its commitment)."""
        lines = story_lines(t, dict(table.names), legacy, told)
        if table.commitment and any(isinstance(e, ev.GameStarted) for e in told):
            lines.append(history.shuffle_sealed(t, table.commitment))
        return lines

    def _closed_text(
        self,
        t: Translator,
        table: Table,
        view: PlayerView,
        legacy: Sequence[str],
        told: Sequence[ev.Event],
        board: bool,
        next_player: int | None,
    ) -> str:
        """A closed turn's verdict (ending with who moved next, `next_player`, if any)."""
        names = dict(table.names)
        told = [e for e in told if not isinstance(e, ev.GameEnded)]
        lines = self._story(t, table, legacy, told)
        living = {p.id for p in view.seats if p.cards_down}
        claims = history.claims_line(t, table.claims, names, living) if board else ""
        return tabletop.closed_turn_message(t, view, names, lines, told, board, claims, next_player)

    def _verdicts_text(
        self,
        t: Translator,
        table: Table,
        view: PlayerView,
        verdicts: Sequence[Verdict],
    ) -> str:
        """A message of closed turns: the first with its own message, then the quiet
        turns added to it, each a verdict."""
        parts = [
            self._closed_text(t, table, view, v.story, v.told, v.board, v.next_player)
            for v in verdicts
        ]
        return "\n\n".join(parts)

    def _game_over(
        self,
        plan: Plan,
        outcome: StepOutcome,
        public: PlayerView,
        turn_ref: str | None,
        legacy: list[str],
        told: list[ev.Event],
        bluffs: Sequence[Claim] | None,
        riders: Riders | None = None,
    ) -> None:
        """The end comes as a new message, which rings: the winner, every card, who
        claimed what, Play again and Replay; a last turn that had no message yet tells its
        story at its top. Then the last turn's message closes (its story, no buttons)."""
        table = outcome.table
        t = self.catalogs.get(table.lang)
        names = dict(table.names)
        story = [] if turn_ref is not None else self._end_story(t, table, legacy, told)
        summary = "" if bluffs is None else history.bluff_summary(t, bluffs, names)
        text = tabletop.game_over_message(t, public, names, story, summary, seed_line(t, table))
        keyboard = (
            tabletop.play_again_keyboard(t, table.game_id)
            + history.replay_button(t, table.game_id)
            + self.app_row(t, table.game_id)
        )
        # First in the group's minute, and first in its lane: the end goes out within
        # seconds however busy the group is (its one reserved slot is not spent on an
        # edit of an older message queued before it; those follow, in their own class).
        plan.add(
            Send(table.chat, text, keyboard, END_REF, table.thread, priority=END, riders=riders)
        )
        if turn_ref is not None:
            text = self._closed_text(t, table, public, legacy, told, False, None)
            plan.add(Edit(table.chat, turn_ref, text))

    def turn_as_it_stands(
        self,
        table: Table,
        game: Game,
        turn_ref: str,
        story: Sequence[str],
        told: Sequence[ev.Event],
        deadline_ms: int | None,
        answers_at: int | None,
        options: Sequence[Decision] = (),
        optional: bool = False,
    ) -> Edit:
        """The group's turn message as it stands now, as the step wrote it: to show it in
        a chat that has no copy of it (a group that became a supergroup: the sender finds
        no such message there and sends it anew), or with a deadline moved (⏳ More time,
        `optional`). `deadline_ms`: the moment shown (None: none); `answers_at`: the
        context of the answer buttons it shows, `options` (None: it shows none)."""
        t = self.catalogs.get(table.lang)
        names = dict(table.names)
        waiting = game.awaiting()
        public = view_of(game)
        kb: ui.Keyboard | None = None
        question = ""
        if answers_at is not None:
            kb = tabletop.answer_buttons(t, table.game_id, answers_at, options, names)
            more = bool(set(waiting.players) - table.more_time_used)
            kb += self.table_rows(t, table.game_id, answers_at, more)
            target = _target_name(public, names)
            asked = len(waiting.players)
            question = ui.answers_question(t, waiting.window, options, asked, target)
        lines = self._story(t, table, story, told)
        shown = deadline_ms is not None
        text = tabletop.turn_message(t, public, names, lines, shown, question)
        text, offset = ui.take_moment(text)
        at = Moment(offset, deadline_ms) if offset is not None and shown else None
        return Edit(table.chat, turn_ref, text, kb, optional=optional, moment=at)

    def _turn_op(
        self,
        plan: Plan,
        table: Table,
        ref: str,
        new: bool,
        text: str,
        kb: ui.Keyboard | None,
        deadline: Deadline,
        riders: Riders | None = None,
    ) -> None:
        """Send the turn message `ref` (`new`; `riders` may ride at its top), or edit it.
        The deadline's moment marked in `text` is shown as the moment `deadline` starts
        when the message arrives (its delivery starts that deadline, or puts it later:
        never earlier than shown)."""
        text, offset = ui.take_moment(text)
        at = None if offset is None else Moment(offset, None, deadline.seconds)
        if new:
            plan.add(
                Send(
                    table.chat,
                    text,
                    kb,
                    ref,
                    table.thread,
                    deadline=deadline,
                    moment=at,
                    riders=riders,
                )
            )
        else:
            plan.add(Edit(table.chat, ref, text, kb, deadline=deadline, moment=at))

    # ---- one player's private chat ------------------------------------------------------
