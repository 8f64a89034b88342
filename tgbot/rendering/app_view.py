"""The Mini App's view of a game (JSON for the page), in the reader's language.

What it shows comes from `view_of` for the reader (a seated player still in the game) or
the public view (spectators and players who are out): the same check as the chat's texts.
The page escapes every string; names travel as plain text.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..contract import callbacks
from ..contract.languages import N_
from ..engine import (
    VARIANT_ACTIONS,
    Action,
    Allegiance,
    Block,
    Challenge,
    Character,
    Decision,
    DecisionKind,
    KeepCards,
    PlayerView,
    TakeAction,
    Variant,
    Window,
)
from ..engine import events as ev
from . import prompting
from .history import bluff_summary, claim_lines
from .i18n import Translator
from .prompting import target_label
from .tabletop import final_text, status_text
from .texts import (
    ALLEGIANCE_NAMES,
    Names,
    action_name,
    character_name,
    describe,
    told,
    variant_name,
)
from .ui import ACTION_BUTTONS, ALLEGIANCE_MARKS, decision_label

LOG_LINES = 80  # the log's latest lines the page gets
NONE = "—"

# The page's own words (msgids), rendered for each view.
PAGE_TEXTS: dict[str, str] = {
    "your_cards": N_("🂠 Your cards"),
    "table": N_("🪑 The table"),
    "log": N_("📜 The game so far"),
    "claims": N_("🗣 Claims"),
    "waiting": N_("⏳ Waiting for"),
    "out": N_("💀 You are out of this game: you see what everyone sees."),
    "spectator": N_("👀 You are watching: you see what everyone sees."),
    "play_again": N_("🆕 Play again"),
    "replay": N_("📜 Replay"),
    "seconds": N_("{seconds} s"),
    "refused": N_("Not accepted."),
    "back": N_("« Back"),
    "recent": N_("🕑 Just now"),
}

# The API's error reasons (docs/webapp-api.md), each said in words: the page shows these,
# never the reason itself. "offline" is the page's own: no answer came at all.
_SIGNATURE = N_(
    "🔒 Telegram's signature on this page does not check out. Open it again from the bot."
)
_EXPIRED = N_("⌛ This page was opened too long ago: close it and open it again from the bot.")
_GARBLED = N_("⚠️ That did not reach the bot whole. Try again.")
_AWAY = N_("⚠️ The bot cannot answer right now. Try again in a moment.")
ERROR_TEXTS: dict[str, str] = {
    "no init data": N_("🔒 Open this page from Telegram: the bot's 🃏 Table button or link."),
    "malformed init data": _SIGNATURE,
    "bad signature": _SIGNATURE,
    "no auth date": _SIGNATURE,
    "no user": _SIGNATURE,
    "expired": _EXPIRED,
    "bad ticket": _EXPIRED,
    "too fast": N_("Too fast: wait a moment."),
    "no game": N_("🤷 You are in no game now. Open a game with /newgame in a group."),
    "bad game": N_("🤷 No such game. Open the page from the game's message."),
    "bad request": _GARBLED,
    "bad after": _GARBLED,
    "too large": _GARBLED,
    "too slow": _GARBLED,
    "unavailable": _AWAY,
    "too many streams": _AWAY,
    "busy": N_("⏳ Still busy with your last tap."),
    "offline": N_("📡 No connection to the bot: trying again."),
}

RECENT_LINES = 3  # the log's latest lines shown at the top of the page


@dataclass(frozen=True, slots=True)
class GameFacts:
    """What the page is told about a game besides the engine's view: kept in its record."""

    game_id: str
    revision: int
    status: str  # lobby, playing, over, cancelled
    variant: Variant
    names: Names
    deadline_ms: int | None
    claims: Mapping[str, Mapping[str, int]]
    steps: Sequence[Sequence[ev.Event]]  # every step's events so far ([] if unknown)
    turn_events: Sequence[ev.Event]  # the current turn's public events
    bluffs: Sequence[tuple[int, Character, int, bool]] | None = None


