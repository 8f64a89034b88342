"""The group's messages: the lobby, the table, the turn message and the final message."""

from __future__ import annotations

from collections.abc import Sequence

from ..engine import (
    MAX_PLAYERS,
    Challenge,
    Decision,
    DecisionKind,
    PlayerView,
    Variant,
)
from ..service import callbacks
from .i18n import Translator
from .texts import Names, cards_text, variant_name
from .ui import ALLEGIANCE_MARKS, Button, Keyboard, Screen, decision_label, rows_of, seconds_text


def lobby_screen(
    t: Translator,
    game_id: str,
    creator: str,
    players: Sequence[str],
    wait_seconds: int,
    variant: Variant = Variant.BASE,
) -> Screen:
    """The lobby message with Join / Leave / Start / Cancel (and the variant, if not base)."""
    listing = "\n".join(f"{i}. {name}" for i, name in enumerate(players, 1)) or "—"
    text = t.gettext("🎲 {creator} opens a game of Coup!").format(creator=creator)
    if variant is not Variant.BASE:
        text += "\n" + variant_line(t, variant)
    text += "\n\n" + t.gettext("Players ({count}/{max}):").format(
        count=len(players), max=MAX_PLAYERS
    )
    text += "\n" + listing + "\n\n"
    text += t.gettext(
        "Press Join. With 2 or more players the game starts by itself in {time}."
    ).format(time=seconds_text(t, wait_seconds))
    keyboard = rows_of(
        [
            {
                "text": t.gettext("✋ Join"),
                "data": callbacks.pack(game_id, 0, callbacks.LOBBY_JOIN),
            },
            {
                "text": t.gettext("🚪 Leave"),
                "data": callbacks.pack(game_id, 0, callbacks.LOBBY_LEAVE),
            },
            {
                "text": t.gettext("▶️ Start"),
                "data": callbacks.pack(game_id, 0, callbacks.LOBBY_START),
            },
            {
                "text": t.gettext("✖️ Cancel"),
                "data": callbacks.pack(game_id, 0, callbacks.LOBBY_CANCEL),
            },
            {
                "text": t.gettext("🤖 Add AI"),
                "data": callbacks.pack(game_id, 0, callbacks.LOBBY_ADD_AI),
            },
            {
                "text": t.gettext("🤖 Remove AI"),
                "data": callbacks.pack(game_id, 0, callbacks.LOBBY_REMOVE_AI),
            },
        ]
    )
    return Screen(text, keyboard)


def lobby_closed_text(t: Translator, reason: str, players: Sequence[str]) -> str:
    """The lobby message once it is closed."""
    texts = {
        "started": t.gettext("🎲 The game has started: {players}."),
        "cancelled": t.gettext("✖️ The game was cancelled."),
        "empty": t.gettext("✖️ Not enough players joined: the lobby is closed."),
    }
    return texts[reason].format(players=", ".join(players))


def game_closed_notice(t: Translator, reason: str) -> str:
    """What each player reads privately when their game is closed before its end."""
    texts = {
        "cancelled": t.gettext("✖️ Your game in the group was cancelled."),
        "empty": t.gettext("✖️ Not enough players joined: the lobby is closed."),
        "removed": t.gettext("✖️ I was removed from the group, so your game there is cancelled."),
    }
    return texts.get(reason, texts["cancelled"])


def variant_line(t: Translator, variant: Variant) -> str:
    """The line that names the variant in use (lobby, table), with where its rules are."""
    return t.gettext("🃏 Variant: {variant} (/rules)").format(variant=variant_name(t, variant))


def board_text(t: Translator, view: PlayerView, names: Names) -> str:
    """The table: seats in order, coins, cards, deck and treasury (what the group may know);
    in the variants, the variant's name, each seat's allegiance and the Treasury Reserve."""
    over = view.winner is not None
    if view.variant is Variant.BASE:
        lines = [t.gettext("🃏 The table")]
    else:
        lines = [
            t.gettext("🃏 The table · {variant}").format(variant=variant_name(t, view.variant))
        ]
    for i, p in enumerate(view.seats, 1):
        name = names.get(p.id, str(p.id))
        if p.allegiance is not None:
            name = f"{ALLEGIANCE_MARKS[p.allegiance]} {name}"
        shown = cards_text(t, p.revealed)
        if p.cards_down:
            line = f"{i}. {name} · 💰{p.coins} · " + "🂠" * p.cards_down
            if shown:
                line += f" · ✖ {shown}"
        else:
            line = f"{i}. ☠️ {name} · ✖ {shown}"
        if not over and p.id == view.actor:
            line = "▶️ " + line
        lines.append(line)
    if view.variant.reformation:
        lines.append(allegiance_legend(t, view))
        lines.append(
            t.gettext("Deck: {deck} · Treasury: {treasury} · 🐷 Reserve: {reserve}").format(
                deck=view.deck_size, treasury=view.treasury, reserve=view.reserve
            )
        )
    else:
        lines.append(
            t.gettext("Deck: {deck} · Treasury: {treasury}").format(
                deck=view.deck_size, treasury=view.treasury
            )
        )
    return "\n".join(lines)


