"""Boards, prompts, keyboards and command replies, as text in one language."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..engine import (
    MAX_PLAYERS,
    VARIANT_ACTIONS,
    Action,
    Allegiance,
    Block,
    Challenge,
    Decision,
    DecisionKind,
    ForceExchange,
    KeepCards,
    LetKeep,
    LoseCard,
    Pass,
    PlayerView,
    ShowCard,
    TakeAction,
    Variant,
    Window,
)
from ..service import callbacks
from ..service.settings import SETTINGS, ChatSettings
from .forms import Case, action_in, character_in
from .i18n import LANGUAGE_NAMED, LANGUAGE_TABLE, Translator
from .texts import Names, cards_line, cards_text, character_name, coins_text, variant_name

Button = dict[str, str]  # {"text": ..., "data": ...} or {"text": ..., "url": ...}
Keyboard = list[list[Button]]


@dataclass(slots=True)
class Screen:
    """A message to show: text and an optional inline keyboard."""

    text: str
    keyboard: Keyboard = field(default_factory=list)


def rows_of(items: Sequence[Button], per_row: int = 2) -> Keyboard:
    """Lay buttons out two to a row (phone screens are narrow)."""
    return [list(items[i : i + per_row]) for i in range(0, len(items), per_row)]


def seconds_text(t: Translator, seconds: int) -> str:
    """A short duration."""
    if seconds >= 120 and seconds % 60 == 0:
        minutes = seconds // 60
        return t.ngettext("{n} min", "{n} min", minutes).format(n=minutes)
    return t.ngettext("{n} s", "{n} s", seconds).format(n=seconds)


# ---- lobby ---------------------------------------------------------------------------


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


# ---- the group's board ---------------------------------------------------------------


def variant_line(t: Translator, variant: Variant) -> str:
    """The line that names the variant in use (lobby, table), with where its rules are."""
    return t.gettext("🃏 Variant: {variant} (/rules)").format(variant=variant_name(t, variant))


# The mark of each allegiance on the table (the legend under it names them).
ALLEGIANCE_MARKS = {Allegiance.LOYALIST: "🔵", Allegiance.REFORMIST: "🔴"}


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


# ---- the group's turn message --------------------------------------------------------


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
    t: Translator, view: PlayerView, names: Names, story: Sequence[str], bluffs: str = ""
) -> str:
    """The last turn's story, the winner and every card, then who bluffed (`bluffs`)."""
    lines = [*story, "", final_text(t, view, names)]
    if bluffs:
        lines += ["", bluffs]
    return "\n".join(lines).strip("\n")


def play_again_keyboard(t: Translator, game_id: str) -> Keyboard:
    """The button under the final message that opens a new lobby with the same players."""
    return [
        [{"text": t.gettext("🆕 Play again"), "data": callbacks.pack(game_id, 0, callbacks.AGAIN)}]
    ]


# ---- private prompts -----------------------------------------------------------------


def hand_text(t: Translator, view: PlayerView) -> str:
    """A player's face-down cards and coins."""
    assert view.viewer is not None
    text = t.ngettext(
        "🂠 Your card: {cards} · 💰 {coins}",
        "🂠 Your cards: {cards} · 💰 {coins}",
        len(view.my_cards),
    ).format(
        cards=cards_text(t, view.my_cards) or "—",
        coins=coins_text(t, view.seat(view.viewer).coins),
    )
    side = view.seat(view.viewer).allegiance
    if side is not None:
        text += "\n" + side_text(t, side, view.reserve)
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


def decision_label(t: Translator, decision: Decision, names: Names) -> str:
    """The text of the button for a decision."""
    if isinstance(decision, TakeAction):
        if decision.target is not None:
            return names.get(decision.target, str(decision.target))
        return ACTION_BUTTONS[decision.action](t)
    if isinstance(decision, Challenge):
        return t.gettext("⚔️ Challenge")
    if isinstance(decision, Pass):
        return t.gettext("✅ Pass")
    if isinstance(decision, Block):
        # TRANSLATORS: a button; {character_ins} is the character in the instrumental
        # case ("with the Captain"). Keep it short: the character must not be cut off on a phone.
        return t.gettext("🛡 Block: {character_ins}").format(
            character_ins=character_in(t, decision.character, Case.INSTRUMENTAL)
        )
    if isinstance(decision, LoseCard):
        return character_name(t, decision.character)
    if isinstance(decision, ShowCard):
        return "👁 " + character_name(t, decision.character)
    if isinstance(decision, LetKeep):
        # TRANSLATORS: a button: the examined player keeps the card they showed.
        return t.gettext("👍 Let them keep it")
    if isinstance(decision, ForceExchange):
        # TRANSLATORS: a button: the examined player must swap the card for one from the deck.
        return t.gettext("🔁 Make them swap it")
    assert isinstance(decision, KeepCards)
    cards = decision.cards
    if len(cards) == 2 and cards[0] == cards[1]:
        return f"2 × {character_name(t, cards[0])}"  # shorter than "Captain + Captain"
    return " + ".join(character_name(t, c) for c in cards)


