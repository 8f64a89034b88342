"""The Coup state machine: what is legal now, and what a decision or a timeout does."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache
from itertools import combinations, product
from typing import Any, NoReturn

from . import events as ev
from .cards import (
    ACTIONS,
    CARDS_PER_PLAYER,
    CHARACTER_ORDER,
    FORCED_COUP_COINS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    RULE_SETS,
    STARTING_COINS,
    STEAL_AMOUNT,
    TOTAL_COINS,
    Action,
    ActionSpec,
    Allegiance,
    Character,
    Variant,
    conversion_cost,
    full_deck,
    sorted_cards,
)
from .decisions import (
    CHALLENGE,
    FORCE_EXCHANGE,
    LET_KEEP,
    PASS,
    Awaiting,
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
    Window,
    block_as,
    lose,
    show,
    take,
)
from .errors import IllegalDecision, Reason
from .rng import GameRandom

DEFAULT_AFK_LIMIT = 2
_UNTARGETED = tuple(take(a) for a, spec in ACTIONS.items() if not spec.targeted)
COUP_COST = ACTIONS[Action.COUP].cost
ASSASSINATE_COST = ACTIONS[Action.ASSASSINATE].cost


def _card_order(cards: tuple[Character, ...]) -> list[int]:
    return [CHARACTER_ORDER[c] for c in cards]


class Phase(StrEnum):
    """Where the turn stands. Pending card losses are settled before the phase goes on."""

    TURN = "turn"
    ACTION_WINDOW = "action_window"
    BLOCK_WINDOW = "block_window"
    BLOCK_CHALLENGE = "block_challenge"
    RESOLVE = "resolve"  # transient: the action takes effect
    BLOCKED = "blocked"  # transient: the block stood
    EXCHANGE = "exchange"
    EXAMINE_SHOW = "examine_show"  # the Examine's target picks the card to show
    EXAMINE_DECIDE = "examine_decide"  # the examiner lets them keep it or forces a swap
    END_TURN = "end_turn"  # transient: the next player's turn begins
    OVER = "over"


# The phases that wait for responders, and their window.
_WINDOWS: dict[Phase, Window] = {
    Phase.ACTION_WINDOW: Window.ACTION,
    Phase.BLOCK_WINDOW: Window.BLOCK,
    Phase.BLOCK_CHALLENGE: Window.BLOCK_CHALLENGE,
}
# The phases that wait for one player: the kind of decision, and whether the one who
# decides is the action's target (the Examine's target shows a card) or else its actor.
_DECIDED_BY_ONE: dict[Phase, tuple[DecisionKind, bool]] = {
    Phase.TURN: (DecisionKind.TURN, False),
    Phase.EXCHANGE: (DecisionKind.EXCHANGE, False),
    Phase.EXAMINE_SHOW: (DecisionKind.SHOW_CARD, True),
    Phase.EXAMINE_DECIDE: (DecisionKind.EXAMINE, False),
}


@dataclass(slots=True)
class PlayerState:
    """One seat: coins, face-down and face-up cards, turns timed out in a row, allegiance."""

    id: int
    coins: int
    hidden: list[Character]
    revealed: list[Character] = field(default_factory=list)
    afk_turns: int = 0
    allegiance: Allegiance | None = None  # Reformation games only

    @property
    def alive(self) -> bool:
        """True while the player holds a face-down card."""
        return bool(self.hidden)


@dataclass(frozen=True, slots=True)
class AimedAt:
    """The targeted decisions aimed at one player (shared values, see `aimed_at`)."""

    coup: TakeAction
    assassinate: TakeAction
    steal: TakeAction
    examine: TakeAction  # Inquisitor
    convert: TakeAction  # Reformation


@lru_cache(maxsize=4096)  # player ids are unbounded: keep the most recently used
def aimed_at(target: int) -> AimedAt:
    """The shared decisions aimed at `target`."""
    return AimedAt(
        take(Action.COUP, target),
        take(Action.ASSASSINATE, target),
        take(Action.STEAL, target),
        take(Action.EXAMINE, target),
        take(Action.CONVERT, target),
    )


@dataclass(slots=True)
class TurnState:
    """The action on the table and the windows around it."""

    actor: int
    action: Action | None = None
    target: int | None = None
    blocker: int | None = None
    block_character: Character | None = None
    waiting: list[int] = field(default_factory=list)  # responders yet to answer
    drawn: list[Character] = field(default_factory=list)
    shown: Character | None = None  # the card the Examine's target showed the actor


class Game:
    """One game of Coup. Decisions mutate it in place and return the events they caused.

    Use `Game.new(...)` to start one and `clone()` to keep an earlier state.
    """

    __slots__ = (
        "_after",
        "_aimed_at",
        "_awaiting",
        "_by_id",
        "_others",
        "_round",
        "_rules",
        "_someone_out",
        "afk_limit",
        "deck",
        "losses",
        "phase",
        "players",
        "reserve",
        "rng",
        "treasury",
        "turn",
        "variant",
        "version",
        "winner",
    )

    def __init__(
        self,
        players: list[PlayerState],
        deck: list[Character],
        treasury: int,
        rng: GameRandom,
        turn: TurnState,
        phase: Phase = Phase.TURN,
        losses: list[int] | None = None,
        version: int = 0,
        afk_limit: int = DEFAULT_AFK_LIMIT,
        winner: int | None = None,
        variant: Variant = Variant.BASE,
        reserve: int = 0,
    ) -> None:
        self.variant = variant
        self.reserve = reserve  # the Treasury Reserve (Reformation); 0 in other games
        self._rules = RULES[variant]
        self.players = players
        self._by_id = {p.id: p for p in players}
        # Seating never changes, so who sits after whom is worked out once.
        self._others: dict[int, tuple[PlayerState, ...]] = {}  # in seat order
        self._after: dict[int, tuple[PlayerState, ...]] = {}  # clockwise from the next seat
        self._round: dict[int, tuple[PlayerState, ...]] = {}  # the same, ending with them
        self._aimed_at = {p.id: aimed_at(p.id) for p in players}
        seats = tuple(players)
        ring = seats * 2
        n = len(seats)
        for seat, p in enumerate(seats):
            self._others[p.id] = seats[:seat] + seats[seat + 1 :]
            self._after[p.id] = ring[seat + 1 : seat + n]
            self._round[p.id] = ring[seat + 1 : seat + n + 1]
        self.deck = deck  # the top of the deck is the end of the list
        self.treasury = treasury
        self.rng = rng
        self.turn = turn
        self.phase = phase
        self.losses = losses if losses is not None else []
        self.version = version
        self.afk_limit = afk_limit
        self.winner = winner
        self._someone_out = False  # set by an elimination, read once by _advance
        # Derived from the state above; kept current after every change (see _settle).
        self._awaiting = self._compute_awaiting()

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

    # ---- reading -------------------------------------------------------------------

    def player(self, player_id: int) -> PlayerState:
        """Return a seat by player id, or raise UNKNOWN_PLAYER."""
        try:
            return self._by_id[player_id]
        except KeyError:
            raise IllegalDecision(Reason.UNKNOWN_PLAYER, f"{player_id} is not in this game")

    def has_player(self, player_id: int) -> bool:
        """True if this id holds a seat (alive or out)."""
        return player_id in self._by_id

    @property
    def over(self) -> bool:
        """True once a winner is known."""
        return self.winner is not None

    def alive_players(self) -> list[PlayerState]:
        """Living players in seat order."""
        return [p for p in self.players if p.hidden]

    def divided(self) -> bool:
        """Reformation: True while the living players include both allegiances."""
        if not self._rules.allegiances:
            return False
        first: Allegiance | None = None
        for p in self.players:
            if p.hidden:
                if first is None:
                    first = p.allegiance
                elif p.allegiance is not first:
                    return True
        return False

    def may_target(self, actor: PlayerState, target: PlayerState) -> bool:
        """Reformation: False when the table is divided and both share an allegiance."""
        return not (
            self._rules.allegiances and target.allegiance is actor.allegiance and self.divided()
        )

    def action_spec(self, action: Action) -> ActionSpec:
        """The rules of an action in this game's variant (KeyError if it has none)."""
        return self._rules.actions[action]

    def awaiting(self) -> Awaiting:
        """Who must decide now, and the kind of decision (which sets the deadline)."""
        return self._awaiting

    def _compute_awaiting(self) -> Awaiting:
        turn = self.turn
        if self.losses:  # settled before anything else (and always empty once over)
            return Awaiting(DecisionKind.LOSE_CARD, (self.losses[0],))
        window = _WINDOWS.get(self.phase)
        if window is not None:
            return Awaiting(DecisionKind.RESPONSE, tuple(turn.waiting), window)
        one = _DECIDED_BY_ONE.get(self.phase)
        if one is None:
            return Awaiting(None, ())  # over
        kind, by_target = one
        if by_target:
            assert turn.target is not None
            return Awaiting(kind, (turn.target,))
        return Awaiting(kind, (turn.actor,))

    def _settle(self, out: list[ev.Event]) -> list[ev.Event]:
        """Run the turn forward, then close the change: bump the version and note who is
        awaited next. Returns `out`, the change's events."""
        self._advance(out)
        self.version += 1
        self._awaiting = self._compute_awaiting()
        return out

    def _settle_window(self, out: list[ev.Event]) -> list[ev.Event]:
        """_settle() for a change that left a response window open to others: nothing runs
        forward, only who is awaited changes."""
        self.version += 1
        self._awaiting = Awaiting(
            DecisionKind.RESPONSE, tuple(self.turn.waiting), _WINDOWS[self.phase]
        )
        return out

    def answers(self) -> list[Decision]:
        """Every answer that anyone awaited may give to the open claim or block, each once:
        the table's buttons, Challenge first, then the blocks, Pass last (empty when no
        claim or block is open)."""
        kind, awaited, _ = self._awaiting
        if kind is not DecisionKind.RESPONSE:
            return []
        offered: list[Decision] = []
        for player_id in awaited:
            offered += (d for d in self.legal_decisions(player_id) if d not in offered)
        return sorted(offered, key=_answer_order)

    def legal_decisions(self, player_id: int) -> list[Decision]:
        """Every decision `player_id` may take now (empty when it is not theirs to take)."""
        kind, awaited, _ = self._awaiting
        if kind is None or player_id not in awaited:
            return []
        return _OPTIONS[kind](self, self._by_id[player_id])

    # What the awaited player may decide, one method per kind of decision (see _OPTIONS).

    def _response_options(self, me: PlayerState) -> list[Decision]:
        turn = self.turn
        assert turn.action is not None
        return list(self._rules.responses[self.phase, turn.action, me.id == turn.target])

    def _lose_options(self, me: PlayerState) -> list[Decision]:
        return list(_LOSE_OPTIONS[tuple(me.hidden)])

    def _exchange_options(self, me: PlayerState) -> list[Decision]:
        return list(_keep_options(tuple(me.hidden + self.turn.drawn), len(me.hidden)))

    def _show_options(self, me: PlayerState) -> list[Decision]:
        return [show(c) for c in sorted_cards(list(set(me.hidden)))]

    def _examine_options(self, me: PlayerState) -> list[Decision]:
        return [LET_KEEP, FORCE_EXCHANGE]

    def _turn_options(self, me: PlayerState) -> list[Decision]:
        """The turn's options, in a fixed order: untargeted actions, then by target."""
        rules = self._rules
        coins = me.coins
        at = self._aimed_at
        opponents = [p for p in self._others[me.id] if p.hidden]
        rivals = opponents
        if rules.allegiances and self.divided():
            rivals = [p for p in opponents if p.allegiance is not me.allegiance]
        if coins >= FORCED_COUP_COINS:
            return [at[p.id].coup for p in rivals]
        options: list[Decision] = list(_UNTARGETED)
        if rules.allegiances and self.reserve > 0:
            options.append(take(Action.EMBEZZLE))
        if coins >= COUP_COST:
            options += [at[p.id].coup for p in rivals]
        if coins >= ASSASSINATE_COST:
            options += [at[p.id].assassinate for p in rivals]
        options += [at[p.id].steal for p in rivals if p.coins]
        if rules.examine:
            options += [at[p.id].examine for p in rivals]
        if rules.allegiances and coins >= 1:
            options.append(at[me.id].convert)
            if coins >= 2:
                options += [at[p.id].convert for p in opponents]
        return options

    # Each response window lists who may answer it, in seat order after the actor.

    def _open_action_window(self) -> None:
        """Anyone may challenge the action's claim or block it (their own rules permitting)."""
        turn = self.turn
        self.phase = Phase.ACTION_WINDOW
        turn.waiting = [p.id for p in self._after[turn.actor] if p.hidden]
        if self._rules.allegiances and turn.action is Action.FOREIGN_AID and self.divided():
            # While divided, only the other allegiance may block Foreign Aid.
            side = self._by_id[turn.actor].allegiance
            turn.waiting = [pid for pid in turn.waiting if self._by_id[pid].allegiance is not side]

    def _open_block_window(self) -> None:
        """The action survived a challenge: its target alone may still block."""
        turn = self.turn
        self.phase = Phase.BLOCK_WINDOW
        target = self._by_id.get(turn.target) if turn.target is not None else None
        turn.waiting = [target.id] if target is not None and target.hidden else []

    def _open_block_challenge(self) -> None:
        """Anyone but the blocker may challenge the block."""
        turn = self.turn
        self.phase = Phase.BLOCK_CHALLENGE
        blocker = turn.blocker
        turn.waiting = [p.id for p in self._round[turn.actor] if p.hidden and p.id != blocker]

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

    # ---- rules ---------------------------------------------------------------------

    def _declare(self, decision: TakeAction, out: list[ev.Event]) -> None:
        action = decision.action
        if self._rules.allegiances and action is Action.CONVERT:
            self._convert(decision, out)
            return
        spec = self._rules.actions[action]
        me = self._by_id[self.turn.actor]
        me.coins -= spec.cost
        self.treasury += spec.cost
        turn = self.turn
        turn.action = action
        turn.target = decision.target
        claim = None if spec.inverted else spec.claim
        out.append(ev.ActionDeclared(me.id, action, decision.target, claim, spec.cost))
        if not spec.answerable:
            self.phase = Phase.RESOLVE
        else:
            self._open_action_window()

    def _convert(self, decision: TakeAction, out: list[ev.Event]) -> None:
        """Conversion resolves at once: pay the Reserve, flip the target, end the turn."""
        turn = self.turn
        me = self._by_id[turn.actor]
        assert decision.target is not None  # checked by _validate_variant_action
        target = self._by_id[decision.target]
        cost = conversion_cost(me.id, target.id)
        me.coins -= cost
        self.reserve += cost
        turn.action = Action.CONVERT
        turn.target = target.id
        out.append(ev.ActionDeclared(me.id, Action.CONVERT, target.id, None, cost))
        assert target.allegiance is not None
        target.allegiance = target.allegiance.other
        out.append(ev.AllegianceChanged(me.id, target.id, target.allegiance, self.reserve))
        self.phase = Phase.END_TURN

    def _challenge_embezzlement(self, challenger: int, out: list[ev.Event]) -> None:
        """The inverted challenge: the challenger wins exactly when the actor has a Duke."""
        turn = self.turn
        holder = self._by_id[turn.actor]
        out.append(ev.EmbezzlementChallenged(challenger, holder.id))
        if Character.DUKE in holder.hidden:
            out.append(ev.EmbezzlerHadDuke(holder.id, challenger))
            self.losses.append(holder.id)
            self.phase = Phase.END_TURN
            return
        shown = tuple(holder.hidden)
        out.append(ev.EmbezzlerCleared(holder.id, sorted_cards(shown), challenger))
        self.deck.extend(shown)
        self.rng.shuffle(self.deck)
        holder.hidden = [self.deck.pop() for _ in shown]
        out.append(ev.CardsRedrawn(holder.id, shown, tuple(holder.hidden)))
        self.losses.append(challenger)
        self.phase = Phase.RESOLVE

    def _show(self, target: PlayerState, character: Character, out: list[ev.Event]) -> None:
        """Examine: `target` shows `character` to the actor, and to no one else."""
        turn = self.turn
        turn.shown = character
        out.append(ev.CardShown(turn.actor, target.id))
        out.append(ev.ExaminedCard(turn.actor, target.id, character))
        out.append(ev.CardShownTo(target.id, turn.actor, character))
        self.phase = Phase.EXAMINE_DECIDE

    def _finish_examine(self, force: bool, out: list[ev.Event]) -> None:
        """Examine: keep, or the shown card goes into the deck and the target draws one."""
        turn = self.turn
        assert turn.target is not None
        target = self._by_id[turn.target]
        shown = turn.shown
        assert shown is not None
        out.append(ev.ExamineDecided(turn.actor, target.id, force))
        if force:
            self._replace_shown_card(target, shown, out)
        turn.shown = None
        self.phase = Phase.END_TURN

    def _challenge(self, challenger: int, spec: ActionSpec, out: list[ev.Event]) -> None:
        """Challenge the claim on the table: the block's if there is one, else the action's."""
        turn = self.turn
        blocked = turn.blocker is not None
        claimant: int | None
        character: Character | None
        if blocked:
            claimant, character = turn.blocker, turn.block_character
        else:
            claimant, character = turn.actor, spec.claim
        assert claimant is not None and character is not None
        out.append(ev.ChallengeDeclared(challenger, claimant, character))
        holder = self._by_id[claimant]
        if character in holder.hidden:
            out.append(ev.ClaimProven(claimant, character, challenger))
            # The table sees the proven card go back and a new one drawn; not which one.
            out.append(ev.CardReturned(claimant, character))
            self._replace_shown_card(holder, character, out)
            self.losses.append(challenger)
            if blocked:
                self.phase = Phase.BLOCKED
            elif spec.blockers:
                self._open_block_window()
            else:
                self.phase = Phase.RESOLVE
            return
        out.append(ev.ClaimFailed(claimant, character, challenger))
        self.losses.append(claimant)
        if blocked:
            self.phase = Phase.RESOLVE
            return
        refund = spec.cost
        if refund:
            holder.coins += refund
            self.treasury -= refund
            out.append(ev.CoinsRefunded(claimant, refund))
        self.phase = Phase.END_TURN

    def _replace_shown_card(
        self, holder: PlayerState, shown: Character, out: list[ev.Event]
    ) -> None:
        holder.hidden.remove(shown)
        self.deck.append(shown)
        self.rng.shuffle(self.deck)
        drawn = self.deck.pop()
        holder.hidden.append(drawn)
        out.append(ev.CardReplaced(holder.id, shown, drawn))

    def _block(self, blocker: int, character: Character, out: list[ev.Event]) -> None:
        turn = self.turn
        assert turn.action is not None
        turn.blocker = blocker
        turn.block_character = character
        out.append(ev.BlockDeclared(blocker, character, turn.actor, turn.action))
        self._open_block_challenge()

    def _step_resolve(self, out: list[ev.Event]) -> bool:
        """The action takes effect (a targeted one fizzles if its target is already out)."""
        turn = self.turn
        assert turn.action is not None
        me = self._by_id[turn.actor]
        self.phase = Phase.END_TURN
        if not me.hidden:  # an actor who is out takes the action along
            return False
        if turn.target is None:
            _RESOLVE[turn.action](self, me, None, out)
            return False
        target = self._by_id[turn.target]
        if target.hidden:
            _RESOLVE[turn.action](self, me, target, out)
        else:
            out.append(ev.ActionFizzled(me.id, turn.action, target.id))
        return False

    # What each action does once it stands (see _RESOLVE); the turn ends unless they say.

    def _gain(self, me: PlayerState, target: PlayerState | None, out: list[ev.Event]) -> None:
        """Income, Foreign Aid and Tax: coins from the treasury, as many as it holds."""
        action = self.turn.action
        assert action is not None
        amount = min(self._rules.actions[action].gain, self.treasury)
        me.coins += amount
        self.treasury -= amount
        out.append(ev.ActionResolved(me.id, action, None, amount))

    def _steal(self, me: PlayerState, target: PlayerState | None, out: list[ev.Event]) -> None:
        assert target is not None
        amount = min(STEAL_AMOUNT, target.coins)
        target.coins -= amount
        me.coins += amount
        out.append(ev.ActionResolved(me.id, Action.STEAL, target.id, amount))

    def _strike(self, me: PlayerState, target: PlayerState | None, out: list[ev.Event]) -> None:
        """Coup and Assassinate: the target loses a card."""
        assert target is not None and self.turn.action is not None
        out.append(ev.ActionResolved(me.id, self.turn.action, target.id, 0))
        self.losses.append(target.id)

    def _draw_for_exchange(
        self, me: PlayerState, target: PlayerState | None, out: list[ev.Event]
    ) -> None:
        turn = self.turn
        turn.drawn = [self.deck.pop() for _ in range(self._rules.exchange_draw)]
        out.append(ev.ExchangeDrawn(me.id, tuple(turn.drawn)))
        self.phase = Phase.EXCHANGE
        keeps = _keep_options(tuple(me.hidden + turn.drawn), len(me.hidden))
        if not self._asks_keep(keeps):
            self._finish_exchange(list(keeps[0].cards), out)

    def _embezzle(self, me: PlayerState, target: PlayerState | None, out: list[ev.Event]) -> None:
        """Embezzlement takes the whole Treasury Reserve."""
        amount = self.reserve
        self.reserve = 0
        me.coins += amount
        out.append(ev.ActionResolved(me.id, Action.EMBEZZLE, None, amount))

    def _examine(self, me: PlayerState, target: PlayerState | None, out: list[ev.Event]) -> None:
        assert target is not None
        if len(set(target.hidden)) == 1:  # one answer: shown without asking
            self._show(target, target.hidden[0], out)
        else:
            self.phase = Phase.EXAMINE_SHOW

    def _finish_exchange(self, kept: list[Character], out: list[ev.Event]) -> None:
        me = self._by_id[self.turn.actor]
        pool = me.hidden + self.turn.drawn
        for card in kept:
            pool.remove(card)
        me.hidden = kept
        self.deck.extend(pool)
        self.rng.shuffle(self.deck)
        self.turn.drawn = []
        out.append(ev.ExchangeKept(me.id, sorted_cards(kept)))
        out.append(ev.ExchangeCompleted(me.id))
        self.phase = Phase.END_TURN

    def _lose(self, me: PlayerState, character: Character, out: list[ev.Event]) -> None:
        me.hidden.remove(character)
        me.revealed.append(character)
        out.append(ev.CardRevealed(me.id, character))
        if not me.hidden:
            self._eliminate(me, out)

    def _eliminate(self, me: PlayerState, out: list[ev.Event]) -> None:
        if me.id in self.turn.waiting:
            self.turn.waiting.remove(me.id)
        coins = me.coins
        self.treasury += coins
        me.coins = 0
        out.append(ev.PlayerEliminated(me.id, coins))
        self._someone_out = True

    def _remove(self, me: PlayerState, afk: bool, out: list[ev.Event]) -> None:
        out.append(ev.PlayerLeft(me.id, afk))
        for card in list(me.hidden):
            me.hidden.remove(card)
            me.revealed.append(card)
            out.append(ev.CardRevealed(me.id, card))
        self._eliminate(me, out)

    def _advance(self, out: list[ev.Event]) -> None:
        """Run the turn forward until someone must decide or the game is over."""
        while True:
            if self._someone_out:
                self._someone_out = False
                if self._decided(out):
                    return
            if self.losses:
                if self._take_loss(out):
                    return
            elif _STEPS[self.phase](self, out):
                return

    def _take_loss(self, out: list[ev.Event]) -> bool:
        """Settle the first pending card loss if it needs no answer; True when it does."""
        loser = self._by_id[self.losses[0]]
        if not loser.hidden:
            self.losses.pop(0)
            return False
        if not self._asks_loss(loser.hidden):
            self.losses.pop(0)
            self._lose(loser, loser.hidden[0], out)
            return False
        return True

    # No question with one answer: a card to lose when one is left or both are alike, an
    # exchange whose every keep is the same, is taken without asking (and no deadline).

    def _asks_loss(self, hand: list[Character]) -> bool:
        return len(set(hand)) > 1

    def _asks_keep(self, keeps: tuple[KeepCards, ...]) -> bool:
        return len(keeps) > 1

    # Each step runs one phase forward and returns True when someone must decide now.

    def _step_turn(self, out: list[ev.Event]) -> bool:
        if self._by_id[self.turn.actor].hidden:
            return True
        self.phase = Phase.END_TURN
        return False

    def _step_window(self, out: list[ev.Event]) -> bool:
        """The action window, or the target's block window after a failed challenge."""
        turn = self.turn
        if not self._by_id[turn.actor].hidden:
            self.phase = Phase.END_TURN
            return False
        if turn.waiting:
            return True
        self.phase = Phase.RESOLVE
        return False

    def _step_block_challenge(self, out: list[ev.Event]) -> bool:
        turn = self.turn
        assert turn.blocker is not None
        if not self._by_id[turn.actor].hidden:
            self.phase = Phase.END_TURN
        elif not self._by_id[turn.blocker].hidden:
            self.phase = Phase.RESOLVE  # a blocker who left takes the block along
        elif turn.waiting:
            return True
        else:
            self.phase = Phase.BLOCKED
        return False

    def _step_blocked(self, out: list[ev.Event]) -> bool:
        turn = self.turn
        assert turn.action is not None and turn.blocker is not None
        assert turn.block_character is not None
        out.append(ev.ActionBlocked(turn.actor, turn.action, turn.blocker, turn.block_character))
        self.phase = Phase.END_TURN
        return False

    def _step_exchange(self, out: list[ev.Event]) -> bool:
        if self._by_id[self.turn.actor].hidden:
            return True  # the kept cards are still to choose
        self._return_drawn()
        self.phase = Phase.END_TURN
        return False

    def _step_examine(self, out: list[ev.Event]) -> bool:
        """The Examine ends with no effect when the actor or the target is gone."""
        turn = self.turn
        assert turn.target is not None
        if self._by_id[turn.actor].hidden and self._by_id[turn.target].hidden:
            return True
        turn.shown = None
        self.phase = Phase.END_TURN
        return False

    def _step_over(self, out: list[ev.Event]) -> bool:
        return True

    def _decided(self, out: list[ev.Event]) -> bool:
        """End the game if at most one player is left; say whether it ended."""
        alive = [p for p in self.players if p.hidden]
        if len(alive) > 1:
            return False
        self._end_game(alive[0], out)
        return True

    def _return_drawn(self) -> None:
        if self.turn.drawn:
            self.deck.extend(self.turn.drawn)
            self.turn.drawn = []
            self.rng.shuffle(self.deck)

    def _step_end_turn(self, out: list[ev.Event]) -> bool:
        """The next living player clockwise begins their turn, and decides now."""
        for nxt in self._round[self.turn.actor]:
            if nxt.hidden:
                break
        self.turn = TurnState(nxt.id)
        self.phase = Phase.TURN
        out.append(ev.TurnStarted(nxt.id, nxt.coins >= FORCED_COUP_COINS))
        return True

    def _end_game(self, winner: PlayerState, out: list[ev.Event]) -> None:
        self._return_drawn()
        self.turn.shown = None
        self.losses = []
        self.phase = Phase.OVER
        self.winner = winner.id
        out.append(ev.GameEnded(winner.id))

    # ---- invariants ----------------------------------------------------------------

    def coin_count(self) -> int:
        """Coins with the players, in the treasury and in the Reserve: always 50."""
        return self.treasury + self.reserve + sum(p.coins for p in self.players)