def allegiance_legend(t: Translator, view: PlayerView) -> str:
    """Which mark is which allegiance, and whether the table is divided or united."""
    legend = t.gettext("🔵 Loyalists · 🔴 Reformists")
    if view.winner is None and not view.divided:
        legend += " · " + t.gettext("united: anyone may target anyone")
    return legend


def status_text(t: Translator, view: PlayerView, names: Names, seconds_left: int | None) -> str:
    """Who must decide now, and how long they have."""
    waiting = view.awaiting
    who = ", ".join(names.get(p, str(p)) for p in waiting.players)
    if waiting.kind is None:
        return ""
    texts = {
        DecisionKind.TURN: t.gettext("▶️ {players} to move."),
        DecisionKind.RESPONSE: t.gettext("⏳ Waiting for: {players}."),
        DecisionKind.LOSE_CARD: t.gettext("⏳ {players} chooses a card to turn face up."),
        DecisionKind.EXCHANGE: t.ngettext(
            "⏳ {players} chooses a card to keep.",
            "⏳ {players} chooses cards to keep.",
            max((view.seat(p).cards_down for p in waiting.players), default=2),
        ),
        DecisionKind.SHOW_CARD: t.gettext("⏳ {players} chooses a card to show."),
        DecisionKind.EXAMINE: t.gettext("⏳ {players} decides about the card shown."),
    }
    text = texts[waiting.kind].format(players=who)
    if seconds_left is not None:
        text += " " + t.gettext("{time} left.").format(time=seconds_text(t, max(0, seconds_left)))
    return text


def final_text(t: Translator, view: PlayerView, names: Names) -> str:
    """Every player's cards at the end of the game."""
    lines = [t.gettext("🃏 Everyone's cards:")]
    for p, cards in zip(view.seats, view.final_cards, strict=False):
        lines.append(f"{names.get(p.id, str(p.id))}: {cards_text(t, cards)}")
    return "\n".join(lines)


def answer_buttons(
    t: Translator, game_id: str, context: int, options: Sequence[Decision], names: Names
) -> Keyboard:
    """Challenge / Block as ... / Pass on the group's turn message (anyone may see them,
    only the players who may answer can press them)."""

    def button(d: Decision) -> Button:
        return {
            "text": decision_label(t, d, names),
            "data": callbacks.pack(game_id, context, callbacks.encode_decision(d, [])),
        }

    # Challenge gets a row of its own: the group's bubble is the narrowest, and its label is
    # long in Georgian (it is also the button pressed most often).
    challenge = [[button(d)] for d in options if isinstance(d, Challenge)]
    return challenge + rows_of([button(d) for d in options if not isinstance(d, Challenge)])


def turn_message(
    t: Translator,
    view: PlayerView,
    names: Names,
    story: Sequence[str],
    seconds_left: int | None,
    table: bool,
    claims: str = "",
    question: str = "",
) -> str:
    """The group's turn message: the turn's story; then, while the turn goes on, who must
    decide and until when (and, over the answer buttons, `question`: what they answer);
    once it is over, the table (with the claim tracker's line, `claims`, when there is
    one) and who moves next."""
    lines = list(story)
    status = status_text(t, view, names, seconds_left)
    if table:
        lines += ["", board_text(t, view, names)]
        if claims:
            lines.append(claims)
    if status:
        lines += ["", status] if not table else [status]
    if question:
        lines.append(question)
    return "\n".join(lines).strip("\n")


def game_over_message(
    t: Translator,
    view: PlayerView,
    names: Names,
    story: Sequence[str],
    bluffs: str = "",
    seed: str = "",
) -> str:
    """The last turn's story, the winner and every card, the shuffle's seed (`seed`: its
    line, history.shuffle_revealed), then who bluffed (`bluffs`)."""
    lines = [*story, "", final_text(t, view, names)]
    if seed:
        lines += ["", seed]
    if bluffs:
        lines += ["", bluffs]
    return "\n".join(lines).strip("\n")


def play_again_keyboard(t: Translator, game_id: str) -> Keyboard:
    """The button under the final message that opens a new lobby with the same players."""
    return [
        [{"text": t.gettext("🆕 Play again"), "data": callbacks.pack(game_id, 0, callbacks.AGAIN)}]
    ]