def app_view(
    t: Translator, facts: GameFacts, view: PlayerView | None, reader: int, seated: bool
) -> dict[str, Any]:
    """The page's JSON: `view` is what the reader may know (`view.viewer` the reader when
    they play on, None for the public view); None while the game is a lobby."""
    names = facts.names
    viewer = None if view is None else view.viewer
    me_seat = None
    if view is not None and seated:
        me_seat = next((s for s in view.seats if s.id == reader), None)
    out = seated and me_seat is not None and not me_seat.alive and view is not None
    cards: list[dict[str, str]] = []
    if view is not None and viewer == reader:
        cards = [card(t, c, facts.variant) for c in view.my_cards]
    seats: list[dict[str, Any]] = []
    if view is not None:
        for s in view.seats:
            seats.append(
                {
                    "id": s.id,
                    "name": names.get(s.id, str(s.id)),
                    "coins": s.coins,
                    "face_down": s.cards_down,
                    "face_up": [character_name(t, c) for c in s.revealed],
                    "side": None if s.allegiance is None else s.allegiance.value,
                    "side_label": side_label(t, s.allegiance),
                    "out": not s.alive,
                    "turn": s.id == view.actor and view.winner is None,
                    "me": s.id == reader,
                }
            )
    else:
        seats = [
            {
                "id": pid,
                "name": name,
                "coins": 0,
                "face_down": 0,
                "face_up": [],
                "side": None,
                "side_label": None,
                "out": False,
                "turn": False,
                "me": pid == reader,
            }
            for pid, name in names.items()
        ]
    awaiting = view.awaiting if view is not None else None
    mine = (
        view is not None and viewer == reader and reader in (awaiting.players if awaiting else ())
    )
    waiting = [p for p in (awaiting.players if awaiting else ()) if not (mine and p == reader)]
    log = log_lines(t, facts.steps, names, viewer)
    return {
        "game": facts.game_id,
        "revision": facts.revision,
        "lang": t.language,
        "variant": facts.variant.value,
        "phase": phase(facts.status, view),
        "title": t.gettext("🎲 Coup · {variant}").format(variant=variant_name(t, facts.variant)),
        "me": {
            "id": reader,
            "seated": seated,
            "out": out,
            "coins": None if me_seat is None else me_seat.coins,
            "side": None
            if me_seat is None or me_seat.allegiance is None
            else me_seat.allegiance.value,
            "side_label": None if me_seat is None else side_label(t, me_seat.allegiance),
            "cards": cards,
        },
        "seats": seats,
        "reserve": view.reserve if view is not None and facts.variant.reformation else None,
        "deck": 0 if view is None else view.deck_size,
        "header": header(t, facts, view, mine),
        "recent": log[-RECENT_LINES:],
        "claim": claim_line(t, facts, view),
        "waiting_for": [names.get(p, str(p)) for p in waiting],
        "deadline_ms": facts.deadline_ms if facts.status == "playing" else None,
        "question": question(t, view, names) if mine and view is not None else None,
        "choices": choices(t, view, names) if mine and view is not None else [],
        "decisions": decisions(t, view, names) if mine and view is not None else [],
        "log": log,
        # The page titles the list itself ("🗣 Claims"): no heading line in it.
        "claims": claim_lines(t, facts.claims, names),
        "over": over(t, facts, view),
        "texts": page_texts(t),
    }


def page_texts(t: Translator) -> dict[str, Any]:
    """The page's own words, and its error texts by the API's reasons."""
    texts: dict[str, Any] = {key: t.gettext(msgid) for key, msgid in PAGE_TEXTS.items()}
    texts["errors"] = {reason: t.gettext(msgid) for reason, msgid in ERROR_TEXTS.items()}
    return texts


def header(t: Translator, facts: GameFacts, view: PlayerView | None, mine: bool) -> dict[str, Any]:
    """What the reader must decide now, said to them (`mine`), or who the game waits for."""
    if facts.status == "lobby" or view is None:
        texts = {
            "lobby": t.gettext("🎲 The game has not started: join it in the group."),
            "cancelled": t.gettext("✖️ The game was cancelled."),
        }
        return {"text": texts.get(facts.status, texts["cancelled"]), "mine": False}
    if view.winner is not None:
        winner = facts.names.get(view.winner, str(view.winner))
        return {"text": t.gettext("🏆 {winner} wins!").format(winner=winner), "mine": False}
    if facts.status != "playing":
        return {"text": t.gettext("✖️ The game was cancelled."), "mine": False}
    if not mine:
        text = status_text(t, view, facts.names, moment=False, name_answerers=True)
        return {"text": text, "mine": False}
    return {"text": own_header(t, view, facts.names), "mine": True}