ACTION_BUTTONS: dict[Action, Callable[[Translator], str]] = {
    Action.INCOME: lambda t: t.gettext("💰 Income"),
    Action.FOREIGN_AID: lambda t: t.gettext("🤝 Foreign Aid"),
    Action.TAX: lambda t: t.gettext("👑 Tax"),
    Action.EXCHANGE: lambda t: t.gettext("🔄 Exchange"),
    Action.COUP: lambda t: t.gettext("💥 Coup"),
    Action.ASSASSINATE: lambda t: t.gettext("🗡 Assassinate"),
    Action.STEAL: lambda t: t.gettext("🏴 Steal"),
    Action.EXAMINE: lambda t: t.gettext("🔍 Examine"),
    Action.CONVERT: lambda t: t.gettext("🔀 Convert"),
    Action.EMBEZZLE: lambda t: t.gettext("🐷 Embezzle"),
}


@dataclass(frozen=True, slots=True)
class Asking:
    """Whom a prompt asks (from what they may know), in which game and decision context,
    in which language."""

    t: Translator
    view: PlayerView
    game_id: str
    context: int
    names: Names

    @property
    def player_id(self) -> int:
        """The player asked."""
        assert self.view.viewer is not None
        return self.view.viewer

    def button(self, text: str, code: str) -> Button:
        """A button of this prompt."""
        return {"text": text, "data": callbacks.pack(self.game_id, self.context, code)}

    def decision_buttons(self, decisions: Sequence[Decision]) -> list[Button]:
        """One button per decision."""
        seats = [p.id for p in self.view.seats]
        return [
            self.button(decision_label(self.t, d, self.names), callbacks.encode_decision(d, seats))
            for d in decisions
        ]

    def screen(self, lines: Sequence[str]) -> Screen:
        """The prompt's text with a button for each legal decision."""
        return Screen("\n".join(lines), rows_of(self.decision_buttons(self.view.legal)))

    def hand(self) -> str:
        """The asked player's cards and coins."""
        return hand_text(self.t, self.view)


def turn_screen(a: Asking) -> Screen:
    """The turn keyboard: one button per legal action; targeted actions open a picker."""
    t = a.t
    legal = a.view.legal
    if all(isinstance(d, TakeAction) and d.action is Action.COUP for d in legal):
        forced = t.gettext("💥 You have 10 or more coins: you must stage a Coup. Against whom?")
        return Screen(a.hand() + "\n" + forced, rows_of(a.decision_buttons(legal)))
    items: list[Button] = []
    wide: list[Button] = []  # long labels (Foreign Aid) get a row of their own
    codes: set[str] = set()  # targeted actions appear once, as a button to their picker
    seats = [p.id for p in a.view.seats]
    table = VARIANT_ACTIONS[a.view.variant]
    for d in legal:
        assert isinstance(d, TakeAction)
        if table[d.action].targeted:
            code = callbacks.picker_code(d.action)
        else:
            code = callbacks.encode_decision(d, seats)
        if code not in codes:
            codes.add(code)
            button = a.button(ACTION_BUTTONS[d.action](t), code)
            (wide if d.action in WIDE_ACTIONS else items).append(button)
    name = a.names.get(a.player_id, "")
    text = a.hand() + "\n" + t.gettext("▶️ Your move, {name}.").format(name=name)
    return Screen(text, rows_of(items) + [[b] for b in wide])


# Actions whose button is too long to share a row on a phone (Foreign Aid in Georgian).
WIDE_ACTIONS = frozenset({Action.FOREIGN_AID})


