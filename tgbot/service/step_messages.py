"""Turn one engine step into the messages it produces: one per chat at most.

The group gets the public log of the step (and the table when a turn starts); each player
gets their private events and, when they must decide, a prompt with buttons. Prompts that
no longer apply are edited so no stale buttons stay live.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..engine import DecisionKind, Game
from ..engine import events as ev
from ..rendering import history, ui
from ..rendering.i18n import Catalogs, Translator
from ..rendering.texts import describe, involves
from .records import GameRecord, Timing

Op = dict[str, Any]

# The events by which a player answers or decides, and who decided: such a line closes
# that player's prompt.
_DECIDER = {
    ev.ResponsePassed: "player",
    ev.ChallengeDeclared: "challenger",
    ev.BlockDeclared: "blocker",
    ev.ActionDeclared: "actor",
    ev.CardRevealed: "player",
    ev.ExchangeKept: "player",
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


def prompt_ref(user_id: int) -> str:
    """The message reference of a player's open prompt."""
    return f"prompt:{user_id}"


def seconds_for(timing: Timing, kind: DecisionKind | None) -> int:
    """The deadline of a decision kind."""
    return {
        DecisionKind.TURN: timing.turn,
        DecisionKind.RESPONSE: timing.response,
        DecisionKind.LOSE_CARD: timing.lose_card,
        DecisionKind.EXCHANGE: timing.exchange,
    }.get(kind, timing.turn)  # type: ignore[arg-type]


def group_send(record: GameRecord, text: str, ref: str | None = None, kb: Any = None) -> Op:
    """A message to the game's group (in its forum topic, if any)."""
    return {
        "op": "send",
        "chat": record.chat_id,
        "thread": record.thread_id,
        "text": text,
        "kb": kb,
        "ref": ref,
    }


def private_send(
    record: GameRecord,
    user_id: int,
    text: str,
    kb: Any = None,
    ref: str | None = None,
    unreachable_note: str | None = None,
) -> Op:
    """A message to one player; if Telegram refuses (403), the group gets `unreachable_note`."""
    return {
        "op": "send",
        "chat": user_id,
        "thread": None,
        "text": text,
        "kb": kb,
        "ref": ref,
        "group": record.chat_id,
        "group_thread": record.thread_id,
        "unreachable": unreachable_note,
    }


def edit(chat_id: int, ref: str, text: str, kb: Any = None) -> Op:
    """Edit a message we sent before (found by its reference)."""
    return {"op": "edit", "chat": chat_id, "ref": ref, "text": text, "kb": kb}


def private_edit(
    record: GameRecord, user_id: int, ref: str, text: str, unreachable_note: str
) -> Op:
    """Edit a player's message; if Telegram refuses (403), the group gets `unreachable_note`
    (as for a message sent anew)."""
    op = edit(user_id, ref, text)
    op.update(group=record.chat_id, group_thread=record.thread_id, unreachable=unreachable_note)
    return op


@dataclass(slots=True)
class StepOutput:
    """The messages of a step and the prompt bookkeeping that goes with them."""

    ops: list[Op] = field(default_factory=list)