def own_header(t: Translator, view: PlayerView, names: Names) -> str:
    """The header of the reader's own decision."""
    kind = view.awaiting.kind
    if kind is DecisionKind.TURN:
        return t.gettext("▶️ Your turn")
    if kind is DecisionKind.RESPONSE:
        legal = view.legal
        can_challenge = any(isinstance(d, Challenge) for d in legal)
        can_block = any(isinstance(d, Block) for d in legal)
        if view.awaiting.window is Window.BLOCK_CHALLENGE:
            return t.gettext("❓ You are asked: challenge the block?")
        if can_challenge and can_block:
            return t.gettext("❓ You are asked: challenge, block or pass?")
        if can_challenge:
            return t.gettext("❓ You are asked: challenge?")
        return t.gettext("❓ You are asked: block?")
    if kind is DecisionKind.LOSE_CARD:
        return t.gettext("🔻 Choose a card to lose")
    if kind is DecisionKind.EXCHANGE:
        keep = next((len(d.cards) for d in view.legal if isinstance(d, KeepCards)), 1)
        return t.ngettext("🔄 Keep {n} card", "🔄 Keep {n} cards", keep).format(n=keep)
    if kind is DecisionKind.SHOW_CARD:
        actor = names.get(view.actor or 0, "")
        return t.gettext("👁 {actor} examines you: show a card").format(actor=actor)
    target = names.get(view.target or 0, "")
    return t.gettext("🔍 {target}'s card: keep it or make them swap?").format(target=target)


def question(t: Translator, view: PlayerView, names: Names) -> str | None:
    """The question over the reader's choices, as their private prompt asks it (None for
    an answer to a claim: the header asks it, over the claim)."""
    kind = view.awaiting.kind
    if kind is DecisionKind.TURN:
        if prompting.forced_coup(view.legal):
            return prompting.forced_coup_question(t)
        return t.gettext("Choose an action:")
    if kind is DecisionKind.RESPONSE:
        return None
    if kind is DecisionKind.LOSE_CARD:
        return prompting.lose_question(t)
    if kind is DecisionKind.EXCHANGE:
        return prompting.keep_question(t, view)
    if kind is DecisionKind.SHOW_CARD:
        return prompting.show_question(t, view, names)
    seen = prompting.examined_line(t, view, names)
    asked = prompting.examine_question(t, view, names)
    return asked if seen is None else seen + "\n" + asked


def choices(t: Translator, view: PlayerView, names: Names) -> list[dict[str, Any]]:
    """The reader's choices as the chat gives them: on a turn one per action, a targeted
    action with its question and its targets (each with their coins and face-down cards);
    else one per decision."""
    seats = [s.id for s in view.seats]
    if view.awaiting.kind is not DecisionKind.TURN:
        return [
            {"label": label(t, d, view, names), "code": callbacks.encode_decision(d, seats)}
            for d in view.legal
        ]
    table = VARIANT_ACTIONS[view.variant]
    out: list[dict[str, Any]] = []
    by_action: dict[Action, dict[str, Any]] = {}
    for d in view.legal:
        assert isinstance(d, TakeAction)
        if not table[d.action].targeted:
            button = ACTION_BUTTONS[d.action](t)
            out.append({"label": button, "code": callbacks.encode_decision(d, seats)})
            continue
        choice = by_action.get(d.action)
        if choice is None:
            choice = by_action[d.action] = {
                "label": ACTION_BUTTONS[d.action](t),
                "question": prompting.target_question(t, d.action),
                "targets": [],
            }
            out.append(choice)
        choice["targets"].append(target(t, d, view, names, seats))
    return out


