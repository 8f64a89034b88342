"""Engine events and names as text, per recipient and language (through gettext only)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from ..engine import Action, Allegiance, Character, DecisionKind
from ..engine import events as ev
from .action_words import declaration
from .forms import Case, action_in, character_in
from .i18n import Translator
from .names import ACTION_NAMES as ACTION_NAMES
from .names import ALLEGIANCE_NAMES as ALLEGIANCE_NAMES
from .names import CHARACTER_NAMES as CHARACTER_NAMES
from .names import VARIANT_NAMES as VARIANT_NAMES
from .names import Names as Names
from .names import action_name as action_name
from .names import character_name as character_name
from .names import variant_name as variant_name


def block_text(
    t: Translator, character: Character, blocker: str, actor: str, you: str | None = None
) -> str:
    """The sentence "X blocks it with the <character>" (the line before names the move and
    its actor), with the character in the instrumental.

    `you` is "blocker" or "actor" when the reader is that player, else None.
    """
    texts = {
        # TRANSLATORS: {character_ins}: the character in the instrumental case ("with the Duke").
        "blocker": t.gettext("🛡 You block with the {character_ins}."),
        # TRANSLATORS: {character_ins}: the character in the instrumental case ("with the Duke").
        "actor": t.gettext("🛡 {blocker} blocks you with the {character_ins}."),
        # TRANSLATORS: {character_ins}: the character in the instrumental case ("with the Duke").
        None: t.gettext("🛡 {blocker} blocks it with the {character_ins}."),
    }
    text = texts[you]
    return text.format(
        blocker=blocker, actor=actor, character_ins=character_in(t, character, Case.INSTRUMENTAL)
    )


def cards_text(t: Translator, cards: Iterable[Character]) -> str:
    """Cards as a short list: "Duke, Captain"."""
    return ", ".join(character_name(t, c) for c in cards)


def cards_line(t: Translator, cards: Sequence[Character]) -> str:
    """A player's face-down cards, "Your card" when one is left."""
    return t.ngettext("🂠 Your card: {cards}", "🂠 Your cards: {cards}", len(cards)).format(
        cards=cards_text(t, cards)
    )


def coins_text(t: Translator, n: int) -> str:
    """A number of coins."""
    return t.ngettext("{n} coin", "{n} coins", n).format(n=n)