class StepMessages:
    """Builds a step's messages for a game record."""

    def __init__(self, catalogs: Catalogs, bot_username: str) -> None:
        self.catalogs = catalogs
        self.bot_username = bot_username

    def unreachable_note(self, record: GameRecord, user_id: int) -> str:
        """What the group reads when a player cannot be written to privately."""
        t = self.catalogs.get(record.lang)
        seat = record.seat(user_id)
        return t.gettext(
            "📵 I cannot write to {player}. Open https://t.me/{bot}?start=hi and press Start; "
            "until then their decisions time out."
        ).format(player=seat.name if seat else user_id, bot=self.bot_username)

    def build(
        self, record: GameRecord, game: Game, events: list[ev.Event], now_ms: int
    ) -> StepOutput:
        """Messages for this step; updates record.prompts, context and deadline in place."""
        out = StepOutput()
        names = record.names()
        same_context = bool(events) and all(isinstance(e, ev.ResponsePassed) for e in events)
        waiting = game.awaiting()
        if not same_context:
            record.context = game.version
            record.deadline_ms = (
                None if game.over else now_ms + 1000 * seconds_for(record.timing, waiting.kind)
            )
        seconds_left = (
            None if record.deadline_ms is None else (record.deadline_ms - now_ms + 999) // 1000
        )
        group_text = self._group_text(record, game, events, names, seconds_left)
        if group_text:
            out.ops.append(group_send(record, group_text))
        prompted = set(waiting.players) if not same_context else set()
        for seat in record.players:
            if seat.ai:
                continue  # AI players read the game through the engine, not through messages
            t = self.catalogs.get(seat.lang)
            own_lines = [
                line
                for e in events
                if _concerns(e, seat.id) and (line := describe(e, t, names, seat.id))
            ]
            open_context = record.prompts.get(seat.id)
            closing = open_context is not None and (
                not same_context or seat.id not in waiting.players
            )
            if seat.id in prompted:
                screen = self._prompt(t, record, game, seat.id, names, own_lines)
                op = private_send(
                    record,
                    seat.id,
                    screen.text,
                    screen.keyboard,
                    prompt_ref(seat.id),
                    self.unreachable_note(record, seat.id),
                )
                if closing:
                    # They were just looking at a question: the next one replaces it in
                    # place, one call instead of two.
                    op["op"] = "show"
                # Its deadline counts from when it reaches Telegram (the sender says so).
                op["starts_deadline"] = record.context
                op["seconds"] = seconds_for(record.timing, waiting.kind)
                out.ops.append(op)
                record.prompts[seat.id] = record.context
            elif closing:
                out.ops.append(
                    private_edit(
                        record,
                        seat.id,
                        prompt_ref(seat.id),
                        self._closing_text(t, events, names, seat.id),
                        self.unreachable_note(record, seat.id),
                    )
                )
                del record.prompts[seat.id]
            if (
                seat.id not in prompted
                and own_lines
                and any(e.recipient == seat.id or isinstance(e, ev.GameEnded) for e in events)
            ):
                out.ops.append(
                    private_send(
                        record,
                        seat.id,
                        "\n".join(own_lines),
                        unreachable_note=self.unreachable_note(record, seat.id),
                    )
                )
        return out

    def _group_text(
        self,
        record: GameRecord,
        game: Game,
        events: list[ev.Event],
        names: dict[int, str],
        seconds_left: int | None,
    ) -> str:
        t = self.catalogs.get(record.lang)
        lines = [
            line
            for e in events
            if e.recipient is None
            and not isinstance(e, ev.ResponsePassed)
            and (line := describe(e, t, names))
        ]
        if not lines:
            return ""
        if game.over:
            lines += ["", ui.final_text(t, game, names)]
            return "\n".join(lines)
        if any(isinstance(e, ev.TurnStarted) for e in events):
            lines += ["", ui.board_text(t, game, names)]
            if claimed := history.claims_line(t, record.claims, names):  # issue 19 hook
                lines.append(claimed)
        lines += ["", ui.status_text(t, game, names, seconds_left)]
        return "\n".join(lines)

    def _prompt(
        self,
        t: Translator,
        record: GameRecord,
        game: Game,
        user_id: int,
        names: dict[int, str],
        context_lines: list[str],
    ) -> ui.Screen:
        kind = game.awaiting().kind
        asking = ui.Asking(t, game, record.id, record.context, user_id, names)
        if kind is DecisionKind.TURN:
            screen = ui.turn_screen(asking)
            if context_lines:
                screen.text = "\n".join([*context_lines, screen.text])
            return screen
        if kind is DecisionKind.RESPONSE:
            return ui.response_screen(asking, context_lines)
        if kind is DecisionKind.LOSE_CARD:
            return ui.lose_screen(asking, context_lines)
        return ui.exchange_screen(asking, context_lines)

    def _closing_text(
        self, t: Translator, events: list[ev.Event], names: dict[int, str], user_id: int
    ) -> str:
        for e in events:
            attr = _DECIDER.get(type(e))
            if attr and getattr(e, attr) == user_id and (line := describe(e, t, names, user_id)):
                return line
        return t.gettext("☑️ This question is closed.")
