"""The Coup state machine: what is legal now, and what a decision or a timeout does.

`Game` is the whole machine; its rules are built up phase by phase in `state`, `options`,
`effects`, `claims` and `flow`, and here it starts a game and applies each decision."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, NoReturn

from . import events as ev
from .cards import (
    CARDS_PER_PLAYER,
    FORCED_COUP_COINS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    STARTING_COINS,
    TOTAL_COINS,
    Action,
    Allegiance,
    Character,
    Variant,
    conversion_cost,
    full_deck,
    sorted_cards,
)
from .decisions import (
    Block,
    Challenge,
    Decision,
    DecisionKind,
    ForceExchange,
    KeepCards,
    LetKeep,
    LoseCard,
    Pass,
    ShowCard,
    TakeAction,
    take,
)
from .errors import IllegalDecision, Reason
from .flow import Flow
from .rng import GameRandom
from .state import DEFAULT_AFK_LIMIT, RULES, Phase, PlayerState, TurnState


class Game(Flow):
    """One game of Coup. Decisions mutate it in place and return the events they caused.

    Use `Game.new(...)` to start one and `clone()` to keep an earlier state.
    """

    __slots__ = ()

    # ---- setup ---------------------------------------------------------------------

    @classmethod
    def new(
        cls,
        player_ids: Sequence[int],
        seed: int,
        *,
        deck: Sequence[Character] | None = None,
        keep_seating: bool = False,
        first_player: int | None = None,
        afk_limit: int = DEFAULT_AFK_LIMIT,
        variant: Variant | str = Variant.BASE,
    ) -> tuple[Game, list[ev.Event]]:
        """Start a game of `variant` (VARIANTS.md; base by default) with its opening events.

        `deck`, when given, is the full draw order (top card first): seats are dealt two
        cards each from the top, in seat order, and the deck is not shuffled.
        `keep_seating` keeps the given seat order and `first_player` fixes who starts;
        both are for tests and replays.
        """
        try:
            if not isinstance(variant, Variant):
                variant = Variant.parse(variant)
        except ValueError:
            raise IllegalDecision(Reason.BAD_SETUP, f"unknown variant {variant!r}") from None
        ids = list(player_ids)
        if not MIN_PLAYERS <= len(ids) <= MAX_PLAYERS or len(set(ids)) != len(ids):
            raise IllegalDecision(Reason.BAD_SETUP, "a game needs 2 to 6 distinct players")
        if afk_limit < 1:
            raise IllegalDecision(Reason.BAD_SETUP, "the AFK limit must be at least 1")
        rng = GameRandom(seed)
        if not keep_seating:
            rng.shuffle(ids)
        if deck is None:
            cards = full_deck(variant)
            rng.shuffle(cards)
        else:
            cards = list(deck)
            if sorted_cards(cards) != sorted_cards(full_deck(variant)):
                raise IllegalDecision(Reason.BAD_SETUP, "the deck must be the 15 court cards")
            cards.reverse()
        if first_player is None:
            first = ids[rng.randrange(len(ids))]
        elif first_player in ids:
            first = first_player
        else:
            raise IllegalDecision(Reason.BAD_SETUP, "the first player must be in the game")
        players = []
        for pid in ids:
            hand = [cards.pop() for _ in range(CARDS_PER_PLAYER)]
            coins = STARTING_COINS
            if len(ids) == 2 and pid == first:
                coins -= 1
            players.append(PlayerState(pid, coins, hand))
        treasury = TOTAL_COINS - sum(p.coins for p in players)
        game = cls(
            players,
            cards,
            treasury,
            rng,
            TurnState(first),
            afk_limit=afk_limit,
            variant=variant,
        )
        opening: list[ev.Event] = [
            ev.GameStarted(seats=tuple(ids), coins=tuple(p.coins for p in players), first=first)
        ]
        if RULES[variant].allegiances:
            # A fair coin gives the first player's allegiance; the rest alternate in seat
            # order from the first player.
            side = Allegiance.LOYALIST if rng.randrange(2) == 0 else Allegiance.REFORMIST
            start = ids.index(first)
            sides: dict[int, Allegiance] = {}
            for k in range(len(players)):
                seat = players[(start + k) % len(players)]
                seat.allegiance = sides[seat.id] = side
                side = side.other
            opening.append(
                ev.AllegiancesAssigned(
                    seats=tuple(ids), allegiances=tuple(sides[p.id] for p in players)
                )
            )
        opening += [ev.CardsDealt(p.id, tuple(p.hidden)) for p in players]
        opening.append(ev.TurnStarted(player=first, must_coup=False))
        return game, opening

    def clone(self) -> Game:
        """Return an independent copy of this game."""
        t = self.turn
        return Game(
            [
                PlayerState(
                    p.id, p.coins, list(p.hidden), list(p.revealed), p.afk_turns, p.allegiance
                )
                for p in self.players
            ],
            list(self.deck),
            self.treasury,
            GameRandom(self.rng.getstate()),
            TurnState(
                t.actor,
                t.action,
                t.target,
                t.blocker,
                t.block_character,
                list(t.waiting),
                list(t.drawn),
                t.shown,
            ),
            self.phase,
            list(self.losses),
            self.version,
            self.afk_limit,
            self.winner,
            self.variant,
            self.reserve,
        )

    # ---- applying ------------------------------------------------------------------

    def apply(
        self, player_id: int, decision: Decision, expected_version: int | None = None
    ) -> list[ev.Event]:
        """Apply one decision by one player and return the events it caused.

        Anything illegal raises IllegalDecision and leaves the game unchanged. When
        `expected_version` is given and the game has moved on, the decision is STALE.
        """
        self._check_version(expected_version)
        kind, awaited, _ = self._awaiting
        if player_id not in awaited:
            self._refuse_unawaited(player_id)
        try:
            needed, handler = _APPLY[type(decision)]
        except KeyError:
            raise IllegalDecision(Reason.WRONG_KIND, f"unknown decision {decision!r}") from None
        if needed is not kind:
            raise IllegalDecision(Reason.WRONG_KIND, f"a {needed} decision is not due, {kind} is")
        return handler(self, player_id, decision)

    def _refuse_unawaited(self, player_id: int) -> NoReturn:
        """Say why a decision from a player who is not awaited is refused."""
        me = self._by_id.get(player_id)
        if me is None:
            raise IllegalDecision(Reason.UNKNOWN_PLAYER, f"{player_id} is not in this game")
        if not me.hidden:
            raise IllegalDecision(Reason.NOT_ALIVE, f"{player_id} is out of the game")
        raise IllegalDecision(Reason.NOT_YOUR_DECISION, f"{player_id} is not awaited now")

    # One handler per decision type (see _APPLY). Any decision of one's own resets the
    # AFK streak; only a timed-out turn adds to it (apply_timeout).

    def _apply_pass(self, player_id: int, decision: Pass) -> list[ev.Event]:
        self._by_id[player_id].afk_turns = 0
        waiting = self.turn.waiting
        waiting.remove(player_id)
        out: list[ev.Event] = [ev.ResponsePassed(player_id)]
        return self._settle_window(out) if waiting else self._settle(out)

    def _apply_challenge(self, player_id: int, decision: Challenge) -> list[ev.Event]:
        turn = self.turn
        assert turn.action is not None
        spec = self._rules.actions[turn.action]
        # A block on the table may always be challenged; an action only for its claim,
        # and not any more once it survived a challenge (the block window).
        if turn.blocker is None and (spec.claim is None or self.phase is Phase.BLOCK_WINDOW):
            raise IllegalDecision(Reason.NOT_ELIGIBLE, f"{decision} is not open to you now")
        self._by_id[player_id].afk_turns = 0
        out: list[ev.Event] = []
        if spec.inverted:  # Embezzlement (which no one may block)
            self._challenge_embezzlement(player_id, out)
        else:
            self._challenge(player_id, spec, out)
        return self._settle(out)

    def _apply_block(self, player_id: int, decision: Block) -> list[ev.Event]:
        turn = self.turn
        assert turn.action is not None
        spec = self._rules.actions[turn.action]
        if decision.character not in self._rules.characters:
            raise IllegalDecision(
                Reason.NOT_IN_VARIANT, f"there is no {decision.character} in a {self.variant} game"
            )
        if (
            self.phase is Phase.BLOCK_CHALLENGE
            or decision.character not in spec.blockers
            or not (spec.blockable_by_anyone or player_id == turn.target)
        ):
            raise IllegalDecision(Reason.NOT_ELIGIBLE, f"{decision} is not open to you now")
        self._by_id[player_id].afk_turns = 0
        out: list[ev.Event] = []
        self._block(player_id, decision.character, out)
        # The blocker and the actor are alive, so others may challenge the block.
        return self._settle_window(out) if self.turn.waiting else self._settle(out)

    def _apply_take(self, player_id: int, decision: TakeAction) -> list[ev.Event]:
        me = self._by_id[player_id]
        self._validate_action(me, decision)
        me.afk_turns = 0
        out: list[ev.Event] = []
        self._declare(decision, out)
        if self.turn.waiting:  # an action window is open (no one waits otherwise)
            return self._settle_window(out)
        return self._settle(out)

    def _apply_lose(self, player_id: int, decision: LoseCard) -> list[ev.Event]:
        me = self._by_id[player_id]
        if decision.character not in me.hidden:
            raise IllegalDecision(Reason.NO_SUCH_CARD, f"no face-down {decision}")
        me.afk_turns = 0
        out: list[ev.Event] = []
        self.losses.pop(0)
        self._lose(me, decision.character, out)
        return self._settle(out)

    def _apply_keep(self, player_id: int, decision: KeepCards) -> list[ev.Event]:
        me = self._by_id[player_id]
        self._validate_keep(me, decision.cards)
        me.afk_turns = 0
        out: list[ev.Event] = []
        self._finish_exchange(list(decision.cards), out)
        return self._settle(out)

    def _apply_show(self, player_id: int, decision: ShowCard) -> list[ev.Event]:
        me = self._by_id[player_id]
        if decision.character not in me.hidden:
            raise IllegalDecision(Reason.NO_SUCH_CARD, f"no face-down {decision.character}")
        me.afk_turns = 0
        out: list[ev.Event] = []
        self._show(me, decision.character, out)
        return self._settle(out)

    def _apply_let_keep(self, player_id: int, decision: LetKeep) -> list[ev.Event]:
        self._by_id[player_id].afk_turns = 0
        out: list[ev.Event] = []
        self._finish_examine(False, out)
        return self._settle(out)

    def _apply_force(self, player_id: int, decision: ForceExchange) -> list[ev.Event]:
        self._by_id[player_id].afk_turns = 0
        out: list[ev.Event] = []
        self._finish_examine(True, out)
        return self._settle(out)

    def apply_timeout(self, expected_version: int | None = None) -> list[ev.Event]:
        """Apply the RULES.md timeout default for whoever is awaited now."""
        self._check_version(expected_version)
        kind, awaited, _ = self._awaiting
        out: list[ev.Event] = [ev.DecisionTimedOut(pid, kind) for pid in awaited if kind]
        match kind:
            case DecisionKind.LOSE_CARD:
                me = self._by_id[awaited[0]]
                self.losses.pop(0)
                self._lose(me, self.rng.choice(me.hidden), out)
            case DecisionKind.TURN:
                me = self._by_id[awaited[0]]
                me.afk_turns += 1
                if me.afk_turns >= self.afk_limit:
                    self._remove(me, afk=True, out=out)
                else:
                    self._declare(self._default_action(me), out)
            case DecisionKind.RESPONSE:
                self.turn.waiting = []
            case DecisionKind.EXCHANGE:
                self._finish_exchange(list(self._by_id[awaited[0]].hidden), out)
            case DecisionKind.SHOW_CARD:
                me = self._by_id[awaited[0]]
                self._show(me, self.rng.choice(me.hidden), out)
            case DecisionKind.EXAMINE:
                self._finish_examine(False, out)
        return self._settle(out)

    def leave(self, player_id: int, expected_version: int | None = None) -> list[ev.Event]:
        """Take a living player out of the game: all their cards turn face up."""
        self._check_version(expected_version)
        me = self.player(player_id)
        if not me.hidden:
            raise IllegalDecision(Reason.NOT_ALIVE, f"{player_id} is already out")
        out: list[ev.Event] = []
        self._remove(me, afk=False, out=out)
        return self._settle(out)

    def _check_version(self, expected: int | None) -> None:
        if self.winner is not None:
            raise IllegalDecision(Reason.GAME_OVER, "the game is over")
        if expected is not None and expected != self.version:
            raise IllegalDecision(
                Reason.STALE, f"decision for version {expected}, game is at {self.version}"
            )

    def _default_action(self, me: PlayerState) -> TakeAction:
        if me.coins < FORCED_COUP_COINS:
            return take(Action.INCOME)
        for p in self._after[me.id]:
            if p.hidden and self.may_target(me, p):
                return take(Action.COUP, p.id)
        raise AssertionError("a forced coup needs a living opponent")

    def _validate_action(self, me: PlayerState, decision: TakeAction) -> None:
        action = decision.action
        spec = self._rules.actions.get(action)
        if spec is None:
            if isinstance(action, Action):
                raise IllegalDecision(
                    Reason.NOT_IN_VARIANT, f"there is no {action} in a {self.variant} game"
                )
            raise IllegalDecision(Reason.WRONG_KIND, f"unknown action {action!r}")
        coins = me.coins
        if coins >= FORCED_COUP_COINS and action is not Action.COUP:
            raise IllegalDecision(Reason.MUST_COUP, "with 10 or more coins you must coup")
        if action in _VARIANT_ONLY:
            self._validate_variant_action(me, decision)
            return
        if coins < spec.cost:
            raise IllegalDecision(
                Reason.CANNOT_AFFORD, f"{decision.action} costs {spec.cost}, you have {coins}"
            )
        if not spec.targeted:
            if decision.target is not None:
                raise IllegalDecision(Reason.BAD_TARGET, f"{decision.action} takes no target")
            return
        target = self._by_id.get(decision.target) if decision.target is not None else None
        if target is None or target is me or not target.hidden:
            raise IllegalDecision(Reason.BAD_TARGET, "the target must be a living opponent")
        if target.coins == 0 and action is Action.STEAL:
            raise IllegalDecision(Reason.BAD_TARGET, "you cannot steal from a player with 0 coins")
        if self._rules.allegiances and not self.may_target(me, target):
            raise IllegalDecision(
                Reason.SAME_ALLEGIANCE, "while the table is divided, target the other allegiance"
            )

    def _validate_variant_action(self, me: PlayerState, decision: TakeAction) -> None:
        """Conversion and Embezzlement (Examine is checked like the other targeted ones)."""
        if decision.action is Action.EMBEZZLE:
            if decision.target is not None:
                raise IllegalDecision(Reason.BAD_TARGET, "embezzle takes no target")
            if self.reserve <= 0:
                raise IllegalDecision(Reason.RESERVE_EMPTY, "the Treasury Reserve is empty")
            return
        target = self._by_id.get(decision.target) if decision.target is not None else None
        if target is None or not target.hidden:
            raise IllegalDecision(Reason.BAD_TARGET, "convert yourself or a living player")
        cost = conversion_cost(me.id, target.id)
        if me.coins < cost:
            raise IllegalDecision(
                Reason.CANNOT_AFFORD, f"this conversion costs {cost}, you have {me.coins}"
            )

    def _validate_keep(self, me: PlayerState, cards: Iterable[Character]) -> None:
        chosen = list(cards)
        if len(chosen) != len(me.hidden):
            raise IllegalDecision(Reason.BAD_SELECTION, f"keep exactly {len(me.hidden)} card(s)")
        pool = me.hidden + self.turn.drawn
        for card in chosen:
            if card not in pool:
                raise IllegalDecision(Reason.BAD_SELECTION, f"{card} is not among your cards")
            pool.remove(card)


_VARIANT_ONLY = frozenset({Action.CONVERT, Action.EMBEZZLE})


# How apply handles each decision type: the kind of decision it answers, and its handler.
_APPLY: dict[type[Any], tuple[DecisionKind, Callable[[Game, int, Any], list[ev.Event]]]] = {
    TakeAction: (DecisionKind.TURN, Game._apply_take),
    Pass: (DecisionKind.RESPONSE, Game._apply_pass),
    Challenge: (DecisionKind.RESPONSE, Game._apply_challenge),
    Block: (DecisionKind.RESPONSE, Game._apply_block),
    LoseCard: (DecisionKind.LOSE_CARD, Game._apply_lose),
    KeepCards: (DecisionKind.EXCHANGE, Game._apply_keep),
    ShowCard: (DecisionKind.SHOW_CARD, Game._apply_show),
    LetKeep: (DecisionKind.EXAMINE, Game._apply_let_keep),
    ForceExchange: (DecisionKind.EXAMINE, Game._apply_force),
}

__all__ = ["Game", "Phase", "PlayerState", "TurnState"]