def target_screen(a: Asking, action: Action) -> Screen:
    """The target picker for a targeted action, with a Back button."""
    t = a.t
    legal = [d for d in a.view.legal if isinstance(d, TakeAction) and d.action is action]
    items = a.decision_buttons(legal)
    if action is Action.CONVERT:
        # Converting yourself costs 1, another player 2: the buttons say so.
        seats = [p.id for p in a.view.seats]
        items = [
            a.button(convert_label(t, d, a.player_id, a.names), callbacks.encode_decision(d, seats))
            for d in legal
        ]
        prompt = t.gettext(
            "🔀 Whose side changes? Yourself for 1 coin, another player for 2 "
            "(the coins go into the Reserve)."
        )
    else:
        # TRANSLATORS: {action_gen} is the action's name in the genitive case ("of the Coup").
        prompt = t.gettext("{action_gen}: choose a target.").format(
            action_gen=action_in(t, action, Case.GENITIVE)
        )
    items.append(a.button(t.gettext("« Back"), callbacks.BACK))
    return Screen(a.hand() + "\n" + prompt, rows_of(items))


def convert_label(t: Translator, decision: TakeAction, me: int, names: Names) -> str:
    """A Conversion target's button: yourself, or another player's name (with the cost)."""
    if decision.target == me:
        return t.gettext("🔀 Myself (1)")
    name = names.get(decision.target or 0, str(decision.target))
    return f"{name} (2)"


def response_question(t: Translator, view: PlayerView) -> str:
    """What a responder is asked, by window."""
    return answers_question(t, view.awaiting.window, view.legal)


def answers_question(t: Translator, window: Window | None, options: Sequence[Decision]) -> str:
    """The question the answers `options` reply to (a private prompt, or the group's
    turn message over its answer buttons, where a bare "🛡 with the Captain" needs it)."""
    can_challenge = any(isinstance(d, Challenge) for d in options)
    can_block = any(isinstance(d, Block) for d in options)
    if window is Window.BLOCK_CHALLENGE:
        return t.gettext("Do you challenge the block?")
    if can_challenge and can_block:
        return t.gettext("Challenge, block or pass?")
    if can_challenge:
        return t.gettext("Do you challenge?")
    return t.gettext("Do you block?")


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


def lose_screen(a: Asking, context_lines: Sequence[str]) -> Screen:
    """Choose the card to turn face up."""
    return a.screen([*context_lines, a.hand(), a.t.gettext("🔻 Choose a card to turn face up:")])


def exchange_screen(a: Asking, context_lines: Sequence[str]) -> Screen:
    """Choose the cards to keep after an exchange."""
    t = a.t
    n = len(a.view.my_cards)
    screen = a.screen(
        [
            *context_lines,
            cards_line(t, a.view.my_cards),
            t.ngettext("Choose {n} card to keep:", "Choose {n} cards to keep:", n).format(n=n),
        ]
    )
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


def show_screen(a: Asking, context_lines: Sequence[str]) -> Screen:
    """Examine: choose which face-down card to show the examiner (only they will see it)."""
    actor = a.names.get(a.view.actor or 0, "")
    question = a.t.gettext("👁 Choose the card to show {actor}; only they will see it:")
    return a.screen([*context_lines, a.hand(), question.format(actor=actor)])


def examine_screen(a: Asking, context_lines: Sequence[str]) -> Screen:
    """Examine: the examiner sees the card and lets it be kept or forces a swap."""
    t = a.t
    target = a.names.get(a.view.target or 0, "")
    lines = list(context_lines)
    if a.view.examined is not None:
        seen = t.gettext("👁 {target} shows you: {character}.").format(
            target=target, character=character_name(t, a.view.examined)
        )
        if seen not in lines:
            lines.append(seen)
    question = t.gettext(
        "Let {target} keep the card, or make them swap it for one from the deck?"
    ).format(target=target)
    return a.screen([*lines, a.hand(), question])


# ---- commands ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CommandLine:
    """A command as /help and the menus list it: its name and what it does (msgids)."""

    name: str
    menu: str  # the menu's short description
    help: str | None = None  # its /help line; None: listed in the menu only


def help_text(t: Translator, group: Sequence[CommandLine], private: Sequence[CommandLine]) -> str:
    """What the bot does and its commands, each once per kind of chat (from the table)."""

    def section(title: str, lines: Sequence[CommandLine]) -> str:
        listed = [f"/{c.name}: {t.gettext(c.help)}" for c in lines if c.help is not None]
        return "\n".join([title, *listed])

    return "\n\n".join(
        [
            t.gettext("🎲 Coup: a card game of bluffing for 2–6 players."),
            section(t.gettext("In a group:"), group),
            section(t.gettext("In private:"), private),
            # The variants' line under the last paragraph: /help stays four paragraphs.
            # Sent in groups as well as in private: no "here".
            t.gettext(
                "Your cards and your buttons come in your private chat with me; the group sees "
                "the table. Too few players? The game's creator can add AI players (🤖) in the "
                "lobby."
            )
            + "\n"
            + t.gettext(
                "🃏 Variants (Inquisitor, Reformation): a group's admins choose one in "
                "/settings, and /rules explains it."
            ),
        ]
    )