def target(
    t: Translator, d: TakeAction, view: PlayerView, names: Names, seats: list[int]
) -> dict[str, Any]:
    """One target of an action: its code, name, coins and face-down cards."""
    assert d.target is not None and view.viewer is not None
    seat = view.seat(d.target)
    name = names.get(d.target, str(d.target))
    if d.action is Action.CONVERT and d.target == view.viewer:
        name = t.gettext("🔀 Myself (1 coin)")
    elif d.action is Action.CONVERT:
        name += " (2)"
    return {
        "code": callbacks.encode_decision(d, seats),
        "name": name,
        "coins": seat.coins,
        "face_down": seat.cards_down,
        "side": None if seat.allegiance is None else seat.allegiance.value,
        "side_label": side_label(t, seat.allegiance),
    }


def card(t: Translator, character: Character, variant: Variant) -> dict[str, str]:
    """One face-down card: its character, what it lets you do and what it blocks."""
    table = VARIANT_ACTIONS[variant]
    does = [a for a, spec in table.items() if spec.claim is character and not spec.inverted]
    blocks = [a for a, spec in table.items() if character in spec.blockers]
    return {
        "character": character.value,
        "name": character_name(t, character),
        "does": _actions(t, does),
        "blocks": _actions(t, blocks),
    }


def _actions(t: Translator, actions: Iterable[Action]) -> str:
    return ", ".join(action_name(t, a) for a in actions) or NONE


def side_label(t: Translator, side: Allegiance | None) -> str | None:
    """A side's mark and name ("🔵 Loyalist")."""
    if side is None:
        return None
    return f"{ALLEGIANCE_MARKS[side]} {t.gettext(ALLEGIANCE_NAMES[side])}"


def phase(status: str, view: PlayerView | None) -> str:
    """lobby, over, cancelled, or what the game waits for (turn, response, lose_card, ...)."""
    if status != "playing" or view is None:
        return status
    if view.winner is not None or view.awaiting.kind is None:
        return "over"
    return view.awaiting.kind.value


def decisions(t: Translator, view: PlayerView, names: Names) -> list[dict[str, str]]:
    """The reader's legal decisions, coded as the chat's buttons and labelled as they are
    (a targeted action: its button's label and the target's name)."""
    seats = [s.id for s in view.seats]
    out: list[dict[str, str]] = []
    for d in view.legal:
        out.append({"code": callbacks.encode_decision(d, seats), "label": label(t, d, view, names)})
    return out


def label(t: Translator, d: Decision, view: PlayerView, names: Names) -> str:
    """A decision's button label; a targeted action names its action and its target."""
    if isinstance(d, TakeAction) and d.target is not None:
        if d.action is Action.CONVERT and view.viewer is not None:
            return target_label(t, d, view.viewer, names, view)
        return f"{ACTION_BUTTONS[d.action](t)} → {decision_label(t, d, names)}"
    return decision_label(t, d, names)


def claim_line(t: Translator, facts: GameFacts, view: PlayerView | None) -> str | None:
    """The claim being answered (the turn's last action or block), while one is."""
    if view is None or view.awaiting.window is None:
        return None
    for e in reversed(facts.turn_events):
        if isinstance(e, (ev.ActionDeclared, ev.BlockDeclared)):
            return describe(e, t, facts.names, view.viewer)
    return None


def log_lines(
    t: Translator, steps: Sequence[Sequence[ev.Event]], names: Names, viewer: int | None
) -> list[str]:
    """The game as the reader may know it: public events, and their own private ones."""
    lines = [
        line
        for events in steps
        for e in told(events)
        if not isinstance(e, ev.ResponsePassed) and (line := describe(e, t, names, viewer))
    ]
    return lines[-LOG_LINES:]


def over(t: Translator, facts: GameFacts, view: PlayerView | None) -> dict[str, str] | None:
    """Once the game is over: the winner, every card and who bluffed."""
    if view is None or view.winner is None:
        return None
    text = final_text(t, view, facts.names)
    if facts.bluffs is not None:
        text += "\n\n" + bluff_summary(t, facts.bluffs, facts.names)
    return {"winner": facts.names.get(view.winner, str(view.winner)), "text": text}
