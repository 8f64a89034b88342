"""Turn one engine step into its message plan, from what each recipient may know.

The group's turn message is sent when the group must pay attention and edited in place as
the turn unfolds, with the answers to a claim as its buttons (unless the group chose
answers in private); it ends with the turn's story, the table and who moves next. Each
player's private chat gets a new message only when they must act, each prompt closes when
its decision is made (a challenger's with the challenge's result), and nothing else is
sent there but secrets, notices, a knock-out and the winner's win.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..engine import Challenge, Decision, DecisionKind, Game, Pass, PlayerView, view_of
from ..engine import events as ev
from ..rendering import history, notices, prompting, tabletop, ui
from ..rendering.i18n import Catalogs, Translator
from ..rendering.texts import describe, involves, told
from .plan import Deadline, Edit, Fallback, Plan, Send
from .records import GameRecord, Timing

TURN_REF = "turn"
LOBBY_REF = "lobby"
# An edit that only says who may still answer waits this long for a newer one to replace
# it (answers come in bursts); the group is never further behind than that.
HOLD_MS = 1200
# A decision's deadline runs from when its prompt reaches Telegram. Until then it is this
# much later, so a prompt held back (a group's 20 a minute) never costs anyone their turn.
DELIVERY_GRACE_S = 60
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


def prompt_ref(user_id: int) -> str:
    """The message reference of a player's open prompt."""
    return f"prompt:{user_id}"


def seconds_for(timing: Timing, kind: DecisionKind | None) -> int:
    """The deadline of a decision kind (the settings table says which setting gives it)."""
    return timing.seconds(kind)


def group_send(
    record: GameRecord, text: str, ref: str | None = None, kb: ui.Keyboard | None = None
) -> Send:
    """A message to the game's group (in its forum topic, if any)."""
    return Send(record.chat_id, text, kb or None, ref, record.thread_id)


def group_edit(record: GameRecord, ref: str, text: str, kb: ui.Keyboard | None = None) -> Edit:
    """A new look for one of the group's messages."""
    return Edit(record.chat_id, ref, text, kb or None)


def answer_options(game: Game, players: Sequence[int]) -> list[Decision]:
    """The answers anyone awaited may give (Challenge, Block as ..., Pass), each once, in the
    order the engine offers them: the buttons of the group's turn message."""
    seen: list[Decision] = []
    for pid in players:
        for decision in view_of(game, pid).legal:
            if decision not in seen:
                seen.append(decision)
    return sorted(
        seen, key=lambda d: 0 if isinstance(d, Challenge) else 2 if isinstance(d, Pass) else 1
    )


