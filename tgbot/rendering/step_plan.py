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
    prompt_ref,
    turn_ref_of,
)
from ..engine import Decision, DecisionKind, Game, PlayerView, view_of
from ..engine import events as ev
from . import app_links, hand, history, notices, prompting, tabletop, ui
from .app_links import AppLinks
from .i18n import Catalogs, Translator
from .texts import Names, describe, involves
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

    def table_rows(self, t: Translator, game_id: str, context: int, more_time: bool) -> ui.Keyboard:
        """The live turn message's last rows: 👁 My cards (and ⏳ More time), then the
        Mini App's direct link when it is configured."""
        return hand.table_row(t, game_id, context, more_time) + self.app_row(t, game_id)

    def app_row(self, t: Translator, game_id: str) -> ui.Keyboard:
        """A group message's row to the Mini App on `game_id` ([] when not configured)."""
        return app_links.group_row(t, self.links, self.bot_username, game_id)

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
        if game.over:
            self._game_over(plan, outcome, public, turn_ref, legacy, told, bluffs, riders)
            return
        self._turn_now(plan, outcome, game, t, public, turn_ref, turns, legacy, told, riders)

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
        game: Game,
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
        waiting = game.awaiting()
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
            # The hand dealt stays readable in their chat: a message of their own, which
            # no later edit overwrites (the prompt is closed by an edit); the prompt under
            # it does not say the same cards again.
            dealt = any(isinstance(e, ev.CardsDealt) and e.recipient == user_id for e in events)
            if dealt:
                plan.add(Send(user_id, prompting.hand_text(t, view), fallback=fallback))
            # The prompt shows their hand: the deal line would say the same cards twice.
            hand_shown = [
                line
                for e in events
                if _concerns(e, user_id)
                and not isinstance(e, ev.CardsDealt)
                and (line := describe(e, t, names, user_id))
            ]
            screen = self._prompt(t, outcome, view, events, names, hand_shown, dealt)
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
            # Echoing their own choice is optional, the bot's lowest priority (sent only
            # while its 30 a second have room; the stale buttons answer "already
            # decided"); what else it tells them (a result, the clock, a knock-out, the
            # end) is not.
            echo = "\n" not in text and not any(
                isinstance(e, ev.DecisionTimedOut) and e.player == user_id for e in events
            )
            if out_line:
                text += "\n" + out_line
            if end_line:
                text += "\n" + end_line
            optional = echo and not (out_line or end_line)
            plan.add(Edit(user_id, prompt_ref(user_id), text, optional=optional, fallback=fallback))
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
        hand_above: bool,
    ) -> ui.Screen:
        kind = view.awaiting.kind
        asking = prompting.Asking(
            t, view, outcome.table.game_id, outcome.context, names, hand_above
        )
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
