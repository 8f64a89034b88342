"""The Coup state machine: what is legal now, and what a decision or a timeout does."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache, partial
from itertools import combinations, product
from typing import Any, NoReturn

from . import events as ev
from .cards import (
    ACTION_GAIN,
    ACTIONS,
    CARDS_PER_PLAYER,
    CHARACTER_ORDER,
    EXCHANGE_DRAW,
    FORCED_COUP_COINS,
    INQUISITOR_EXCHANGE_DRAW,
    MAX_PLAYERS,
    MIN_PLAYERS,
    STARTING_COINS,
    STEAL_AMOUNT,
    TOTAL_COINS,
    VARIANT_ACTIONS,
    Action,
    ActionSpec,
    Allegiance,
    Character,
    Variant,
    characters,
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
    versus,
)
from .errors import IllegalDecision, Reason
from .rng import GameRandom

# Reading an enum member through its class (Phase.TURN) costs a descriptor call, ten
# times a module global: the hot paths read these aliases instead.
_AC_ASSASSINATE = Action.ASSASSINATE
_AC_COUP = Action.COUP
_AC_CONVERT = Action.CONVERT
_AC_EMBEZZLE = Action.EMBEZZLE
_AC_EXAMINE = Action.EXAMINE
_AC_EXCHANGE = Action.EXCHANGE
_AC_FOREIGN_AID = Action.FOREIGN_AID
_AC_INCOME = Action.INCOME
_AC_STEAL = Action.STEAL
_DK_EXAMINE = DecisionKind.EXAMINE
_DK_EXCHANGE = DecisionKind.EXCHANGE
_DK_SHOW_CARD = DecisionKind.SHOW_CARD
_DK_LOSE_CARD = DecisionKind.LOSE_CARD
_DK_RESPONSE = DecisionKind.RESPONSE
_DK_TURN = DecisionKind.TURN

DEFAULT_AFK_LIMIT = 2
_UNTARGETED = tuple(take(a) for a, spec in ACTIONS.items() if not spec.targeted)
# Indexes into versus(player): the targeted actions, in the order options list them.
_COUP, _ASSASSINATE, _STEAL = range(3)
_COUP_COST = ACTIONS[_AC_COUP].cost
_ASSASSINATE_COST = ACTIONS[_AC_ASSASSINATE].cost
_new_awaiting = partial(tuple.__new__, Awaiting)  # skips NamedTuple's Python-level __new__


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


_PH_ACTION_WINDOW = Phase.ACTION_WINDOW
_PH_BLOCKED = Phase.BLOCKED
_PH_BLOCK_CHALLENGE = Phase.BLOCK_CHALLENGE
_PH_BLOCK_WINDOW = Phase.BLOCK_WINDOW
_PH_END_TURN = Phase.END_TURN
_PH_EXCHANGE = Phase.EXCHANGE
_PH_EXAMINE_SHOW = Phase.EXAMINE_SHOW
_PH_EXAMINE_DECIDE = Phase.EXAMINE_DECIDE
_PH_OVER = Phase.OVER
_PH_RESOLVE = Phase.RESOLVE
_PH_TURN = Phase.TURN

_WINDOWS: dict[Phase, Window] = {
    _PH_ACTION_WINDOW: Window.ACTION,
    _PH_BLOCK_WINDOW: Window.BLOCK,
    _PH_BLOCK_CHALLENGE: Window.BLOCK_CHALLENGE,
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
        "_actions",
        "_after",
        "_awaiting",
        "_by_id",
        "_characters",
        "_exchange_draw",
        "_inquisitor",
        "_others",
        "_reformation",
        "_responses",
        "_round",
        "_someone_out",
        "_strict",
        "_versus",
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
        phase: Phase = _PH_TURN,
        losses: list[int] | None = None,
        version: int = 0,
        afk_limit: int = DEFAULT_AFK_LIMIT,
        winner: int | None = None,
        variant: Variant = Variant.BASE,
        reserve: int = 0,
    ) -> None:
        self.variant = variant
        self.reserve = reserve  # the Treasury Reserve (Reformation); 0 in other games
        # The clarifications of VARIANTS.md that would change base games (a card to lose
        # when both are alike is taken without asking; any own decision resets the AFK
        # streak) apply in the new variants only (`_strict`): base games stay as they were.
        (
            self._actions,
            self._responses,
            self._characters,
            self._inquisitor,
            self._reformation,
            self._exchange_draw,
            self._strict,
        ) = _VARIANT_RULES[variant]
        self.players = players
        self._by_id = {p.id: p for p in players}
        # Seating never changes, so who sits after whom is worked out once.
        self._others: dict[int, tuple[PlayerState, ...]] = {}  # in seat order
        self._after: dict[int, tuple[PlayerState, ...]] = {}  # clockwise from the next seat
        self._round: dict[int, tuple[PlayerState, ...]] = {}  # the same, ending with them
        self._versus: dict[int, tuple[TakeAction, ...]] = {}  # Coup/Assassinate/Steal on them
        ring = players * 2
        n = len(players)
        for seat, p in enumerate(players):
            pid = p.id
            self._others[pid] = tuple(players[:seat] + players[seat + 1 :])
            self._after[pid] = after = tuple(ring[seat + 1 : seat + n])
            self._round[pid] = (*after, p)
            self._versus[pid] = versus(pid)
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
            if variant.__class__ is not Variant:
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
            players.append(PlayerState(id=pid, coins=coins, hidden=hand))
        treasury = TOTAL_COINS - sum(p.coins for p in players)
        game = cls(
            players,
            cards,
            treasury,
            rng,
            TurnState(actor=first),
            afk_limit=afk_limit,
            variant=variant,
        )
        opening: list[ev.Event] = [
            ev.GameStarted(seats=tuple(ids), coins=tuple(p.coins for p in players), first=first)
        ]
        if variant.reformation:
            # A fair coin gives the first player's allegiance; the rest alternate in seat
            # order from the first player.
            side = Allegiance.LOYALIST if rng.randrange(2) == 0 else Allegiance.REFORMIST
            start = ids.index(first)
            for k in range(len(players)):
                players[(start + k) % len(players)].allegiance = side
                side = side.other
            opening.append(
                ev.AllegiancesAssigned(
                    seats=tuple(ids),
                    allegiances=tuple(p.allegiance for p in players),  # type: ignore[misc]
                )
            )
        opening += [ev.CardsDealt(player=p.id, cards=tuple(p.hidden)) for p in players]
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
        return self.phase is _PH_OVER

    def alive_players(self) -> list[PlayerState]:
        """Living players in seat order."""
        return [p for p in self.players if p.hidden]

    def divided(self) -> bool:
        """Reformation: True while the living players include both allegiances."""
        if not self._reformation:
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
        return not (self._reformation and target.allegiance is actor.allegiance and self.divided())

    def deck_characters(self) -> frozenset[Character]:
        """The five characters of this game's deck (the only ones anyone may claim)."""
        return self._characters

    def action_spec(self, action: Action) -> ActionSpec:
        """The rules of an action in this game's variant (KeyError if it has none)."""
        return self._actions[action]

    def awaiting(self) -> Awaiting:
        """Who must decide now, and the kind of decision (which sets the deadline)."""
        return self._awaiting

    def _compute_awaiting(self) -> Awaiting:
        phase = self.phase
        if phase is _PH_OVER:
            return Awaiting(None, ())
        if self.losses:
            return _new_awaiting((_DK_LOSE_CARD, (self.losses[0],), None))
        if phase is _PH_TURN:
            return _new_awaiting((_DK_TURN, (self.turn.actor,), None))
        if phase is _PH_EXCHANGE:
            return _new_awaiting((_DK_EXCHANGE, (self.turn.actor,), None))
        if phase is _PH_EXAMINE_SHOW:
            return _new_awaiting((_DK_SHOW_CARD, (self.turn.target,), None))
        if phase is _PH_EXAMINE_DECIDE:
            return _new_awaiting((_DK_EXAMINE, (self.turn.actor,), None))
        return _new_awaiting((_DK_RESPONSE, tuple(self.turn.waiting), _WINDOWS[phase]))

    def _settle(self, out: list[ev.Event]) -> list[ev.Event]:
        """Run the turn forward, then close the change: bump the version and note who is
        awaited next. Returns `out`, the change's events."""
        self._advance(out)
        self.version += 1
        self._awaiting = self._compute_awaiting()
        return out

    def _window_stays_open(self, out: list[ev.Event]) -> list[ev.Event]:
        """_settle() for a change that left the same response window open to others."""
        self.version += 1
        self._awaiting = _new_awaiting(
            (_DK_RESPONSE, tuple(self.turn.waiting), _WINDOWS[self.phase])
        )
        return out

    def legal_decisions(self, player_id: int) -> list[Decision]:
        """Every decision `player_id` may take now (empty when it is not theirs to take)."""
        kind, awaited, _ = self._awaiting
        if player_id not in awaited:
            return []
        if kind is _DK_RESPONSE:
            turn = self.turn
            return list(self._responses[self.phase, turn.action, player_id == turn.target])
        me = self._by_id[player_id]
        if kind is _DK_TURN:
            if self._strict:
                return self._variant_turn_options(me)
            return self._turn_options(me)
        if kind is _DK_LOSE_CARD:
            return list(_LOSE_OPTIONS[tuple(me.hidden)])
        if kind is _DK_EXCHANGE:
            return list(_keep_options(tuple(me.hidden + self.turn.drawn), len(me.hidden)))
        if kind is _DK_SHOW_CARD:
            return [show(c) for c in sorted_cards(list(set(me.hidden)))]
        return [LET_KEEP, FORCE_EXCHANGE]

    def _variant_turn_options(self, me: PlayerState) -> list[Decision]:
        """The turn's options in the Inquisitor and Reformation variants."""
        coins = me.coins
        opponents = [p for p in self._others[me.id] if p.hidden]
        rivals = opponents
        if self._reformation and self.divided():
            rivals = [p for p in opponents if p.allegiance is not me.allegiance]
        if coins >= FORCED_COUP_COINS:
            return [take(_AC_COUP, p.id) for p in rivals]
        options: list[Decision] = list(_UNTARGETED)
        if self._reformation and self.reserve > 0:
            options.append(take(_AC_EMBEZZLE))
        if coins >= _COUP_COST:
            options += [take(_AC_COUP, p.id) for p in rivals]
        if coins >= _ASSASSINATE_COST:
            options += [take(_AC_ASSASSINATE, p.id) for p in rivals]
        options += [take(_AC_STEAL, p.id) for p in rivals if p.coins]
        if self._inquisitor:
            options += [take(_AC_EXAMINE, p.id) for p in rivals]
        if self._reformation and coins >= 1:
            options.append(take(_AC_CONVERT, me.id))
            if coins >= 2:
                options += [take(_AC_CONVERT, p.id) for p in opponents]
        return options

    def _turn_options(self, me: PlayerState) -> list[Decision]:
        coins = me.coins
        versus = self._versus
        opponents = [p for p in self._others[me.id] if p.hidden]
        if coins >= FORCED_COUP_COINS:
            return [versus[p.id][_COUP] for p in opponents]
        options: list[Decision] = list(_UNTARGETED)
        if coins >= _COUP_COST:
            options += [versus[p.id][_COUP] for p in opponents]
        if coins >= _ASSASSINATE_COST:
            options += [versus[p.id][_ASSASSINATE] for p in opponents]
        options += [versus[p.id][_STEAL] for p in opponents if p.coins]
        return options

    def _open_window(self, phase: Phase) -> None:
        """Open a response window and list who may answer it, in seat order after the actor."""
        turn = self.turn
        self.phase = phase
        if phase is _PH_ACTION_WINDOW:
            turn.waiting = [p.id for p in self._after[turn.actor] if p.hidden]
            if self._reformation and turn.action is _AC_FOREIGN_AID and self.divided():
                # While divided, only the other allegiance may block Foreign Aid.
                side = self._by_id[turn.actor].allegiance
                turn.waiting = [
                    pid for pid in turn.waiting if self._by_id[pid].allegiance is not side
                ]
        elif phase is _PH_BLOCK_CHALLENGE:
            blocker = turn.blocker
            turn.waiting = [p.id for p in self._round[turn.actor] if p.hidden and p.id != blocker]
        else:
            target = self._by_id.get(turn.target)  # type: ignore[arg-type]
            turn.waiting = [target.id] if target is not None and target.hidden else []

    # ---- applying ------------------------------------------------------------------

    def apply(
        self, player_id: int, decision: Decision, expected_version: int | None = None
    ) -> list[ev.Event]:
        """Apply one decision by one player and return the events it caused.

        Anything illegal raises IllegalDecision and leaves the game unchanged. When
        `expected_version` is given and the game has moved on, the decision is STALE.
        """
        if self.phase is _PH_OVER or (
            expected_version is not None and expected_version != self.version
        ):
            self._check_version(expected_version)
        kind, awaited, _ = self._awaiting
        if player_id not in awaited:
            self._refuse_unawaited(player_id)
        try:
            needed, handler = _HANDLERS[type(decision)]
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

    def _apply_pass(self, player_id: int, decision: Pass) -> list[ev.Event]:
        if self._strict:
            self._by_id[player_id].afk_turns = 0
        waiting = self.turn.waiting
        waiting.remove(player_id)
        out: list[ev.Event] = [ev.ResponsePassed(player_id)]
        if waiting:  # others may still answer: nothing else moves
            return self._window_stays_open(out)
        return self._settle(out)

    def _apply_challenge(self, player_id: int, decision: Challenge) -> list[ev.Event]:
        phase = self.phase
        if phase is not _PH_BLOCK_CHALLENGE and (
            phase is not _PH_ACTION_WINDOW or self._actions[self.turn.action].claim is None  # type: ignore[index]
        ):
            raise IllegalDecision(Reason.NOT_ELIGIBLE, f"{decision} is not open to you now")
        out: list[ev.Event] = []
        if not self._strict:
            self._challenge(player_id, out)
            return self._settle(out)
        self._by_id[player_id].afk_turns = 0
        if phase is _PH_ACTION_WINDOW and self.turn.action is _AC_EMBEZZLE:
            self._challenge_embezzlement(player_id, out)
        else:
            self._challenge(player_id, out)
        return self._settle(out)

    def _apply_block(self, player_id: int, decision: Block) -> list[ev.Event]:
        turn = self.turn
        spec = self._actions[turn.action]  # type: ignore[index]
        if decision.character not in self._characters:
            raise IllegalDecision(
                Reason.NOT_IN_VARIANT, f"there is no {decision.character} in a {self.variant} game"
            )
        if (
            self.phase is _PH_BLOCK_CHALLENGE
            or decision.character not in spec.blockers
            or not (spec.blockable_by_anyone or player_id == turn.target)
        ):
            raise IllegalDecision(Reason.NOT_ELIGIBLE, f"{decision} is not open to you now")
        if self._strict:
            self._by_id[player_id].afk_turns = 0
        out: list[ev.Event] = []
        self._block(player_id, decision.character, out)
        if turn.waiting:  # the blocker and the actor are alive: the window stays open
            return self._window_stays_open(out)
        return self._settle(out)

    def _apply_take(self, player_id: int, decision: TakeAction) -> list[ev.Event]:
        me = self._by_id[player_id]
        self._validate_action(me, decision)
        me.afk_turns = 0
        out: list[ev.Event] = []
        self._declare(decision, out)
        if self.phase is _PH_ACTION_WINDOW and self.turn.waiting:
            return self._window_stays_open(out)
        return self._settle(out)

    def _apply_lose(self, player_id: int, decision: LoseCard) -> list[ev.Event]:
        me = self._by_id[player_id]
        if decision.character not in me.hidden:
            raise IllegalDecision(Reason.NO_SUCH_CARD, f"no face-down {decision}")
        if self._strict:
            me.afk_turns = 0
        out: list[ev.Event] = []
        self.losses.pop(0)
        self._lose(me, decision.character, out)
        return self._settle(out)

    def _apply_keep(self, player_id: int, decision: KeepCards) -> list[ev.Event]:
        self._validate_keep(self._by_id[player_id], decision.cards)
        if self._strict:
            self._by_id[player_id].afk_turns = 0
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
        waiting = self.awaiting()
        out: list[ev.Event] = []
        if waiting.kind is _DK_LOSE_CARD:
            me = self._by_id[waiting.players[0]]
            out.append(ev.DecisionTimedOut(me.id, waiting.kind))
            self.losses.pop(0)
            self._lose(me, self.rng.choice(me.hidden), out)
        elif waiting.kind is _DK_TURN:
            me = self._by_id[self.turn.actor]
            out.append(ev.DecisionTimedOut(me.id, waiting.kind))
            me.afk_turns += 1
            if me.afk_turns >= self.afk_limit:
                self._remove(me, afk=True, out=out)
            else:
                self._declare(self._default_action(me), out)
        elif waiting.kind is _DK_RESPONSE:
            for pid in waiting.players:
                out.append(ev.DecisionTimedOut(pid, waiting.kind))
            self.turn.waiting = []
        elif waiting.kind is _DK_EXCHANGE:
            me = self._by_id[self.turn.actor]
            out.append(ev.DecisionTimedOut(me.id, waiting.kind))
            self._finish_exchange(list(me.hidden), out)
        elif waiting.kind is _DK_SHOW_CARD:
            me = self._by_id[waiting.players[0]]
            out.append(ev.DecisionTimedOut(me.id, waiting.kind))
            self._show(me, self.rng.choice(me.hidden), out)
        elif waiting.kind is _DK_EXAMINE:
            out.append(ev.DecisionTimedOut(waiting.players[0], waiting.kind))
            self._finish_examine(False, out)
        else:
            raise IllegalDecision(Reason.GAME_OVER, "the game is over")
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
        if self.phase is _PH_OVER:
            raise IllegalDecision(Reason.GAME_OVER, "the game is over")
        if expected is not None and expected != self.version:
            raise IllegalDecision(
                Reason.STALE, f"decision for version {expected}, game is at {self.version}"
            )

    def _default_action(self, me: PlayerState) -> TakeAction:
        if me.coins < FORCED_COUP_COINS:
            return take(_AC_INCOME)
        for p in self._after[me.id]:
            if p.hidden and self.may_target(me, p):
                return take(_AC_COUP, p.id)
        raise AssertionError("a forced coup needs a living opponent")

    def _validate_action(self, me: PlayerState, decision: TakeAction) -> None:
        action = decision.action
        spec = self._actions.get(action)
        if spec is None:
            if isinstance(action, Action):
                raise IllegalDecision(
                    Reason.NOT_IN_VARIANT, f"there is no {action} in a {self.variant} game"
                )
            raise IllegalDecision(Reason.WRONG_KIND, f"unknown action {action!r}")
        coins = me.coins
        if coins >= FORCED_COUP_COINS and action is not _AC_COUP:
            raise IllegalDecision(Reason.MUST_COUP, "with 10 or more coins you must coup")
        if self._strict and action in _VARIANT_ONLY:
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
        target = self._by_id.get(decision.target)  # type: ignore[arg-type]
        if target is None or target is me or not target.hidden:
            raise IllegalDecision(Reason.BAD_TARGET, "the target must be a living opponent")
        if action is _AC_STEAL and target.coins == 0:
            raise IllegalDecision(Reason.BAD_TARGET, "you cannot steal from a player with 0 coins")
        if self._reformation and not self.may_target(me, target):
            raise IllegalDecision(
                Reason.SAME_ALLEGIANCE, "while the table is divided, target the other allegiance"
            )

    def _validate_variant_action(self, me: PlayerState, decision: TakeAction) -> None:
        """Conversion and Embezzlement (Examine is checked like the other targeted ones)."""
        if decision.action is _AC_EMBEZZLE:
            if decision.target is not None:
                raise IllegalDecision(Reason.BAD_TARGET, "embezzle takes no target")
            if self.reserve <= 0:
                raise IllegalDecision(Reason.RESERVE_EMPTY, "the Treasury Reserve is empty")
            return
        target = self._by_id.get(decision.target)  # type: ignore[arg-type]
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
        if action is _AC_CONVERT:
            self._convert(decision, out)
            return
        spec = self._actions[action]
        me = self._by_id[self.turn.actor]
        me.coins -= spec.cost
        self.treasury += spec.cost
        turn = self.turn
        turn.action = action
        turn.target = decision.target
        claim = None if spec.inverted else spec.claim
        out.append(ev.ActionDeclared(me.id, action, decision.target, claim, spec.cost))
        if action is _AC_INCOME or action is _AC_COUP:
            self.phase = _PH_RESOLVE
        else:
            self._open_window(_PH_ACTION_WINDOW)

    def _convert(self, decision: TakeAction, out: list[ev.Event]) -> None:
        """Conversion resolves at once: pay the Reserve, flip the target, end the turn."""
        turn = self.turn
        me = self._by_id[turn.actor]
        target = self._by_id[decision.target]  # type: ignore[index]
        cost = conversion_cost(me.id, target.id)
        me.coins -= cost
        self.reserve += cost
        turn.action = _AC_CONVERT
        turn.target = target.id
        out.append(ev.ActionDeclared(me.id, _AC_CONVERT, target.id, None, cost))
        assert target.allegiance is not None
        target.allegiance = target.allegiance.other
        out.append(ev.AllegianceChanged(me.id, target.id, target.allegiance, self.reserve))
        self.phase = _PH_END_TURN

    def _challenge_embezzlement(self, challenger: int, out: list[ev.Event]) -> None:
        """The inverted challenge: the challenger wins exactly when the actor has a Duke."""
        turn = self.turn
        holder = self._by_id[turn.actor]
        out.append(ev.EmbezzlementChallenged(challenger, holder.id))
        if Character.DUKE in holder.hidden:
            out.append(ev.EmbezzlerHadDuke(holder.id, challenger))
            self.losses.append(holder.id)
            self.phase = _PH_END_TURN
            return
        shown = tuple(holder.hidden)
        out.append(ev.EmbezzlerCleared(holder.id, sorted_cards(shown), challenger))
        self.deck.extend(shown)
        self.rng.shuffle(self.deck)
        holder.hidden = [self.deck.pop() for _ in shown]
        out.append(ev.CardsRedrawn(holder.id, shown, tuple(holder.hidden)))
        self.losses.append(challenger)
        self.phase = _PH_RESOLVE

    def _show(self, target: PlayerState, character: Character, out: list[ev.Event]) -> None:
        """Examine: `target` shows `character` to the actor, and to no one else."""
        turn = self.turn
        turn.shown = character
        out.append(ev.CardShown(turn.actor, target.id))
        out.append(ev.ExaminedCard(turn.actor, target.id, character))
        out.append(ev.CardShownTo(target.id, turn.actor, character))
        self.phase = _PH_EXAMINE_DECIDE

    def _finish_examine(self, force: bool, out: list[ev.Event]) -> None:
        """Examine: keep, or the shown card goes into the deck and the target draws one."""
        turn = self.turn
        target = self._by_id[turn.target]  # type: ignore[index]
        shown = turn.shown
        assert shown is not None
        out.append(ev.ExamineDecided(turn.actor, target.id, force))
        if force:
            self._replace_shown_card(target, shown, out)
        turn.shown = None
        self.phase = _PH_END_TURN

    def _challenge(self, challenger: int, out: list[ev.Event]) -> None:
        turn = self.turn
        assert turn.action is not None
        if self.phase is _PH_BLOCK_CHALLENGE:
            assert turn.blocker is not None and turn.block_character is not None
            claimant, character = turn.blocker, turn.block_character
        else:
            claimant, character = turn.actor, self._actions[turn.action].claim
            assert character is not None
        out.append(ev.ChallengeDeclared(challenger, claimant, character))
        holder = self._by_id[claimant]
        if character in holder.hidden:
            out.append(ev.ClaimProven(claimant, character, challenger))
            self._replace_shown_card(holder, character, out)
            self.losses.append(challenger)
            if self.phase is _PH_BLOCK_CHALLENGE:
                self.phase = _PH_BLOCKED
            elif self._actions[turn.action].blockers:
                self._open_window(_PH_BLOCK_WINDOW)
            else:
                self.phase = _PH_RESOLVE
            return
        out.append(ev.ClaimFailed(claimant, character, challenger))
        self.losses.append(claimant)
        if self.phase is _PH_BLOCK_CHALLENGE:
            self.phase = _PH_RESOLVE
            return
        refund = self._actions[turn.action].cost
        if refund:
            holder.coins += refund
            self.treasury -= refund
            out.append(ev.CoinsRefunded(claimant, refund))
        self.phase = _PH_END_TURN

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
        self._open_window(_PH_BLOCK_CHALLENGE)

    def _resolve(self, out: list[ev.Event]) -> None:
        turn = self.turn
        action = turn.action
        assert action is not None
        me = self._by_id[turn.actor]
        self.phase = _PH_END_TURN
        if action in ACTION_GAIN:
            amount = min(ACTION_GAIN[action], self.treasury)
            me.coins += amount
            self.treasury -= amount
            out.append(ev.ActionResolved(me.id, action, None, amount))
            return
        if action is _AC_EXCHANGE:
            turn.drawn = [self.deck.pop() for _ in range(self._exchange_draw)]
            out.append(ev.ExchangeDrawn(me.id, tuple(turn.drawn)))
            self.phase = _PH_EXCHANGE
            if self._strict:  # one answer (all the cards alike): kept without asking
                keeps = _keep_options(tuple(me.hidden + turn.drawn), len(me.hidden))
                if len(keeps) == 1:
                    self._finish_exchange(list(keeps[0].cards), out)
            return
        if action is _AC_EMBEZZLE:
            amount = self.reserve
            self.reserve = 0
            me.coins += amount
            out.append(ev.ActionResolved(me.id, action, None, amount))
            return
        assert turn.target is not None
        target = self._by_id[turn.target]
        if not target.hidden:
            out.append(ev.ActionFizzled(me.id, action, target.id))
            return
        if action is _AC_EXAMINE:
            if len(set(target.hidden)) == 1:  # one answer: shown without asking
                self._show(target, target.hidden[0], out)
            else:
                self.phase = _PH_EXAMINE_SHOW
            return
        if action is _AC_STEAL:
            amount = min(STEAL_AMOUNT, target.coins)
            target.coins -= amount
            me.coins += amount
            out.append(ev.ActionResolved(me.id, action, target.id, amount))
            return
        out.append(ev.ActionResolved(me.id, action, target.id, 0))
        self.losses.append(target.id)

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
        self.phase = _PH_END_TURN

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
                loser = self._by_id[self.losses[0]]
                if not loser.hidden:
                    self.losses.pop(0)
                elif len(loser.hidden) == 1 or (
                    self._strict and loser.hidden[0] is loser.hidden[1]
                ):  # one answer: no question (new variants only, see __init__)
                    self.losses.pop(0)
                    self._lose(loser, loser.hidden[0], out)
                else:
                    return
                continue
            phase = self.phase
            if phase is _PH_END_TURN:
                self._next_turn(out)
                continue
            turn = self.turn
            actor_alive = bool(self._by_id[turn.actor].hidden)
            if phase is _PH_TURN:
                if actor_alive:
                    return
                self.phase = _PH_END_TURN
            elif phase in _WINDOWS:
                if not actor_alive:
                    self.phase = _PH_END_TURN
                elif phase is _PH_BLOCK_CHALLENGE and not self._by_id[turn.blocker].hidden:
                    self.phase = _PH_RESOLVE  # a blocker who left takes the block along
                elif turn.waiting:
                    return
                elif phase is _PH_BLOCK_CHALLENGE:
                    self.phase = _PH_BLOCKED
                else:
                    self.phase = _PH_RESOLVE
            elif phase is _PH_RESOLVE:
                if actor_alive:
                    self._resolve(out)
                else:
                    self.phase = _PH_END_TURN
            elif phase is _PH_BLOCKED:
                assert turn.action is not None and turn.blocker is not None
                assert turn.block_character is not None
                out.append(
                    ev.ActionBlocked(turn.actor, turn.action, turn.blocker, turn.block_character)
                )
                self.phase = _PH_END_TURN
            elif phase is _PH_EXAMINE_SHOW or phase is _PH_EXAMINE_DECIDE:
                # The Examine ends with no effect when the actor or the target is gone.
                if actor_alive and self._by_id[turn.target].hidden:  # type: ignore[index]
                    return
                turn.shown = None
                self.phase = _PH_END_TURN
            else:
                assert phase is _PH_EXCHANGE, phase  # the kept cards are still to choose
                if actor_alive:
                    return
                self._return_drawn()
                self.phase = _PH_END_TURN

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

    def _next_turn(self, out: list[ev.Event]) -> None:
        for nxt in self._round[self.turn.actor]:
            if nxt.hidden:
                break
        self.turn = TurnState(nxt.id, None, None, None, None, [], [])  # positional: faster
        self.phase = _PH_TURN
        out.append(ev.TurnStarted(nxt.id, nxt.coins >= FORCED_COUP_COINS))

    def _end_game(self, winner: PlayerState, out: list[ev.Event]) -> None:
        self._return_drawn()
        self.turn.shown = None
        self.losses = []
        self.phase = _PH_OVER
        self.winner = winner.id
        out.append(ev.GameEnded(winner.id))

    # ---- invariants ----------------------------------------------------------------

    def coin_count(self) -> int:
        """Coins with the players, in the treasury and in the Reserve: always 50."""
        return self.treasury + self.reserve + sum(p.coins for p in self.players)


