"""A player's private prompts: their hand, and one button per decision they may take."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..contract import callbacks
from ..engine import (
    VARIANT_ACTIONS,
    Action,
    Allegiance,
    Challenge,
    Decision,
    PlayerView,
    TakeAction,
    codes,
)
from .forms import Case, action_in
from .i18n import Translator
from .texts import Names, cards_line, cards_text, character_name, coins_text
from .ui import (
    ACTION_BUTTONS,
    ALLEGIANCE_MARKS,
    Button,
    Keyboard,
    Screen,
    answers_question,
    decision_label,
    rows_of,
)


def hand_text(t: Translator, view: PlayerView) -> str:
    """A player's face-down cards and coins."""
    mine = view.mine
    assert mine is not None
    text = t.ngettext(
        "🂠 Your card: {cards} · 💰 {coins}",
        "🂠 Your cards: {cards} · 💰 {coins}",
        len(view.my_cards),
    ).format(
        cards=cards_text(t, view.my_cards) or "—",
        coins=coins_text(t, mine.coins),
    )
    if mine.allegiance is not None:
        text += "\n" + side_text(t, mine.allegiance, view.reserve)
    return text


def side_text(t: Translator, side: Allegiance, reserve: int) -> str:
    """A Reformation player's own allegiance and the Reserve, under their cards."""
    mark = ALLEGIANCE_MARKS[side]
    text = (
        t.gettext("{mark} You are a Loyalist · 🐷 Reserve: {reserve}")
        if side is Allegiance.LOYALIST
        else t.gettext("{mark} You are a Reformist · 🐷 Reserve: {reserve}")
    )
    return text.format(mark=mark, reserve=reserve)


@dataclass(frozen=True, slots=True)
class Asking:
    """Whom a prompt asks (from what they may know), in which game and decision context,
    in which language."""

    t: Translator
    view: PlayerView
    game_id: str
    context: int
    names: Names
    # The hand is in the message just above (the deal): the prompt does not repeat it.
    hand_above: bool = False

    @property
    def player_id(self) -> int:
        """The player asked."""
        assert self.view.viewer is not None
        return self.view.viewer

    def button(self, text: str, code: str) -> Button:
        """A button of this prompt."""
        return self.buttons([text], [code])[0]

    def buttons(self, texts: Sequence[str], button_codes: Sequence[str]) -> list[Button]:
        """Buttons of this prompt, their data made for the whole keyboard at once."""
        data = callbacks.pack_all(self.game_id, self.context, button_codes)
        return [{"text": text, "data": d} for text, d in zip(texts, data, strict=True)]

    def decision_buttons(self, decisions: Sequence[Decision]) -> list[Button]:
        """One button per decision."""
        seats = [p.id for p in self.view.seats]
        labels = [decision_label(self.t, d, self.names) for d in decisions]
        return self.buttons(labels, codes.encode_all(decisions, seats))

    def target_buttons(self, decisions: Sequence[TakeAction]) -> Keyboard:
        """One button per target, each with that player's coins and face-down cards; two
        to a row while they are short enough, else one each (a long name is cut)."""
        seats = [p.id for p in self.view.seats]
        labels = [target_label(self.t, d, self.player_id, self.names, self.view) for d in decisions]
        items = self.buttons(labels, codes.encode_all(decisions, seats))
        # Held to the keep pairs' measure: wider labels cannot share a phone's row.
        wide = any(len(b["text"]) > KEEP_SHARED_ROW_CHARS for b in items)
        return rows_of(items, 1 if wide else 2)

    def screen(self, lines: Sequence[str]) -> Screen:
        """The prompt's text with a button for each legal decision."""
        return Screen("\n".join(lines), rows_of(self.decision_buttons(self.view.legal)))

    def hand(self) -> str:
        """The asked player's cards and coins."""
        return hand_text(self.t, self.view)

    def under_hand(self, question: str) -> str:
        """A question under the asked player's hand, unless the hand is just above."""
        return question if self.hand_above else self.hand() + "\n" + question


