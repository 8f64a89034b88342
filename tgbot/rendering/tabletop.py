"""The group's messages: the lobby, the table, the turn message and the final message."""

from __future__ import annotations

from collections.abc import Sequence

from ..contract import callbacks
from ..contract.languages import N_
from ..engine import (
    MAX_PLAYERS,
    Action,
    Challenge,
    Decision,
    DecisionKind,
    Pass,
    PlayerView,
    SeatView,
    Variant,
)
from ..engine import events as ev
from . import notices
from .i18n import Translator
from .texts import Names, cards_text, variant_name
from .ui import (
    ALLEGIANCE_MARKS,
    Button,
    Keyboard,
    Screen,
    decision_label,
    rows_of,
    until_text,
)


def lobby_screen(
    t: Translator,
    game_id: str,
    creator: str,
    players: Sequence[str],
    wait_seconds: int,
    variant: Variant = Variant.BASE,
    opener_out: bool = False,
) -> Screen:
    """The lobby message with Join / Leave / Start / Cancel (and the variant, if not base);
    `opener_out`: whoever opened it cannot be written to privately yet (a last line)."""
    listing = "\n".join(f"{i}. {name}" for i, name in enumerate(players, 1)) or "—"
    text = t.gettext("🎲 {creator} opens a game of Coup!").format(creator=creator)
    if variant is not Variant.BASE:
        text += "\n" + variant_line(t, variant)
    text += "\n\n" + t.gettext("Players ({count}/{max}):").format(
        count=len(players), max=MAX_PLAYERS
    )
    text += "\n" + listing + "\n\n"
    text += lobby_wait_text(t, wait_seconds)
    if opener_out:
        text += "\n" + notices.opener_not_in_yet(t, creator)
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