_VARIANT_ONLY = frozenset({_AC_CONVERT, _AC_EMBEZZLE})


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
            table[_PH_ACTION_WINDOW, action, is_target] = (*challenge, *blocks, PASS)
            table[_PH_BLOCK_WINDOW, action, is_target] = (*blocks, PASS)
            table[_PH_BLOCK_CHALLENGE, action, is_target] = (CHALLENGE, PASS)
    return table


_RESPONSE_OPTIONS = {v: _response_options(VARIANT_ACTIONS[v]) for v in Variant}

# What Game.__init__ reads for each variant: the action table, the response options, the
# deck's characters, the two switches, the Exchange draw, and whether it is a new variant.
_VARIANT_RULES: dict[
    Variant,
    tuple[
        dict[Action, ActionSpec],
        dict[tuple[Phase, Action, bool], tuple[Decision, ...]],
        frozenset[Character],
        bool,
        bool,
        int,
        bool,
    ],
] = {
    v: (
        VARIANT_ACTIONS[v],
        _RESPONSE_OPTIONS[v],
        frozenset(characters(v)),
        v.inquisitor,
        v.reformation,
        INQUISITOR_EXCHANGE_DRAW if v.inquisitor else EXCHANGE_DRAW,
        v is not Variant.BASE,
    )
    for v in Variant
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


_HANDLERS: dict[type, tuple[DecisionKind, Callable[[Game, int, Any], list[ev.Event]]]] = {
    Pass: (_DK_RESPONSE, Game._apply_pass),
    Challenge: (_DK_RESPONSE, Game._apply_challenge),
    Block: (_DK_RESPONSE, Game._apply_block),
    TakeAction: (_DK_TURN, Game._apply_take),
    LoseCard: (_DK_LOSE_CARD, Game._apply_lose),
    KeepCards: (_DK_EXCHANGE, Game._apply_keep),
    ShowCard: (_DK_SHOW_CARD, Game._apply_show),
    LetKeep: (_DK_EXAMINE, Game._apply_let_keep),
    ForceExchange: (_DK_EXAMINE, Game._apply_force),
}

__all__ = ["Game", "Phase", "PlayerState", "TurnState"]