class _Describer:
    """Formats one event for one viewer; `you` is the viewer's id (None for the group)."""

    def __init__(self, t: Translator, names: Names, you: int | None) -> None:
        self.t = t
        self.names = names
        self.you = you

    def name(self, player_id: int | None) -> str:
        if player_id is None:
            return "?"
        return self.names.get(player_id, str(player_id))

    def game_started(self, e: ev.GameStarted) -> str:
        seats = ", ".join(self.name(p) for p in e.seats)
        return self.t.gettext("🎲 The game begins! Seats: {seats}. {first} goes first.").format(
            seats=seats, first=self.name(e.first)
        )

    def action_declared(self, e: ev.ActionDeclared) -> str:
        actor, target = self.name(e.actor), self.name(e.target)
        mine, at_me = e.actor == self.you, e.target is not None and e.target == self.you
        text = None
        if not (e.action is Action.EXCHANGE and e.claim is Character.INQUISITOR):
            text = declaration(self.t, e.action, mine, at_me)
        if text is None:
            text = self.variant_action_declared(e)
        return text.format(actor=actor, target=target, n=e.cost)

    def variant_action_declared(self, e: ev.ActionDeclared) -> str:
        """The declarations worded apart from their action's row (`action_words`): the
        Inquisitor's Exchange and a Conversion (its cost; of oneself or another)."""
        t = self.t
        mine, at_me = e.actor == self.you, e.target is not None and e.target == self.you
        if e.action is Action.EXCHANGE:
            if mine:
                return t.gettext("🔄 You claim the Inquisitor to exchange a card.")
            return t.gettext("🔄 {actor} claims the Inquisitor to exchange a card.")
        assert e.action is Action.CONVERT
        if e.actor == e.target:
            if mine:
                return t.ngettext(
                    "🔀 You pay {n} coin into the Reserve and change sides.",
                    "🔀 You pay {n} coins into the Reserve and change sides.",
                    e.cost,
                )
            return t.ngettext(
                "🔀 {actor} pays {n} coin into the Reserve and changes sides.",
                "🔀 {actor} pays {n} coins into the Reserve and changes sides.",
                e.cost,
            )
        if mine:
            return t.ngettext(
                "🔀 You pay {n} coin into the Reserve to convert {target}.",
                "🔀 You pay {n} coins into the Reserve to convert {target}.",
                e.cost,
            )
        if at_me:
            return t.ngettext(
                "🔀 {actor} pays {n} coin into the Reserve to convert you.",
                "🔀 {actor} pays {n} coins into the Reserve to convert you.",
                e.cost,
            )
        return t.ngettext(
            "🔀 {actor} pays {n} coin into the Reserve to convert {target}.",
            "🔀 {actor} pays {n} coins into the Reserve to convert {target}.",
            e.cost,
        )

    def response_passed(self, e: ev.ResponsePassed) -> str:
        if e.player == self.you:
            return self.t.gettext("✅ You pass.")
        return self.t.gettext("✅ {player} passes.").format(player=self.name(e.player))

    def challenge_declared(self, e: ev.ChallengeDeclared) -> str:
        character = character_name(self.t, e.character)
        if e.challenger == self.you:
            text = self.t.gettext("⚔️ You challenge {claimant}: really the {character}?")
        elif e.claimant == self.you:
            text = self.t.gettext("⚔️ {challenger} challenges you: really the {character}?")
        else:
            text = self.t.gettext("⚔️ {challenger} challenges {claimant}: really the {character}?")
        return text.format(
            challenger=self.name(e.challenger), claimant=self.name(e.claimant), character=character
        )

    def claim_proven(self, e: ev.ClaimProven) -> str:
        character = character_name(self.t, e.character)
        if e.claimant == self.you:
            text = self.t.gettext("🃏 You show the {character}: the challenge fails.")
        else:
            text = self.t.gettext("🃏 {claimant} shows the {character}: the challenge fails.")
        return text.format(claimant=self.name(e.claimant), character=character)

    def card_returned(self, e: ev.CardReturned) -> str | None:
        if e.player == self.you:
            return None  # their own line says which card they drew (CardReplaced)
        # TRANSLATORS: after winning a challenge the player's shown card goes back into the
        # deck, which is shuffled, and they draw a card (which one is secret).
        return self.t.gettext(
            "♻️ {player} shuffles the {character} back into the deck and draws a new card."
        ).format(player=self.name(e.player), character=character_name(self.t, e.character))

    def claim_failed(self, e: ev.ClaimFailed) -> str:
        character = character_name(self.t, e.character)
        if e.claimant == self.you:
            text = self.t.gettext("❌ You have no {character}: the challenge succeeds.")
        else:
            text = self.t.gettext("❌ {claimant} has no {character}: the challenge succeeds.")
        return text.format(claimant=self.name(e.claimant), character=character)

    def block_declared(self, e: ev.BlockDeclared) -> str:
        return block_text(
            self.t,
            e.character,
            self.name(e.blocker),
            self.name(e.actor),
            ("blocker" if e.blocker == self.you else "actor" if e.actor == self.you else None),
        )

    def action_blocked(self, e: ev.ActionBlocked) -> str:
        # TRANSLATORS: {character_gen} is the blocking character in the genitive ("Duke's");
        # {action_subj} the blocked action as the subject of "fails" ("the assassination").
        return self.t.gettext("🛡 The {character_gen} block stands: {action_subj} fails.").format(
            character_gen=character_in(self.t, e.character, Case.GENITIVE),
            action_subj=action_in(self.t, e.action, Case.SUBJECT),
        )

    def coins_refunded(self, e: ev.CoinsRefunded) -> str:
        if e.player == self.you:
            text = self.t.ngettext(
                "↩️ You get {n} coin back.", "↩️ You get {n} coins back.", e.amount
            )
        else:
            text = self.t.ngettext(
                "↩️ {player} gets {n} coin back.", "↩️ {player} gets {n} coins back.", e.amount
            )
        return text.format(player=self.name(e.player), n=e.amount)

    def action_resolved(self, e: ev.ActionResolved) -> str | None:
        if e.action is Action.INCOME:
            return None  # "takes Income" was just said; "takes 1 coin" would repeat it
        t = self.t
        actor, target, n = self.name(e.actor), self.name(e.target), e.amount
        if e.action is Action.STEAL:
            if e.actor == self.you:
                text = t.ngettext(
                    "🏴 You steal {n} coin from {target}.",
                    "🏴 You steal {n} coins from {target}.",
                    n,
                )
            elif e.target == self.you:
                text = t.ngettext(
                    "🏴 {actor} steals {n} coin from you.",
                    "🏴 {actor} steals {n} coins from you.",
                    n,
                )
            else:
                text = t.ngettext(
                    "🏴 {actor} steals {n} coin from {target}.",
                    "🏴 {actor} steals {n} coins from {target}.",
                    n,
                )
        elif e.action is Action.ASSASSINATE:
            if e.target == self.you:
                text = t.gettext("🗡 The assassination succeeds: you lose a card.")
            else:
                text = t.gettext("🗡 The assassination succeeds: {target} loses a card.")
        elif e.action is Action.COUP:
            if e.target == self.you:
                text = t.gettext("💥 The Coup succeeds: you lose a card.")
            else:
                text = t.gettext("💥 The Coup succeeds: {target} loses a card.")
        elif e.action is Action.EMBEZZLE:
            if e.actor == self.you:
                text = t.ngettext(
                    "🐷 You take {n} coin from the Reserve.",
                    "🐷 You take {n} coins from the Reserve.",
                    n,
                )
            else:
                text = t.ngettext(
                    "🐷 {actor} takes {n} coin from the Reserve.",
                    "🐷 {actor} takes {n} coins from the Reserve.",
                    n,
                )
        elif e.actor == self.you:
            text = t.ngettext("💰 You take {n} coin.", "💰 You take {n} coins.", n)
        else:
            text = t.ngettext("💰 {actor} takes {n} coin.", "💰 {actor} takes {n} coins.", n)
        return text.format(actor=actor, target=target, n=n)

    def action_fizzled(self, e: ev.ActionFizzled) -> str:
        if e.target == self.you:
            return self.t.gettext("💨 You are already out: nothing happens.")
        return self.t.gettext("💨 {target} is already out: nothing happens.").format(
            target=self.name(e.target)
        )

    def card_revealed(self, e: ev.CardRevealed) -> str:
        character = character_name(self.t, e.character)
        if e.player == self.you:
            text = self.t.gettext("🔻 You turn your {character} face up.")
        else:
            text = self.t.gettext("🔻 {player} turns the {character} face up.")
        return text.format(player=self.name(e.player), character=character)

    def player_eliminated(self, e: ev.PlayerEliminated) -> str:
        if e.player == self.you:
            return self.t.gettext("☠️ You are out of the game.")
        return self.t.gettext("☠️ {player} is out of the game.").format(player=self.name(e.player))

    def exchange_completed(self, e: ev.ExchangeCompleted) -> str:
        if e.actor == self.you:
            return self.t.gettext("🔄 You shuffle the rest back into the deck.")
        return self.t.gettext("🔄 {actor} finishes the exchange.").format(actor=self.name(e.actor))

    def decision_timed_out(self, e: ev.DecisionTimedOut) -> str:
        t = self.t
        if e.player == self.you:
            text = {
                DecisionKind.TURN: t.gettext("⌛ Your time ran out."),
                DecisionKind.RESPONSE: t.gettext("⌛ Your time ran out: you pass."),
                DecisionKind.LOSE_CARD: t.gettext(
                    "⌛ Your time ran out: a card is picked at random."
                ),
                DecisionKind.EXCHANGE: t.gettext("⌛ Your time ran out: you keep what you had."),
                DecisionKind.SHOW_CARD: t.gettext(
                    "⌛ Your time ran out: the card to show is picked at random."
                ),
                DecisionKind.EXAMINE: t.gettext("⌛ Your time ran out: the card stays."),
            }[e.decision]
        else:
            text = {
                DecisionKind.TURN: t.gettext("⌛ {player} ran out of time."),
                DecisionKind.RESPONSE: t.gettext("⌛ No answer from {player}: pass."),
                DecisionKind.LOSE_CARD: t.gettext(
                    "⌛ {player} ran out of time: a card is picked at random."
                ),
                DecisionKind.EXCHANGE: t.gettext(
                    "⌛ {player} ran out of time and keeps what they had."
                ),
                DecisionKind.SHOW_CARD: t.gettext(
                    "⌛ {player} ran out of time: the card to show is picked at random."
                ),
                DecisionKind.EXAMINE: t.gettext("⌛ {player} ran out of time: the card stays."),
            }[e.decision]
        return text.format(player=self.name(e.player))

    def player_left(self, e: ev.PlayerLeft) -> str:
        # Leaving (of one's own accord, or after missing turns) is worded apart from being
        # knocked out ("is out of the game"), which usually follows it in the same message.
        if e.player == self.you:
            if e.afk:
                return self.t.gettext("🚪 You missed too many turns and leave the game.")
            return self.t.gettext("🚪 You leave the game.")
        if e.afk:
            text = self.t.gettext("🚪 {player} missed too many turns and leaves the game.")
        else:
            text = self.t.gettext("🚪 {player} leaves the game.")
        return text.format(player=self.name(e.player))

    def game_ended(self, e: ev.GameEnded) -> str:
        if e.winner == self.you:
            return self.t.gettext("🏆 You win!")
        return self.t.gettext("🏆 {winner} wins!").format(winner=self.name(e.winner))

    # ---- the variants (VARIANTS.md) ----------------------------------------------------

    def allegiances_assigned(self, e: ev.AllegiancesAssigned) -> str:
        sides = {
            a: [self.name(p) for p, s in zip(e.seats, e.allegiances, strict=True) if s is a]
            for a in Allegiance
        }
        return self.t.gettext("⚖️ Loyalists: {loyalists}. Reformists: {reformists}.").format(
            loyalists=", ".join(sides[Allegiance.LOYALIST]) or "–",
            reformists=", ".join(sides[Allegiance.REFORMIST]) or "–",
        )

    def allegiance_changed(self, e: ev.AllegianceChanged) -> str:
        t = self.t
        loyal = e.allegiance is Allegiance.LOYALIST
        if e.player == self.you:
            text = (
                t.gettext("🔀 You are now a Loyalist.")
                if loyal
                else t.gettext("🔀 You are now a Reformist.")
            )
        else:
            text = (
                t.gettext("🔀 {player} is now a Loyalist.")
                if loyal
                else t.gettext("🔀 {player} is now a Reformist.")
            )
        return text.format(player=self.name(e.player))

    def card_shown(self, e: ev.CardShown) -> str:
        if e.actor == self.you:
            text = self.t.gettext("👁 {target} shows you a card.")
        elif e.target == self.you:
            text = self.t.gettext("👁 You show a card; only {actor} sees it.")
        else:
            text = self.t.gettext("👁 {target} shows a card; only {actor} sees it.")
        return text.format(actor=self.name(e.actor), target=self.name(e.target))

    def examine_decided(self, e: ev.ExamineDecided) -> str:
        t = self.t
        if e.actor == self.you:
            text = (
                t.gettext("👁 You make {target} swap the card for one from the deck.")
                if e.forced
                else t.gettext("👁 You let {target} keep the card.")
            )
        elif e.target == self.you:
            text = (
                t.gettext("👁 {actor} makes you swap the card for one from the deck.")
                if e.forced
                else t.gettext("👁 {actor} lets you keep the card.")
            )
        else:
            text = (
                t.gettext("👁 {actor} makes {target} swap the card for one from the deck.")
                if e.forced
                else t.gettext("👁 {actor} lets {target} keep the card.")
            )
        return text.format(actor=self.name(e.actor), target=self.name(e.target))

    def embezzlement_challenged(self, e: ev.EmbezzlementChallenged) -> str:
        if e.challenger == self.you:
            text = self.t.gettext("⚔️ You challenge {claimant}: does {claimant} have a Duke?")
        elif e.claimant == self.you:
            text = self.t.gettext("⚔️ {challenger} challenges you: do you have a Duke?")
        else:
            text = self.t.gettext(
                "⚔️ {challenger} challenges {claimant}: does {claimant} have a Duke?"
            )
        return text.format(challenger=self.name(e.challenger), claimant=self.name(e.claimant))

    def embezzler_had_duke(self, e: ev.EmbezzlerHadDuke) -> str:
        if e.claimant == self.you:
            return self.t.gettext("❌ You do have a Duke: the challenge succeeds.")
        return self.t.gettext("❌ {claimant} does have a Duke: the challenge succeeds.").format(
            claimant=self.name(e.claimant)
        )

    def embezzler_cleared(self, e: ev.EmbezzlerCleared) -> str:
        cards = cards_text(self.t, e.cards)
        if e.claimant == self.you:
            # Their own line says which cards they drew (CardsRedrawn).
            return self.t.gettext("🃏 You show {cards}: no Duke, the challenge fails.").format(
                cards=cards
            )
        shown = self.t.gettext("🃏 {claimant} shows {cards}: no Duke, the challenge fails.")
        # TRANSLATORS: the cards just shown go back into the deck and are replaced, so that
        # nobody at the table believes the player still holds them.
        redrawn = self.t.ngettext(
            "♻️ {player} shuffles the card shown back into the deck and draws a new one.",
            "♻️ {player} shuffles the cards shown back into the deck and draws new ones.",
            len(e.cards),
        )
        name = self.name(e.claimant)
        return shown.format(claimant=name, cards=cards) + "\n" + redrawn.format(player=name)

    def examined_card(self, e: ev.ExaminedCard) -> str:
        return self.t.gettext("👁 {target} shows you: {character}.").format(
            target=self.name(e.target), character=character_name(self.t, e.character)
        )

    def card_shown_to(self, e: ev.CardShownTo) -> str:
        return self.t.gettext("👁 {actor} sees your card: {character}.").format(
            actor=self.name(e.actor), character=character_name(self.t, e.character)
        )

    def cards_redrawn(self, e: ev.CardsRedrawn) -> str:
        # One card or two: the player may have only one left.
        return self.t.ngettext(
            "🔁 Your card went back into the deck; you drew: {drawn}.",
            "🔁 Your cards went back into the deck; you drew: {drawn}.",
            len(e.drawn),
        ).format(drawn=cards_text(self.t, e.drawn))

    def cards_dealt(self, e: ev.CardsDealt) -> str:
        return cards_line(self.t, e.cards)

    def card_replaced(self, e: ev.CardReplaced) -> str:
        return self.t.gettext("🔁 Your {shown} went back into the deck; you drew: {drawn}.").format(
            shown=character_name(self.t, e.shown), drawn=character_name(self.t, e.drawn)
        )

    def exchange_drawn(self, e: ev.ExchangeDrawn) -> str:
        return self.t.gettext("🔄 You drew: {cards}.").format(cards=cards_text(self.t, e.drawn))

    def exchange_kept(self, e: ev.ExchangeKept) -> str:
        return self.t.gettext("🔄 You keep: {cards}.").format(cards=cards_text(self.t, e.kept))


