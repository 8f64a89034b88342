"""A game's state and what reading it tells: the phases, the seats, the turn on the
table, each variant's rules as the machine reads them, and who is awaited now. The rules
build on it phase by phase: `options` (what is legal), `effects` (cards and coins that
move), `claims` (claims, challenges and blocks), `flow` (the turn run forward) and `game`
(decisions applied)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache

from .cards import RULE_SETS, Action, ActionSpec, Allegiance, Character, Variant
from .decisions import (
    CHALLENGE,
    PASS,
    Awaiting,
    Decision,
    DecisionKind,
    TakeAction,
    Window,
    block_as,
    take,
)
from .errors import IllegalDecision, Reason
from .rng import GameRandom

DEFAULT_AFK_LIMIT = 2


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


class GameState:
    """One game's state: seats, deck, treasury, the turn and its phase, and who is
    awaited (kept current after every change). `Game` is what plays it."""

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

    def coin_count(self) -> int:
        """Coins with the players, in the treasury and in the Reserve: always 50."""
        return self.treasury + self.reserve + sum(p.coins for p in self.players)