def lobby_wait_text(t: Translator, seconds: int) -> str:
    """When the lobby starts by itself: in whole minutes from a minute up (rounded up, so a
    join a second later does not turn "2 minutes" into "119 seconds"), in seconds below."""
    if seconds >= 60:
        minutes = -(-seconds // 60)
        return t.ngettext(
            "Press Join. With 2 or more players the game starts by itself in {n} minute.",
            "Press Join. With 2 or more players the game starts by itself in {n} minutes.",
            minutes,
        ).format(n=minutes)
    return t.ngettext(
        "Press Join. With 2 or more players the game starts by itself in {n} second.",
        "Press Join. With 2 or more players the game starts by itself in {n} seconds.",
        seconds,
    ).format(n=seconds)


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


def _seat_name(view: PlayerView, seat: SeatView, names: Names) -> str:
    name = names.get(seat.id, str(seat.id))
    if seat.allegiance is not None:
        name = f"{ALLEGIANCE_MARKS[seat.allegiance]} {name}"
    return name


def seat_line(
    t: Translator, view: PlayerView, seat: SeatView, names: Names, mark: bool = True
) -> str:
    """One seat on the table: its place, coins, 🂠 per face-down card and the face-up
    ones by name; the mover marked (`mark`, while the game goes on: /board's table; a
    turn message's line says whose turn it is, and goes when that is no longer true)."""
    place = next(i for i, p in enumerate(view.seats, 1) if p.id == seat.id)
    name = _seat_name(view, seat, names)
    shown = cards_text(t, seat.revealed)
    if seat.cards_down:
        line = f"{place}. {name} · 💰{seat.coins} · " + "🂠" * seat.cards_down
        if shown:
            line += f" · ✖ {shown}"
    else:
        line = f"{place}. ☠️ {name} · ✖ {shown}"
    if mark and view.winner is None and seat.id == view.actor:
        line = "▶️ " + line
    return line


def out_line(view: PlayerView, names: Names, t: Translator) -> str:
    """The seats knocked out, folded into one line with their face-up cards ("" if none)."""
    out = [
        f"{_seat_name(view, p, names)} ({cards_text(t, p.revealed)})"
        for p in view.seats
        if not p.cards_down
    ]
    return "☠️ " + ", ".join(out) if out else ""


def board_text(t: Translator, view: PlayerView, names: Names, mark: bool = True) -> str:
    """The table: seats in order, coins, cards, deck and treasury (what the group may know),
    the seats knocked out folded into one line; in the variants, the variant's name, each
    seat's allegiance and the Treasury Reserve."""
    if view.variant is Variant.BASE:
        lines = [t.gettext("🃏 The table")]
    else:
        lines = [
            t.gettext("🃏 The table · {variant}").format(variant=variant_name(t, view.variant))
        ]
    lines += [seat_line(t, view, p, names, mark) for p in view.seats if p.cards_down]
    if folded := out_line(view, names, t):
        lines.append(folded)
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


def posted_table(
    t: Translator, view: PlayerView, names: Names, settled: bool, claimed: str | None
) -> str:
    """/board's table: the seats, the turn's status, and who has claimed what (`claimed`,
    if anyone has)."""
    text = board_text(t, view, names) + "\n\n" + status_text(t, view, names, settled)
    return text + "\n" + claimed if claimed else text


def allegiance_legend(t: Translator, view: PlayerView) -> str:
    """Which mark is which allegiance, and whether the table is divided or united."""
    legend = t.gettext("🔵 Loyalists · 🔴 Reformists")
    if view.winner is None and not view.divided:
        legend += " · " + t.gettext("united: anyone may target anyone")
    return legend


def changed_seats(told: Sequence[ev.Event]) -> set[int]:
    """The seats whose coins, cards or allegiance the turn's public events changed."""
    changed: set[int] = set()
    for e in told:
        if isinstance(e, ev.ActionDeclared) and e.cost:
            changed.add(e.actor)
        elif isinstance(e, ev.ActionResolved) and e.amount:
            changed.add(e.actor)
            if e.action is Action.STEAL and e.target is not None:
                changed.add(e.target)
        elif isinstance(
            e, ev.CoinsRefunded | ev.CardRevealed | ev.PlayerEliminated | ev.AllegianceChanged
        ):
            changed.add(e.player)
    return changed


# Who must decide now, by the kind of decision (an Exchange's words count the cards kept).
WAITING_FOR = {
    DecisionKind.TURN: N_("▶️ {players} to move."),
    DecisionKind.LOSE_CARD: N_("⏳ {players} chooses a card to turn face up."),
    DecisionKind.SHOW_CARD: N_("⏳ {players} chooses a card to show."),
    DecisionKind.EXAMINE: N_("⏳ {players} decides about the card shown."),
}


def status_text(
    t: Translator,
    view: PlayerView,
    names: Names,
    moment: bool = True,
    in_private: bool = False,
    name_answerers: bool = False,
) -> str:
    """Who must decide now, and (`moment`) until when: the moment is marked for the sender
    (ui.take_moment). Who may answer a claim is named only with `name_answerers` (the Mini
    App, redrawn for free; in the group each pass would cost an edit); `in_private`: they
    answer in their private chats (the group shows no buttons)."""
    waiting = view.awaiting
    who = ", ".join(names.get(p, str(p)) for p in waiting.players)
    if waiting.kind is None:
        return ""
    if waiting.kind is DecisionKind.RESPONSE and name_answerers:
        text = t.gettext("⏳ Waiting for: {players}.").format(players=who)
    elif waiting.kind is DecisionKind.RESPONSE:
        text = (
            t.gettext("⏳ Time to answer (in private)")
            if in_private
            else t.gettext("⏳ Time to answer")
        )
    elif waiting.kind is DecisionKind.EXCHANGE:
        text = t.ngettext(
            "⏳ {players} chooses a card to keep.",
            "⏳ {players} chooses cards to keep.",
            max((view.seat(p).cards_down for p in waiting.players), default=2),
        ).format(players=who)
    else:
        text = t.gettext(WAITING_FOR[waiting.kind]).format(players=who)
    if moment:
        text += " " + until_text(t)
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
        b = {
            "text": decision_label(t, d, names),
            "data": callbacks.pack(game_id, context, callbacks.encode_decision(d, [])),
        }
        # Bot API 9.4 styles: an app that knows none shows the plain look.
        if isinstance(d, Challenge):
            b["style"] = "danger"
        elif isinstance(d, Pass):
            b["style"] = "success"
        return b

    # Challenge gets a row of its own: the group's bubble is the narrowest, and its label is
    # long in Georgian (it is also the button pressed most often).
    challenge = [[button(d)] for d in options if isinstance(d, Challenge)]
    return challenge + rows_of([button(d) for d in options if not isinstance(d, Challenge)])


def turn_message(
    t: Translator,
    view: PlayerView,
    names: Names,
    story: Sequence[str],
    moment: bool = True,
    question: str = "",
) -> str:
    """The group's turn message while the turn goes on: its story, then who must decide
    and until when (the moment marked, if `moment`), and, over the answer buttons,
    `question`: what they answer."""
    lines = list(story)
    # No question over the buttons: the answers are asked in private.
    status = status_text(t, view, names, moment, in_private=not question)
    if status:
        lines += ["", status]
    if question:
        lines.append(question)
    return "\n".join(lines).strip("\n")


def closed_turn_message(
    t: Translator,
    view: PlayerView,
    names: Names,
    story: Sequence[str],
    told: Sequence[ev.Event],
    board: bool = False,
    claims: str = "",
    next_player: int | None = None,
) -> str:
    """A finished turn's verdict: its story, then the seats it changed (the whole table
    and the claim tracker's line, `claims`, when `board`), then who moved next
    (`next_player`, if any), worded to stay true once they have moved."""
    lines = list(story)
    if board:
        lines += ["", board_text(t, view, names, mark=False)]
        if claims:
            lines.append(claims)
    else:
        changed = changed_seats(told)
        # No blank line before them: a seat's line starts with its place ("3. "), and the
        # message stays within a phone's glance.
        lines += [seat_line(t, view, p, names, False) for p in view.seats if p.id in changed]
    if next_player is not None:
        player = names.get(next_player, str(next_player))
        lines.append(t.gettext("➡️ next: {player}").format(player=player))
    return "\n".join(lines).strip("\n")


def game_over_message(
    t: Translator,
    view: PlayerView,
    names: Names,
    story: Sequence[str],
    bluffs: str = "",
    seed: str = "",
) -> str:
    """The end of the game, a message of its own: the last turn's story when it had no
    message, the winner, every card, the shuffle's seed (`seed`: its line,
    history.shuffle_revealed), then who bluffed (`bluffs`)."""
    winner = names.get(view.winner, str(view.winner)) if view.winner is not None else "?"
    lines = [*story, t.gettext("🏆 {winner} wins!").format(winner=winner)]
    lines += ["", final_text(t, view, names)]
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