def forced_coup(legal: Sequence[Decision]) -> bool:
    """Whether the only legal decisions are Coups (10 coins or more)."""
    return all(isinstance(d, TakeAction) and d.action is Action.COUP for d in legal)


def forced_coup_question(t: Translator) -> str:
    """What a player with 10 coins or more is asked."""
    return t.gettext("💥 You have 10 or more coins: you must stage a Coup. Against whom?")


def target_question(t: Translator, action: Action) -> str:
    """A target picker's question."""
    if action is Action.CONVERT:
        # Converting yourself costs 1, another player 2: the buttons say so.
        return t.gettext(
            "🔀 Whose side changes? Yourself for 1 coin, another player for 2 "
            "(the coins go into the Reserve)."
        )
    # TRANSLATORS: {action_gen} is the action's name in the genitive case ("of the Coup").
    return t.gettext("{action_gen}: choose a target.").format(
        action_gen=action_in(t, action, Case.GENITIVE)
    )


def turn_screen(a: Asking) -> Screen:
    """The turn keyboard: one button per legal action; targeted actions open a picker."""
    t = a.t
    legal = a.view.legal
    if forced_coup(legal):
        forced = forced_coup_question(t)
        coups = [d for d in legal if isinstance(d, TakeAction)]
        return Screen(a.under_hand(forced), a.target_buttons(coups))
    seats = [p.id for p in a.view.seats]
    table = VARIANT_ACTIONS[a.view.variant]
    actions: list[TakeAction] = []
    for d in legal:
        assert isinstance(d, TakeAction)
        actions.append(d)
    untargeted = [d for d in actions if not table[d.action].targeted]
    coded = dict(zip(untargeted, codes.encode_all(untargeted, seats), strict=True))
    # Targeted actions appear once, as a button to their picker.
    shown: dict[str, Action] = {}
    for d in actions:
        shown.setdefault(coded.get(d) or callbacks.PICKER_CODES[d.action], d.action)
    buttons = a.buttons([ACTION_BUTTONS[x](t) for x in shown.values()], list(shown))
    # Long labels (Foreign Aid) get a row of their own.
    items = [b for b, x in zip(buttons, shown.values(), strict=True) if x not in WIDE_ACTIONS]
    wide = [b for b, x in zip(buttons, shown.values(), strict=True) if x in WIDE_ACTIONS]
    name = a.names.get(a.player_id, "")
    text = a.under_hand(t.gettext("▶️ Your move, {name}.").format(name=name))
    return Screen(text, rows_of(items) + [[b] for b in wide])


# Actions whose button is too long to share a row on a phone (Foreign Aid in Georgian).
WIDE_ACTIONS = frozenset({Action.FOREIGN_AID})


def target_screen(a: Asking, action: Action) -> Screen:
    """The target picker for a targeted action, with a Back button: each target shows
    their coins and face-down cards, so nobody goes back to the group to look."""
    t = a.t
    legal = [d for d in a.view.legal if isinstance(d, TakeAction) and d.action is action]
    prompt = target_question(t, action)
    keyboard = [*a.target_buttons(legal), [a.button(t.gettext("« Back"), callbacks.BACK)]]
    return Screen(a.hand() + "\n" + prompt, keyboard)


# A target's name is cut to this many characters on a picker's button, so that the coins
# and cards after it stay visible on a phone.
TARGET_NAME_CHARS = 14


def target_label(
    t: Translator, decision: TakeAction, me: int, names: Names, view: PlayerView
) -> str:
    """A target's button: "Nino · 💰3 · 🂠🂠" (with the side's mark in Reformation). A
    Conversion's own button says its cost; another player's cost (2) is in the prompt above,
    since a bare "(2)" after the cards reads as a count of them."""
    if decision.action is Action.CONVERT and decision.target == me:
        return t.gettext("🔀 Myself (1 coin)")
    target = decision.target if decision.target is not None else 0
    name = names.get(target, str(target))
    if len(name) > TARGET_NAME_CHARS:
        name = name[: TARGET_NAME_CHARS - 1] + "…"
    seat = view.seat(target)
    label = f"{name} · 💰{seat.coins} · " + "🂠" * seat.cards_down
    if seat.allegiance is not None:
        label = f"{ALLEGIANCE_MARKS[seat.allegiance]} {label}"
    return label