# Each describer takes its own event type: the table is keyed by that type.
_HANDLERS: dict[type[ev.Event], Callable[[_Describer, Any], str | None]] = {
    ev.GameStarted: _Describer.game_started,
    ev.ActionDeclared: _Describer.action_declared,
    ev.ResponsePassed: _Describer.response_passed,
    ev.ChallengeDeclared: _Describer.challenge_declared,
    ev.ClaimProven: _Describer.claim_proven,
    ev.CardReturned: _Describer.card_returned,
    ev.ClaimFailed: _Describer.claim_failed,
    ev.BlockDeclared: _Describer.block_declared,
    ev.ActionBlocked: _Describer.action_blocked,
    ev.CoinsRefunded: _Describer.coins_refunded,
    ev.ActionResolved: _Describer.action_resolved,
    ev.ActionFizzled: _Describer.action_fizzled,
    ev.CardRevealed: _Describer.card_revealed,
    ev.PlayerEliminated: _Describer.player_eliminated,
    ev.ExchangeCompleted: _Describer.exchange_completed,
    ev.DecisionTimedOut: _Describer.decision_timed_out,
    ev.PlayerLeft: _Describer.player_left,
    ev.GameEnded: _Describer.game_ended,
    ev.CardsDealt: _Describer.cards_dealt,
    ev.CardReplaced: _Describer.card_replaced,
    ev.ExchangeDrawn: _Describer.exchange_drawn,
    ev.ExchangeKept: _Describer.exchange_kept,
    ev.AllegiancesAssigned: _Describer.allegiances_assigned,
    ev.AllegianceChanged: _Describer.allegiance_changed,
    ev.CardShown: _Describer.card_shown,
    ev.ExamineDecided: _Describer.examine_decided,
    ev.EmbezzlementChallenged: _Describer.embezzlement_challenged,
    ev.EmbezzlerHadDuke: _Describer.embezzler_had_duke,
    ev.EmbezzlerCleared: _Describer.embezzler_cleared,
    ev.ExaminedCard: _Describer.examined_card,
    ev.CardShownTo: _Describer.card_shown_to,
    ev.CardsRedrawn: _Describer.cards_redrawn,
}