class StepMessages:
    """Builds a step's message plan for a game record."""

    def __init__(self, catalogs: Catalogs, bot_username: str) -> None:
        self.catalogs = catalogs
        self.bot_username = bot_username
        self.hold_ms = HOLD_MS

    def unreachable_note(self, record: GameRecord, user_id: int) -> str:
        """What the group reads when a player cannot be written to privately."""
        t = self.catalogs.get(record.lang)
        seat = record.seat(user_id)
        player = seat.name if seat else str(user_id)
        return notices.unreachable_note(t, player, self.bot_username)

    def fallback(self, record: GameRecord, user_id: int) -> Fallback:
        """Where a refused private message is reported."""
        return Fallback(record.chat_id, record.thread_id, self.unreachable_note(record, user_id))

    def build(
        self,
        record: GameRecord,
        game: Game,
        events: list[ev.Event],
        now_ms: int,
        bluffs: str | None = None,
    ) -> Plan:
        """The plan of this step; updates record.prompts, context, deadline and the turn
        message's state in place. `bluffs` closes the final message: who bluffed."""
        plan = Plan()
        names = record.names()
        waiting = game.awaiting()
        # Only passes, and the window is still open: the same decision, fewer to wait for.
        # (The last pass on an Examine opens the target's choice with no event of its own.)
        same_context = (
            bool(events)
            and all(isinstance(e, ev.ResponsePassed) for e in events)
            and waiting.kind is DecisionKind.RESPONSE
        )
        seconds = seconds_for(record.timing, waiting.kind)
        if not same_context:
            record.context = game.version
            record.deadline_ms = None if game.over else now_ms + 1000 * (seconds + DELIVERY_GRACE_S)
        seconds_left = (
            None
            if record.deadline_ms is None
            else min(seconds, (record.deadline_ms - now_ms + 999) // 1000)
        )
        self._table(plan, record, game, events, names, seconds_left, same_context, bluffs)
        at_table = record.answers != "private"
        prompted = (
            set()
            if same_context or (at_table and waiting.kind is DecisionKind.RESPONSE)
            else set(waiting.players)
        )
        for seat in record.players:
            if not seat.ai:  # AI players read the game through the engine, not messages
                self._private(
                    plan, record, game, events, names, seat.id, seat.lang, prompted, same_context
                )
        return plan

    # ---- the group -----------------------------------------------------------------

    def _table(
        self,
        plan: Plan,
        record: GameRecord,
        game: Game,
        events: list[ev.Event],
        names: dict[int, str],
        seconds_left: int | None,
        same_context: bool,
        bluffs: str | None,
    ) -> None:
        """The group's turn message: closed with the table when a turn ends, else sent or
        edited with the turn so far and who may still answer."""
        t = self.catalogs.get(record.lang)
        public = view_of(game)
        turn_ended = False
        for e in told(events):
            if isinstance(e, ev.TurnStarted):
                if record.story:
                    claimed = history.claims_line(t, record.claims, names)
                    text = tabletop.turn_message(
                        t, public, names, record.story, seconds_left, True, claimed
                    )
                    self._turn_op(plan, record, text, None)
                record.story, record.turn_ref, record.table_context = [], None, None
                turn_ended = True
            elif e.recipient is None and not isinstance(e, ev.ResponsePassed):
                line = describe(e, t, names)
                if line:
                    record.story.append(line)
        if game.over:
            text = tabletop.game_over_message(t, public, names, record.story, bluffs or "")
            keyboard = tabletop.play_again_keyboard(t, record.id) + history.replay_button(
                t, record.id
            )
            self._turn_op(plan, record, text, keyboard)
            # Kept for Play again, which edits this message once more (without its button).
            record.story, record.table_context = [text], None
            return
        if turn_ended and not record.story:
            return  # the closed turn's message says who moves next
        waiting = game.awaiting()
        kb: ui.Keyboard | None = None
        deadline = None
        question = ""
        if waiting.kind is DecisionKind.RESPONSE and record.answers != "private":
            options = answer_options(game, waiting.players)
            kb = tabletop.answer_buttons(t, record.id, record.context, options, names)
            deadline = Deadline(record.context, seconds_for(record.timing, waiting.kind))
            question = ui.answers_question(t, waiting.window, options, len(waiting.players))
        record.table_context = record.context if kb else None
        text = tabletop.turn_message(
            t, public, names, record.story, seconds_left, False, question=question
        )
        self._turn_op(plan, record, text, kb, deadline, same_context)

    def turn_as_it_stands(self, record: GameRecord, game: Game, now_ms: int) -> Edit | None:
        """The group's turn message as it stands now (None between turns, or after the
        game), to show it in a chat that has no copy of it: a group that became a
        supergroup. The sender finds no such message there and sends it anew."""
        if record.turn_ref is None or game.over:
            return None
        t = self.catalogs.get(record.lang)
        names = record.names()
        waiting = game.awaiting()
        seconds = seconds_for(record.timing, waiting.kind)
        seconds_left = (
            None
            if record.deadline_ms is None
            else max(0, min(seconds, (record.deadline_ms - now_ms + 999) // 1000))
        )
        kb: ui.Keyboard | None = None
        if record.table_context is not None and record.table_context == record.context:
            options = answer_options(game, waiting.players)
            kb = tabletop.answer_buttons(t, record.id, record.context, options, names)
        text = tabletop.turn_message(t, view_of(game), names, record.story, seconds_left, False)
        return Edit(record.chat_id, record.turn_ref, text, kb)

    def _turn_op(
        self,
        plan: Plan,
        record: GameRecord,
        text: str,
        kb: ui.Keyboard | None,
        deadline: Deadline | None = None,
        waiting_only: bool = False,
    ) -> None:
        """Send the turn message, or edit it; an edit that only updates who may still
        answer (`waiting_only`) is held a moment and optional (see plan.Edit)."""
        if record.turn_ref is None:
            plan.add(Send(record.chat_id, text, kb, TURN_REF, record.thread_id, deadline=deadline))
            record.turn_ref = TURN_REF
        else:
            hold = self.hold_ms if waiting_only else 0
            plan.add(
                Edit(
                    record.chat_id,
                    record.turn_ref,
                    text,
                    kb,
                    hold,
                    waiting_only,
                    deadline=deadline,
                )
            )

    # ---- one player's private chat ------------------------------------------------------

    def _private(
        self,
        plan: Plan,
        record: GameRecord,
        game: Game,
        events: list[ev.Event],
        names: dict[int, str],
        user_id: int,
        lang: str,
        prompted: set[int],
        same_context: bool,
    ) -> None:
        t = self.catalogs.get(lang)
        waiting = game.awaiting()
        knocked_out = any(
            isinstance(e, ev.PlayerEliminated) and e.player == user_id for e in events
        )
        events = told(_without_repeats(events, user_id))
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
        open_context = record.prompts.get(user_id)
        closing = open_context is not None and (not same_context or user_id not in waiting.players)
        fallback = self.fallback(record, user_id)
        if user_id in prompted:
            view = view_of(game, user_id)
            # The prompt shows their hand: the deal line would say the same cards twice.
            hand_shown = [
                line
                for e in events
                if _concerns(e, user_id)
                and not isinstance(e, ev.CardsDealt)
                and (line := describe(e, t, names, user_id))
            ]
            screen = self._prompt(t, record, view, events, names, hand_shown)
            seconds = seconds_for(record.timing, waiting.kind)
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
                    deadline=Deadline(record.context, seconds),
                    fallback=fallback,
                )
            )
            record.prompts[user_id] = record.context
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
            del record.prompts[user_id]
            if secrets_here:
                plan.add(Send(user_id, "\n".join(secrets_here), fallback=fallback))
        elif secrets_here or knocked_out or won:
            plan.add(Send(user_id, "\n".join(own_lines), fallback=fallback))

    def _prompt(
        self,
        t: Translator,
        record: GameRecord,
        view: PlayerView,
        events: list[ev.Event],
        names: dict[int, str],
        own_lines: list[str],
    ) -> ui.Screen:
        kind = view.awaiting.kind
        asking = prompting.Asking(t, view, record.id, record.context, names)
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