def response_question(t: Translator, view: PlayerView) -> str:
    """What a responder is asked, by window."""
    return answers_question(t, view.awaiting.window, view.legal)


def response_screen(a: Asking, context_lines: Sequence[str]) -> Screen:
    """Challenge / Block as ... / Pass for one responder."""
    question = response_question(a.t, a.view)
    screen = a.screen([*context_lines, a.hand(), question])
    # Challenge has a row of its own here too, as on the group's message: its Georgian label
    # is as wide as the keep pairs that do not share a row (KEEP_SHARED_ROW_CHARS).
    legal = a.view.legal
    challenge = [a.decision_buttons([d]) for d in legal if isinstance(d, Challenge)]
    others = a.decision_buttons([d for d in legal if not isinstance(d, Challenge)])
    screen.keyboard = challenge + rows_of(others)
    return screen


def lose_question(t: Translator) -> str:
    """What a player who must lose a card is asked."""
    return t.gettext("🔻 Choose a card to turn face up:")


def lose_screen(a: Asking, context_lines: Sequence[str]) -> Screen:
    """Choose the card to turn face up."""
    return a.screen([*context_lines, a.hand(), lose_question(a.t)])


def keep_question(t: Translator, view: PlayerView) -> str:
    """What an exchanging player is asked (their hand holds the cards drawn too)."""
    n = len(view.my_cards)
    return t.ngettext("Choose which card to keep:", "Choose which cards to keep:", n)


def exchange_screen(a: Asking, context_lines: Sequence[str]) -> Screen:
    """Choose the cards to keep after an exchange."""
    t = a.t
    screen = a.screen([*context_lines, cards_line(t, a.view.my_cards), keep_question(t, a.view)])
    items = [b for row in screen.keyboard for b in row]
    if any(len(b["text"]) > KEEP_SHARED_ROW_CHARS for b in items):  # "Duke + Captain" in ka
        screen.keyboard = rows_of(items, 1)
    return screen


# The longest label that still fits two to a row on a phone (Georgian; see tests/i18n).
SHARED_ROW_CHARS = 20
# Keep pairs are held to less: at Telegram's 15 dp button text a Georgian pair of 17-18
# characters measures 145-163 dp, the whole half row of a 360 dp phone, where pairs of up
# to 15 measure 135 dp at most (docs/ka-review-status.md, "Fourth reading").
KEEP_SHARED_ROW_CHARS = 15


def show_question(t: Translator, view: PlayerView, names: Names) -> str:
    """What an examined player is asked: which card to show the examiner."""
    actor = names.get(view.actor or 0, "")
    question = t.gettext("👁 Choose the card to show {actor}; only they will see it:")
    return question.format(actor=actor)


def show_screen(a: Asking, context_lines: Sequence[str]) -> Screen:
    """Examine: choose which face-down card to show the examiner (only they will see it)."""
    return a.screen([*context_lines, a.hand(), show_question(a.t, a.view, a.names)])


def examined_line(t: Translator, view: PlayerView, names: Names) -> str | None:
    """What the examiner was shown (None before it is shown)."""
    if view.examined is None:
        return None
    target = names.get(view.target or 0, "")
    return t.gettext("👁 {target} shows you: {character}.").format(
        target=target, character=character_name(t, view.examined)
    )


def examine_question(t: Translator, view: PlayerView, names: Names) -> str:
    """What the examiner is asked: let the card be kept, or force a swap."""
    target = names.get(view.target or 0, "")
    return t.gettext(
        "Let {target} keep the card, or make them swap it for one from the deck?"
    ).format(target=target)


def examine_screen(a: Asking, context_lines: Sequence[str]) -> Screen:
    """Examine: the examiner sees the card and lets it be kept or forces a swap."""
    lines = list(context_lines)
    seen = examined_line(a.t, a.view, a.names)
    if seen is not None and seen not in lines:
        lines.append(seen)
    return a.screen([*lines, a.hand(), examine_question(a.t, a.view, a.names)])
