"""A step's private messages, one reader at a time: the lines of their chat, their prompt
sent, shown in place or closed (the private side of `step_plan`)."""

from __future__ import annotations

from ..contract.plan import Deadline, Edit, Fallback, Plan, Send
from ..contract.steps import StepOutcome, Table, prompt_ref
from ..engine import DecisionKind, Game, PlayerView, view_of
from ..engine import events as ev
from . import app_links, hand, notices, prompting, ui
from .app_links import AppLinks
from .i18n import Catalogs, Translator
from .texts import describe, involves
from .texts import told as worth_a_line

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


class PrivatePlanner:
    """Writes each reader's private part of a step's plan."""

    def __init__(self, catalogs: Catalogs, bot_username: str, links: AppLinks) -> None:
        self.catalogs = catalogs
        self.bot_username = bot_username
        self.links = links

    def unreachable_note(self, table: Table, user_id: int) -> str:
        """What the group reads when a player cannot be written to privately."""
        t = self.catalogs.get(table.lang)
        player = table.names.get(user_id, str(user_id))
        return notices.unreachable_note(t, player, self.bot_username)

    def fallback(self, table: Table, user_id: int) -> Fallback:
        """Where a refused private message is reported."""
        return Fallback(table.chat, table.thread, self.unreachable_note(table, user_id))

    def add(
        self,
        plan: Plan,
        outcome: StepOutcome,
        game: Game,
        events: list[ev.Event],
        user_id: int,
        lang: str,
    ) -> None:
        """Add to `plan` what one reader's private chat gets of this step, in `lang`: the
        hand dealt, the lines that concern them and their secrets, and their prompt, sent
        (in place of the last when they were answering one) or closed with what they
        decided."""
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