def menu_entries(t: Translator, lines: Sequence[CommandLine]) -> list[tuple[str, str]]:
    """A command menu: each command's name and its short description."""
    return [(c.name, t.gettext(c.menu)) for c in lines]


def rules_text(t: Translator) -> str:
    """The rules, complete against the user's rules text (docs/seed-rules.ka.txt)."""
    return t.gettext(
        "📜 Coup: the rules\n\n"
        "The deck has 15 cards, 5 characters with 3 cards each: Duke, Assassin, Captain, "
        "Ambassador and Contessa. Everyone is dealt 2 cards, to keep secret, and 2 coins (in a "
        "2-player game the first player gets 1). The other cards stay in the deck, the other "
        "coins in the treasury. Keep your cards to the end: the last player with a card left "
        "wins.\n\n"
        "On your turn, choose one action:\n"
        "💰 Income: take 1 coin from the treasury. No one can block or challenge it.\n"
        "🤝 Foreign Aid: take 2 coins from the treasury. Anyone can block it with the Duke.\n"
        "💥 Coup: pay 7 coins into the treasury; the player you choose turns a card face up. "
        "No one can block or challenge it. With 10 or more coins you must stage a Coup.\n"
        "👑 Tax (Duke): take 3 coins from the treasury. It cannot be blocked.\n"
        "🗡 Assassinate (Assassin): pay 3 coins; the player you choose turns a card face up. "
        "Only the target can block it, with the Contessa; a blocked assassination does not "
        "give the 3 coins back.\n"
        "🏴 Steal (Captain): take 2 coins from a player (1 if they have only 1). Only the "
        "target can block it, with a Captain or an Ambassador.\n"
        "🔄 Exchange (Ambassador): draw 2 cards from the deck, choose among them and your own "
        "cards which to keep (as many as you had) and put the rest back. It cannot be "
        "blocked.\n\n"
        "Anyone may claim any character: bluffing is allowed. Every claim, an action or a "
        "counteraction (a block), can be challenged by any player. If it was a bluff, the "
        "bluffer turns a card face up and the action or block fails (an Assassin caught "
        "bluffing gets the 3 coins back). If the claim was true, the player shows the card, "
        "puts it back into the deck and draws a new one, the challenger turns a card face up, "
        "and the action or block goes ahead. A blocked action fails unless someone challenges "
        "the block successfully.\n\n"
        "A player with both cards face up is out of the game.\n\n"
        "⏳ Every decision has a time limit (/settings). If your turn runs out, you take "
        "Income (with 10 or more coins, you stage a Coup against the next player); a claim or "
        "block left unanswered counts as a pass; the card to turn face up is picked at "
        "random, and an exchange keeps your cards. Reach the skipped-turns limit and you are "
        "removed from the game."
    )


def variant_rules_text(t: Translator, variant: Variant) -> str:
    """What a variant changes in the rules (empty for the base game)."""
    parts = []
    if variant.inquisitor:
        parts.append(
            t.gettext(
                "🔍 Inquisitor: the Inquisitor replaces the Ambassador (3 cards; no one may "
                "claim the Ambassador).\n"
                "🔄 Exchange (Inquisitor): draw 1 card from the deck, choose among it and your "
                "own cards which to keep (as many as you had) and put the other back. It cannot "
                "be blocked.\n"
                "🔍 Examine (Inquisitor): the player you choose shows you one of their cards "
                "(they choose which; only you see it). Then you let them keep it, or make them "
                "put it into the deck and draw a new one. It cannot be blocked.\n"
                "🏴 Steal: the target can block it with a Captain or an Inquisitor."
            )
        )
    if variant.reformation:
        sides = t.gettext(
            "⚖️ Reformation: every player is on a side, Loyalists 🔵 or Reformists 🔴, "
            "alternating around the table. While both sides are in the game, you cannot stage "
            "a Coup against, assassinate or steal from a player of your side, nor block their "
            "Foreign Aid."
        )
        if variant.inquisitor:  # Examine exists only with the Inquisitor
            sides += " " + t.gettext("Nor can you examine a player of your side.")
        sides += " " + t.gettext(
            "But you may challenge any player, your own side too. Once everyone left is on one "
            "side, these limits are gone."
        )
        parts.append(
            sides
            + "\n"
            + t.gettext(
                "🔀 Conversion: pay 1 coin to change your own side, or 2 coins to change "
                "another player's. The coins go into the Reserve 🐷, not the treasury. No one "
                "can block or challenge it.\n"
                "🐷 Embezzlement: say you have no Duke and take every coin in the Reserve. "
                "It cannot be blocked, but anyone can challenge it: if you do have a Duke, you "
                "turn a card face up and take nothing from the Reserve; if not, you show your "
                "cards, put them into the deck and draw new ones, the challenger turns a "
                "card face up, and you still take the Reserve. An empty Reserve cannot be "
                "embezzled.\n"
                "With 10 or more coins you must still stage a Coup."
            )
        )
    return "\n\n".join(parts)