_VARIANT_ONLY = frozenset({Action.CONVERT, Action.EMBEZZLE})


def _response_options(
    actions: dict[Action, ActionSpec],
) -> dict[tuple[Phase, Action, bool], tuple[Decision, ...]]:
    """What a responder may answer, by window, action and whether they are its target."""
    table: dict[tuple[Phase, Action, bool], tuple[Decision, ...]] = {}
    for action, spec in actions.items():
        for is_target in (False, True):
            blocks = [block_as(c) for c in spec.blockers]
            if not (spec.blockable_by_anyone or is_target):
                blocks = []
            challenge = [CHALLENGE] if spec.challengeable else []
            table[Phase.ACTION_WINDOW, action, is_target] = (*challenge, *blocks, PASS)
            table[Phase.BLOCK_WINDOW, action, is_target] = (*blocks, PASS)
            table[Phase.BLOCK_CHALLENGE, action, is_target] = (CHALLENGE, PASS)
    return table


@dataclass(frozen=True, slots=True)
class Rules:
    """A variant's rules as the state machine reads them, worked out once per variant
    from its composed rule set (`cards.RULE_SETS`: the base game plus its expansions)."""

    actions: dict[Action, ActionSpec]
    # What a responder may answer, by window, action and whether they are its target.
    responses: dict[tuple[Phase, Action, bool], tuple[Decision, ...]]
    characters: frozenset[Character]  # the deck's five characters
    examine: bool  # Examine is a turn's option
    allegiances: bool  # sides, and their limits while the table is divided
    exchange_draw: int