# Events that say nothing on their own: the board and the prompts carry them.
SILENT: frozenset[type[ev.Event]] = frozenset({ev.TurnStarted})


def told(events: Sequence[ev.Event]) -> list[ev.Event]:
    """The events worth a line each: a knock-out after its player left (of their own accord
    or for missed turns) is left out, since the leave's line has said they are gone; so is
    the end of an exchange whose time ran out, since the timeout's line has said its player
    keeps what they had ("finishes the exchange" after it reads as if they chose)."""
    left: set[int] = set()
    timed_out: set[int] = set()
    out: list[ev.Event] = []
    for e in events:
        if isinstance(e, ev.PlayerLeft):
            left.add(e.player)
        elif isinstance(e, ev.PlayerEliminated) and e.player in left:
            continue
        elif isinstance(e, ev.DecisionTimedOut) and e.decision is DecisionKind.EXCHANGE:
            timed_out.add(e.player)
        elif isinstance(e, ev.ExchangeCompleted) and e.actor in timed_out:
            continue
        out.append(e)
    return out


def describe(event: ev.Event, t: Translator, names: Names, viewer: int | None = None) -> str | None:
    """One event as one line for `viewer` (None: the group); None when there is nothing to say.

    A private event is described only to its owner.
    """
    if event.recipient is not None and event.recipient != viewer:
        return None
    if type(event) in SILENT:
        return None
    return _HANDLERS[type(event)](_Describer(t, names, viewer), event)


def involves(event: ev.Event, player_id: int) -> bool:
    """True when the event is about `player_id` (as actor, target, claimant, ...)."""
    for attr in ("player", "actor", "target", "claimant", "challenger", "blocker", "winner"):
        if getattr(event, attr, None) == player_id:
            return True
    return False