def rules_for(t: Translator, variant: Variant) -> str:
    """The rules of a game of this variant: the base rules, then what the variant changes."""
    if variant is Variant.BASE:
        return rules_text(t)
    # Named first: the base rules below speak of what the variant may replace (the Ambassador).
    head = t.gettext("🃏 This game's variant: {variant} (what it changes is at the end).")
    return "\n\n".join(
        [
            head.format(variant=variant_name(t, variant)),
            rules_text(t),
            variant_rules_text(t, variant),
        ]
    )


def variants_list_text(t: Translator) -> str:
    """The short list of variants a group can choose (private /rules, outside a game)."""
    return t.gettext(
        "🃏 Variants (a group's admins choose one in /settings; /rules in the group explains "
        "it):\n"
        "🔍 Inquisitor: the Inquisitor replaces the Ambassador; he exchanges 1 card, examines "
        "another player's card and blocks Steal.\n"
        "⚖️ Reformation: Loyalists and Reformists, who cannot attack their own side; "
        "Conversion and Embezzlement of the Reserve.\n"
        "Reformation + Inquisitor: both at once."
    )


def start_text(t: Translator) -> str:
    """The reply to /start in private."""
    return t.gettext(
        "👋 Hello! Now I can send you your cards. Add me to a group and say /newgame to play."
    )


def language_screen(t: Translator) -> Screen:
    """The language picker."""
    return Screen(
        t.gettext("🌐 Choose your language:"),
        rows_of(
            [
                {"text": t.gettext(language.button), "data": callbacks.language(language.code)}
                for language in LANGUAGE_TABLE
            ]
        ),
    )


# ---- group settings ------------------------------------------------------------------


def _language_label(t: Translator, s: ChatSettings) -> str:
    language = t.gettext(LANGUAGE_NAMED[s.language].name)
    return t.gettext("🌐 Language: {value}").format(value=language)


def _answers_label(t: Translator, s: ChatSettings) -> str:
    where = t.gettext("at the table") if s.answers == "table" else t.gettext("in private")
    return t.gettext("🗳 Answers: {value}").format(value=where)


def _variant_label(t: Translator, s: ChatSettings) -> str:
    # TRANSLATORS: the variant setting's button; {value} is the variant's name.
    return t.gettext("🃏 {value}").format(value=variant_name(t, s.variant))


# The words of each row of the settings screen, by the setting's key (service/settings.py
# has the rows, in order, and what each button switches to).
SETTING_LABELS: dict[str, Callable[[Translator, ChatSettings], str]] = {
    "lang": _language_label,
    "turn": lambda t, s: t.gettext("▶️ Turn: {value}").format(value=seconds_text(t, s.turn)),
    "response": lambda t, s: t.gettext("⏳ Responses: {value}").format(
        value=seconds_text(t, s.response)
    ),
    "lose_card": lambda t, s: t.gettext("🔻 Losing a card: {value}").format(
        value=seconds_text(t, s.lose_card)
    ),
    "exchange": lambda t, s: t.gettext("🔄 Exchange: {value}").format(
        value=seconds_text(t, s.exchange)
    ),
    "lobby": lambda t, s: t.gettext("🎲 Lobby: {value}").format(value=seconds_text(t, s.lobby)),
    "afk_limit": lambda t, s: t.ngettext(
        "💤 Removed after {n} missed turn", "💤 Removed after {n} missed turns", s.afk_limit
    ).format(n=s.afk_limit),
    "answers": _answers_label,
    "variant": _variant_label,
}


def settings_screen(t: Translator, current: ChatSettings) -> Screen:
    """The group's settings; each button switches one of them to its next value."""
    text = t.gettext("⚙️ Settings for new games (admins can change them):")
    rows = [
        [{"text": SETTING_LABELS[s.key](t, current), "data": callbacks.setting(s.key)}]
        for s in SETTINGS
    ]
    return Screen(text, rows)