RULES: dict[Variant, Rules] = {
    v: Rules(
        actions=rules.actions,
        responses=_response_options(rules.actions),
        characters=frozenset(rules.characters),
        examine=Action.EXAMINE in rules.actions,
        allegiances=rules.allegiances,
        exchange_draw=rules.exchange_draw,
    )
    for v, rules in RULE_SETS.items()
}

# A hand of one or two face-down cards, in any order -> the cards one may turn up.
_LOSE_OPTIONS: dict[tuple[Character, ...], tuple[LoseCard, ...]] = {
    hand: tuple(lose(c) for c in sorted_cards(list(set(hand))))
    for size in (1, CARDS_PER_PLAYER)
    for hand in product(Character, repeat=size)
}


@lru_cache(maxsize=4096)
def _keep_options(pool: tuple[Character, ...], keep: int) -> tuple[KeepCards, ...]:
    """Every distinct choice of `keep` cards from an exchange's pool, in canonical order."""
    keeps = {sorted_cards(combo) for combo in combinations(pool, keep)}
    return tuple(KeepCards(k) for k in sorted(keeps, key=_card_order))


# How _advance runs each phase forward.
_STEPS: dict[Phase, Callable[[Game, list[ev.Event]], bool]] = {
    Phase.TURN: Game._step_turn,
    Phase.ACTION_WINDOW: Game._step_window,
    Phase.BLOCK_WINDOW: Game._step_window,
    Phase.BLOCK_CHALLENGE: Game._step_block_challenge,
    Phase.RESOLVE: Game._step_resolve,
    Phase.BLOCKED: Game._step_blocked,
    Phase.EXCHANGE: Game._step_exchange,
    Phase.EXAMINE_SHOW: Game._step_examine,
    Phase.EXAMINE_DECIDE: Game._step_examine,
    Phase.END_TURN: Game._step_end_turn,
    Phase.OVER: Game._step_over,
}


