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

from ..engine import Decision, DecisionKind, Game, PlayerView, game_from_dict, game_to_dict, view_of
from ..engine import events as ev
from ..service.plan import BUTTONS, END, Deadline, Edit, Fallback, Moment, Plan, Send
from ..service.steps import (
    BOARD_EVERY,
    END_REF,
    Claim,
    StepOutcome,
    Table,
    Tail,
    prompt_ref,
    turn_ref_of,
)
from . import app_links, hand, history, notices, prompting, tabletop, ui
from .app_links import AppLinks
from .i18n import Catalogs, Translator
from .texts import Names, describe, involves
from .texts import told as worth_a_line

# An edit that only says who may still answer waits this long for a newer one to replace
# it (answers come in bursts); the group is never further behind than that.
HOLD_MS = 1200

# The events by which a player answers or decides, and who decided: such a line closes
# that player's prompt.
_DECIDER = {
    ev.ResponsePassed: "player",
    ev.ChallengeDeclared: "challenger",
    ev.EmbezzlementChallenged: "challenger",
    ev.BlockDeclared: "blocker",
    ev.ActionDeclared: "actor",
    ev.CardRevealed: "player",
    ev.ExchangeKept: "player",
    ev.CardShown: "target",
    ev.CardShownTo: "recipient",  # the target's own line, when it replaces CardShown
    ev.ExamineDecided: "actor",
    ev.DecisionTimedOut: "player",
    ev.PlayerLeft: "player",
}


def _concerns(event: ev.Event, user_id: int) -> bool:
    """Whether a player's private chat tells them of this event."""
    if event.recipient is not None:
        return event.recipient == user_id
    if isinstance(event, ev.GameEnded):
        return True
    return not isinstance(event, ev.ResponsePassed) and involves(event, user_id)