def _answer_order(answer: Decision) -> int:
    """Where an answer goes among the table's buttons."""
    return 0 if isinstance(answer, Challenge) else 2 if isinstance(answer, Pass) else 1


# How legal_decisions lists each kind of decision.
_OPTIONS: dict[DecisionKind, Callable[[Game, PlayerState], list[Decision]]] = {
    DecisionKind.TURN: Game._turn_options,
    DecisionKind.RESPONSE: Game._response_options,
    DecisionKind.LOSE_CARD: Game._lose_options,
    DecisionKind.EXCHANGE: Game._exchange_options,
    DecisionKind.SHOW_CARD: Game._show_options,
    DecisionKind.EXAMINE: Game._examine_options,
}

# What each action does once it stands.
_RESOLVE: dict[Action, Callable[[Game, PlayerState, PlayerState | None, list[ev.Event]], None]] = {
    Action.INCOME: Game._gain,
    Action.FOREIGN_AID: Game._gain,
    Action.TAX: Game._gain,
    Action.COUP: Game._strike,
    Action.ASSASSINATE: Game._strike,
    Action.STEAL: Game._steal,
    Action.EXCHANGE: Game._draw_for_exchange,
    Action.EXAMINE: Game._examine,
    Action.EMBEZZLE: Game._embezzle,
}

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