def _without_repeats(events: list[ev.Event], user_id: int) -> list[ev.Event]:
    """The events of a player's private chat, less what another line there says again:
    the examiner's "X shows you a card" when "X shows you: <card>" follows, and the
    target's "you show a card" when "X sees your card: <card>" follows."""
    examiner = any(isinstance(e, ev.ExaminedCard) and e.recipient == user_id for e in events)
    target = any(isinstance(e, ev.CardShownTo) and e.recipient == user_id for e in events)
    if not (examiner or target):
        return events
    return [
        e
        for e in events
        if not (
            isinstance(e, ev.CardShown)
            and ((examiner and e.actor == user_id) or (target and e.target == user_id))
        )
    ]


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
        self.hold_ms = HOLD_MS

    def table_rows(self, t: Translator, game_id: str, context: int, more_time: bool) -> ui.Keyboard:
        """The live turn message's last rows: 👁 My cards (and ⏳ More time), then the
        Mini App's direct link when it is configured."""
        return hand.table_row(t, game_id, context, more_time) + app_links.group_row(
            t, self.links, self.bot_username, game_id
        )

    def unreachable_note(self, table: Table, user_id: int) -> str:
        """What the group reads when a player cannot be written to privately."""
        t = self.catalogs.get(table.lang)
        player = table.names.get(user_id, str(user_id))
        return notices.unreachable_note(t, player, self.bot_username)

    def fallback(self, table: Table, user_id: int) -> Fallback:
        """Where a refused private message is reported."""
        return Fallback(table.chat, table.thread, self.unreachable_note(table, user_id))

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
            self._private(plan, outcome, game, events, reader.id, reader.lang)
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
        """The group's turn message: closed when a turn ends (its story, the seats it
        changed, whose turn it is next), else sent or edited with the turn so far and who
        must decide until when; the game's end is a message of its own. A closed turn's
        "whose turn" line goes once the next turn's message is out (`service/advance.py`
        keeps that line's facts, `Tail`, and follows the same steps)."""
        table = outcome.table
        t = self.catalogs.get(table.lang)
        public = view_of(game)
        legacy, told = list(outcome.story), list(outcome.told)
        turn_ref, tail, turns = outcome.turn_ref, outcome.tail, outcome.turns
        # Older closed turns whose "whose turn" line goes: after the messages that replace
        # it are queued (each turn's message has its own reference).
        dropped: list[Tail] = []
        for e in events:
            if isinstance(e, ev.TurnStarted):
                if legacy or told:
                    if turn_ref is None and tail is not None:
                        dropped.append(tail)
                    tail = Tail(
                        turn_ref or turn_ref_of(turns),
                        tuple(legacy),
                        tuple(told),
                        game_to_dict(game),
                        table.claims,
                        turns % BOARD_EVERY == 0,
                    )
                    text = self._closed_text(t, table, public, tail, with_tail=True)
                    deadline = Deadline(outcome.context, outcome.seconds)
                    self._turn_op(plan, table, tail.ref, turn_ref is None, text, None, deadline)
                legacy, told, turn_ref = [], [], None
                turns += 1
            elif e.recipient is None and not isinstance(e, ev.ResponsePassed):
                told.append(e)
        if game.over:
            self._game_over(plan, outcome, public, turn_ref, tail, legacy, told, bluffs)
            self._drop_tails(plan, table, dropped)
            return
        if outcome.turn_shown and turn_ref is None and tail is not None:
            dropped.append(tail)
        self._turn_now(plan, outcome, game, t, public, turn_ref, turns, legacy, told)
        self._drop_tails(plan, table, dropped)

    def _turn_now(
        self,
        plan: Plan,
        outcome: StepOutcome,
        game: Game,
        t: Translator,
        public: PlayerView,
        turn_ref: str | None,
        turns: int,
        legacy: list[str],
        told: list[ev.Event],
    ) -> None:
        """The current turn's message: sent or edited with the turn so far, its answers
        and its deadline (nothing when the closed turn's message says who moves next)."""
        if not outcome.turn_shown:
            return
        table = outcome.table
        names = dict(table.names)
        story = self._story(t, table, legacy, told)
        waiting = game.awaiting()
        kb: ui.Keyboard | None = None
        question = ""
        if outcome.answer_options:
            options = outcome.answer_options
            kb = tabletop.answer_buttons(t, table.game_id, outcome.context, options, names)
            target = _target_name(public, names)
            asked = len(waiting.players)
            question = ui.answers_question(t, waiting.window, options, asked, target)
        if kb is not None:  # 👁 My cards and ⏳ More time ride on the answer buttons only
            more = bool(set(waiting.players) - table.more_time_used)
            kb = kb + self.table_rows(t, table.game_id, outcome.context, more)
        if not outcome.same_context:
            text = tabletop.turn_message(t, public, names, story, True, question)
            deadline = Deadline(outcome.context, outcome.seconds)
            ref = turn_ref or turn_ref_of(turns)
            self._turn_op(plan, table, ref, turn_ref is None, text, kb, deadline)
            return
        # Only passes: the message changes only when it names who may still answer (the
        # last few) or its buttons change.
        named_before = outcome.awaited_before <= tabletop.NAMED_ANSWERERS
        named_now = len(waiting.players) <= tabletop.NAMED_ANSWERERS
        if not (named_before or named_now or outcome.answers_changed):
            return
        settled = outcome.deadline_settled and outcome.deadline_ms is not None
        text = tabletop.turn_message(t, public, names, story, settled, question)
        text, offset = ui.take_moment(text)
        at = Moment(offset, outcome.deadline_ms) if offset is not None and settled else None
        assert turn_ref is not None  # the same decision: its message was sent
        # Naming the last few first may wait for room in the group's minute (nothing
        # false is shown meanwhile); taking a name off that is shown may not.
        optional = not named_before and not outcome.answers_changed
        plan.add(Edit(table.chat, turn_ref, text, kb, self.hold_ms, optional, moment=at))

    def _story(
        self, t: Translator, table: Table, legacy: Sequence[str], told: Sequence[ev.Event]
    ) -> list[str]:
        """A turn's story lines; the game's first also seals the shuffle (its commitment)."""
        lines = story_lines(t, dict(table.names), legacy, told)
        if table.commitment and any(isinstance(e, ev.GameStarted) for e in told):
            lines.append(history.shuffle_sealed(t, table.commitment))
        return lines

    def _closed_text(
        self, t: Translator, table: Table, view: PlayerView, tail: Tail, with_tail: bool
    ) -> str:
        """A closed turn's message (with whose turn it is next, marked for its moment)."""
        names = dict(table.names)
        told = [e for e in tail.told if not isinstance(e, ev.GameEnded)]
        lines = self._story(t, table, tail.story, told)
        living = {p.id for p in view.seats if p.cards_down}
        claims = history.claims_line(t, tail.claims, names, living) if tail.board else ""
        return tabletop.closed_turn_message(
            t, view, names, lines, told, tail.board, claims, with_tail
        )

    def _drop_tails(self, plan: Plan, table: Table, tails: Sequence[Tail]) -> None:
        """Older closed turns' messages lose their "whose turn" line: the next turn's
        message (or the end) is queued before. The lane may leave this edit behind
        (optional): with the group's minute short, the new message and the answers come
        first; but it goes in the class of an edit that changes buttons, not with a
        status edit's leftovers, which a game at a table's pace never leaves (it still
        replaces, and stays as required as, a waiting edit of its message)."""
        for tail in tails:
            plan.add(self.tail_dropped(table, tail, optional=True))

    def tail_dropped(self, table: Table, tail: Tail, optional: bool = False) -> Edit:
        """A closed turn's message without its "whose turn" line (the next turn's message
        is out, or the game closed)."""
        t = self.catalogs.get(table.lang)
        view = view_of(game_from_dict(dict(tail.engine)))
        text = self._closed_text(t, table, view, tail, with_tail=False)
        if optional:
            return Edit(table.chat, tail.ref, text, optional=True, priority=BUTTONS)
        return Edit(table.chat, tail.ref, text)

    def _game_over(
        self,
        plan: Plan,
        outcome: StepOutcome,
        public: PlayerView,
        turn_ref: str | None,
        tail: Tail | None,
        legacy: list[str],
        told: list[ev.Event],
        bluffs: Sequence[Claim] | None,
    ) -> None:
        """The end comes as a new message, which rings: the winner, every card, who
        claimed what, Play again and Replay; a last turn that had no message yet tells its
        story at its top. Then the last turn's message closes (its story, no "whose turn",
        no buttons), or the older closed turn's loses its "whose turn" line."""
        table = outcome.table
        t = self.catalogs.get(table.lang)
        names = dict(table.names)
        story = [] if turn_ref is not None else self._end_story(t, table, legacy, told)
        summary = "" if bluffs is None else history.bluff_summary(t, bluffs, names)
        text = tabletop.game_over_message(t, public, names, story, summary, seed_line(t, table))
        keyboard = tabletop.play_again_keyboard(t, table.game_id) + history.replay_button(
            t, table.game_id
        )
        # First in the group's minute, and first in its lane: the end goes out within
        # seconds however busy the group is (its one reserved slot is not spent on an
        # edit of an older message queued before it; those follow, in their own class).
        plan.add(Send(table.chat, text, keyboard, END_REF, table.thread, priority=END))
        if turn_ref is not None:
            last = Tail(turn_ref, tuple(legacy), tuple(told), {}, table.claims, False)
            text = self._closed_text(t, table, public, last, with_tail=False)
            plan.add(Edit(table.chat, turn_ref, text))
        elif tail is not None:
            self._drop_tails(plan, table, [tail])

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

    def tail_as_it_stands(self, table: Table, tail: Tail, deadline_ms: int) -> Edit:
        """A closed turn's message that still says whose turn it is, with that deadline's
        moment now at `deadline_ms` (⏳ More time): optional, a newer state replaces it."""
        t = self.catalogs.get(table.lang)
        view = view_of(game_from_dict(dict(tail.engine)))
        text, offset = ui.take_moment(self._closed_text(t, table, view, tail, with_tail=True))
        at = None if offset is None else Moment(offset, deadline_ms)
        return Edit(table.chat, tail.ref, text, optional=True, moment=at)

    def _turn_op(
        self,
        plan: Plan,
        table: Table,
        ref: str,
        new: bool,
        text: str,
        kb: ui.Keyboard | None,
        deadline: Deadline,
    ) -> None:
        """Send the turn message `ref` (`new`), or edit it. The deadline's moment marked in
        `text` is shown as the moment `deadline` starts when the message arrives (its
        delivery starts that deadline, or puts it later: never earlier than shown)."""
        text, offset = ui.take_moment(text)
        at = None if offset is None else Moment(offset, None, deadline.seconds)
        if new:
            plan.add(Send(table.chat, text, kb, ref, table.thread, deadline=deadline, moment=at))
        else:
            plan.add(Edit(table.chat, ref, text, kb, deadline=deadline, moment=at))

    # ---- one player's private chat ------------------------------------------------------

    def _private(
        self,
        plan: Plan,
        outcome: StepOutcome,
        game: Game,
        events: list[ev.Event],
        user_id: int,
        lang: str,
    ) -> None:
        table = outcome.table
        t = self.catalogs.get(lang)
        names = dict(table.names)
        knocked_out = any(
            isinstance(e, ev.PlayerEliminated) and e.player == user_id for e in events
        )
        events = worth_a_line(_without_repeats(events, user_id))
        own_lines = [
            line
            for e in events
            if _concerns(e, user_id) and (line := describe(e, t, names, user_id))
        ]
        # Knocked out: told in their own chat (an edit of their open prompt, else a message).
        out_line = next(
            (
                describe(e, t, names, user_id)
                for e in events
                if isinstance(e, ev.PlayerEliminated) and e.player == user_id
            ),
            None,
        )
        # The game's last line, in the chats that get a message as it ends: the winner's
        # (their win) and the chat of whoever the last step knocked out.
        ended = next((e for e in events if isinstance(e, ev.GameEnded)), None)
        won = ended is not None and ended.winner == user_id
        end_line = describe(ended, t, names, user_id) if ended and (won or knocked_out) else None
        closing = user_id in outcome.closing
        fallback = self.fallback(table, user_id)
        if user_id in outcome.prompted:
            view = view_of(game, user_id)
            # The prompt shows their hand: the deal line would say the same cards twice.
            hand_shown = [
                line
                for e in events
                if _concerns(e, user_id)
                and not isinstance(e, ev.CardsDealt)
                and (line := describe(e, t, names, user_id))
            ]
            screen = self._prompt(t, outcome, view, events, names, hand_shown)
            if user_id not in table.more_time_used:
                screen.keyboard += hand.prompt_row(t, table.game_id, outcome.context)
            screen.keyboard += app_links.private_row(t, self.links, table.game_id)
            plan.add(
                Send(
                    user_id,
                    screen.text,
                    screen.keyboard,
                    prompt_ref(user_id),
                    # They were just looking at a question: the next one replaces it in
                    # place, one call instead of two.
                    in_place=closing,
                    # Its deadline counts from when it reaches Telegram (the sender says so).
                    deadline=Deadline(outcome.context, outcome.seconds),
                    fallback=fallback,
                )
            )
            return
        secrets_here = [
            line
            for e in events
            if e.recipient == user_id and (line := describe(e, t, names, user_id))
        ]
        if closing:
            text = self._closing_text(t, events, names, user_id)
            secrets_here = [line for line in secrets_here if line != text]  # said already
            if out_line:
                text += "\n" + out_line
            if end_line:
                text += "\n" + end_line
            plan.add(Edit(user_id, prompt_ref(user_id), text, fallback=fallback))
            if secrets_here:
                plan.add(Send(user_id, "\n".join(secrets_here), fallback=fallback))
        elif secrets_here or knocked_out or won:
            plan.add(Send(user_id, "\n".join(own_lines), fallback=fallback))

    def _prompt(
        self,
        t: Translator,
        outcome: StepOutcome,
        view: PlayerView,
        events: list[ev.Event],
        names: dict[int, str],
        own_lines: list[str],
    ) -> ui.Screen:
        kind = view.awaiting.kind
        asking = prompting.Asking(t, view, outcome.table.game_id, outcome.context, names)
        if kind is DecisionKind.TURN:
            screen = prompting.turn_screen(asking)
            if own_lines:
                screen.text = "\n".join([*own_lines, screen.text])
            return screen
        if kind is DecisionKind.RESPONSE:
            # Answers in private: the prompt says what it answers (the claim, in words).
            said = [
                line
                for e in events
                if e.recipient in (None, view.viewer)
                and not isinstance(e, ev.ResponsePassed)
                and (line := describe(e, t, names, view.viewer))
            ]
            return prompting.response_screen(asking, said)
        if kind is DecisionKind.LOSE_CARD:
            return prompting.lose_screen(asking, own_lines)
        if kind is DecisionKind.SHOW_CARD:
            return prompting.show_screen(asking, own_lines)
        if kind is DecisionKind.EXAMINE:
            return prompting.examine_screen(asking, own_lines)
        return prompting.exchange_screen(asking, own_lines)

    def _closing_text(
        self, t: Translator, events: list[ev.Event], names: dict[int, str], user_id: int
    ) -> str:
        for i, e in enumerate(events):
            attr = _DECIDER.get(type(e))
            if attr and getattr(e, attr) == user_id and (line := describe(e, t, names, user_id)):
                if isinstance(e, ev.DecisionTimedOut):
                    # The clock decided for them: say what it did (the action taken in their
                    # name, their removal, or the card it turned up), as the group is told.
                    said = (
                        ev.ActionDeclared | ev.PlayerLeft | ev.CardRevealed
                        if e.decision is DecisionKind.LOSE_CARD
                        else ev.ActionDeclared | ev.PlayerLeft
                    )
                    done = [
                        more
                        for later in events[i + 1 :]
                        if isinstance(later, said)
                        and getattr(later, _DECIDER[type(later)]) == user_id
                        and (more := describe(later, t, names, user_id))
                    ]
                    return "\n".join([line, *done])
                if isinstance(e, ev.ChallengeDeclared | ev.EmbezzlementChallenged):
                    # Their own challenge: its result, read nowhere else by them when the
                    # answers are given in private (their knock-out and the game's end are
                    # added by the caller).
                    done = [
                        more
                        for later in events[i + 1 :]
                        if later.recipient is None
                        and not isinstance(later, ev.PlayerEliminated | ev.GameEnded)
                        and _concerns(later, user_id)
                        and (more := describe(later, t, names, user_id))
                    ]
                    return "\n".join([line, *done])
                return line
        return notices.question_closed(t)
