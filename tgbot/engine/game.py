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
    MAX_PLAYERS,
    MIN_PLAYERS,
    STARTING_COINS,
    STEAL_AMOUNT,
    TOTAL_COINS,
    Action,
    Character,
    full_deck,
    sorted_cards,
)
from .decisions import (
    CHALLENGE,
    PASS,
    Awaiting,
    Block,
    Challenge,
    Decision,
    DecisionKind,
    KeepCards,
    LoseCard,
    Pass,
    TakeAction,
    Window,
    block_as,
    lose,
    take,
    versus,
)
from .errors import IllegalDecision, Reason
from .rng import GameRandom

# Reading an enum member through its class (Phase.TURN) costs a descriptor call, ten
# times a module global: the hot paths read these aliases instead.
_AC_ASSASSINATE = Action.ASSASSINATE
_AC_COUP = Action.COUP
_AC_EXCHANGE = Action.EXCHANGE
_AC_INCOME = Action.INCOME
_AC_STEAL = Action.STEAL
_DK_EXCHANGE = DecisionKind.EXCHANGE
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
    END_TURN = "end_turn"  # transient: the next player's turn begins
    OVER = "over"


_PH_ACTION_WINDOW = Phase.ACTION_WINDOW
_PH_BLOCKED = Phase.BLOCKED
_PH_BLOCK_CHALLENGE = Phase.BLOCK_CHALLENGE
_PH_BLOCK_WINDOW = Phase.BLOCK_WINDOW
_PH_END_TURN = Phase.END_TURN
_PH_EXCHANGE = Phase.EXCHANGE
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
    """One seat: coins, face-down and face-up cards, turns timed out in a row."""

    id: int
    coins: int
    hidden: list[Character]
    revealed: list[Character] = field(default_factory=list)
    afk_turns: int = 0

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


class Game:
    """One game of Coup. Decisions mutate it in place and return the events they caused.

    Use `Game.new(...)` to start one and `clone()` to keep an earlier state.
    """

    __slots__ = (
        "_after",
        "_awaiting",
        "_by_id",
        "_others",
        "_round",
        "_someone_out",
        "_versus",
        "afk_limit",
        "deck",
        "losses",
        "phase",
        "players",
        "rng",
        "treasury",
        "turn",
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
    ) -> None:
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
    ) -> tuple[Game, list[ev.Event]]:
        """Start a game; return it with its opening events.

        `deck`, when given, is the full draw order (top card first): seats are dealt two
        cards each from the top, in seat order, and the deck is not shuffled.
        `keep_seating` keeps the given seat order and `first_player` fixes who starts;
        both are for tests and replays.
        """
        ids = list(player_ids)
        if not MIN_PLAYERS <= len(ids) <= MAX_PLAYERS or len(set(ids)) != len(ids):
            raise IllegalDecision(Reason.BAD_SETUP, "a game needs 2 to 6 distinct players")
        if afk_limit < 1:
            raise IllegalDecision(Reason.BAD_SETUP, "the AFK limit must be at least 1")
        rng = GameRandom(seed)
        if not keep_seating:
            rng.shuffle(ids)
        if deck is None:
            cards = full_deck()
            rng.shuffle(cards)
        else:
            cards = list(deck)
            if sorted_cards(cards) != sorted_cards(full_deck()):
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
        game = cls(players, cards, treasury, rng, TurnState(actor=first), afk_limit=afk_limit)
        opening: list[ev.Event] = [
            ev.GameStarted(seats=tuple(ids), coins=tuple(p.coins for p in players), first=first)
        ]
        opening += [ev.CardsDealt(player=p.id, cards=tuple(p.hidden)) for p in players]
        opening.append(ev.TurnStarted(player=first, must_coup=False))
        return game, opening

    def clone(self) -> Game:
        """Return an independent copy of this game."""
        t = self.turn
        return Game(
            [
                PlayerState(p.id, p.coins, list(p.hidden), list(p.revealed), p.afk_turns)
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
            ),
            self.phase,
            list(self.losses),
            self.version,
            self.afk_limit,
            self.winner,
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
            return list(_RESPONSE_OPTIONS[self.phase, turn.action, player_id == turn.target])
        me = self._by_id[player_id]
        if kind is _DK_TURN:
            return self._turn_options(me)
        if kind is _DK_LOSE_CARD:
            return list(_LOSE_OPTIONS[tuple(me.hidden)])
        return list(_keep_options(tuple(me.hidden + self.turn.drawn), len(me.hidden)))

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
        waiting = self.turn.waiting
        waiting.remove(player_id)
        out: list[ev.Event] = [ev.ResponsePassed(player_id)]
        if waiting:  # others may still answer: nothing else moves
            return self._window_stays_open(out)
        return self._settle(out)

    def _apply_challenge(self, player_id: int, decision: Challenge) -> list[ev.Event]:
        phase = self.phase
        if phase is not _PH_BLOCK_CHALLENGE and (
            phase is not _PH_ACTION_WINDOW or ACTIONS[self.turn.action].claim is None  # type: ignore[index]
        ):
            raise IllegalDecision(Reason.NOT_ELIGIBLE, f"{decision} is not open to you now")
        out: list[ev.Event] = []
        self._challenge(player_id, out)
        return self._settle(out)

    def _apply_block(self, player_id: int, decision: Block) -> list[ev.Event]:
        turn = self.turn
        spec = ACTIONS[turn.action]  # type: ignore[index]
        if (
            self.phase is _PH_BLOCK_CHALLENGE
            or decision.character not in spec.blockers
            or not (spec.blockable_by_anyone or player_id == turn.target)
        ):
            raise IllegalDecision(Reason.NOT_ELIGIBLE, f"{decision} is not open to you now")
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
        out: list[ev.Event] = []
        self.losses.pop(0)
        self._lose(me, decision.character, out)
        return self._settle(out)

    def _apply_keep(self, player_id: int, decision: KeepCards) -> list[ev.Event]:
        self._validate_keep(self._by_id[player_id], decision.cards)
        out: list[ev.Event] = []
        self._finish_exchange(list(decision.cards), out)
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
            if p.hidden:
                return take(_AC_COUP, p.id)
        raise AssertionError("a forced coup needs a living opponent")

    def _validate_action(self, me: PlayerState, decision: TakeAction) -> None:
        action = decision.action
        spec = ACTIONS.get(action)
        if spec is None:
            raise IllegalDecision(Reason.WRONG_KIND, f"unknown action {action!r}")
        coins = me.coins
        if coins >= FORCED_COUP_COINS and action is not _AC_COUP:
            raise IllegalDecision(Reason.MUST_COUP, "with 10 or more coins you must coup")
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
        spec = ACTIONS[action]
        me = self._by_id[self.turn.actor]
        me.coins -= spec.cost
        self.treasury += spec.cost
        turn = self.turn
        turn.action = action
        turn.target = decision.target
        out.append(ev.ActionDeclared(me.id, action, decision.target, spec.claim, spec.cost))
        if action is _AC_INCOME or action is _AC_COUP:
            self.phase = _PH_RESOLVE
        else:
            self._open_window(_PH_ACTION_WINDOW)

    def _challenge(self, challenger: int, out: list[ev.Event]) -> None:
        turn = self.turn
        assert turn.action is not None
        if self.phase is _PH_BLOCK_CHALLENGE:
            assert turn.blocker is not None and turn.block_character is not None
            claimant, character = turn.blocker, turn.block_character
        else:
            claimant, character = turn.actor, ACTIONS[turn.action].claim
            assert character is not None
        out.append(ev.ChallengeDeclared(challenger, claimant, character))
        holder = self._by_id[claimant]
        if character in holder.hidden:
            out.append(ev.ClaimProven(claimant, character, challenger))
            self._replace_shown_card(holder, character, out)
            self.losses.append(challenger)
            if self.phase is _PH_BLOCK_CHALLENGE:
                self.phase = _PH_BLOCKED
            elif ACTIONS[turn.action].blockers:
                self._open_window(_PH_BLOCK_WINDOW)
            else:
                self.phase = _PH_RESOLVE
            return
        out.append(ev.ClaimFailed(claimant, character, challenger))
        self.losses.append(claimant)
        if self.phase is _PH_BLOCK_CHALLENGE:
            self.phase = _PH_RESOLVE
            return
        refund = ACTIONS[turn.action].cost
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
            turn.drawn = [self.deck.pop() for _ in range(EXCHANGE_DRAW)]
            out.append(ev.ExchangeDrawn(me.id, tuple(turn.drawn)))
            self.phase = _PH_EXCHANGE
            return
        assert turn.target is not None
        target = self._by_id[turn.target]
        if not target.hidden:
            out.append(ev.ActionFizzled(me.id, action, target.id))
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
                elif len(loser.hidden) == 1:
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
        self.losses = []
        self.phase = _PH_OVER
        self.winner = winner.id
        out.append(ev.GameEnded(winner.id))

    # ---- invariants ----------------------------------------------------------------

    def coin_count(self) -> int:
        """Coins with the players and in the treasury: always 50."""
        return self.treasury + sum(p.coins for p in self.players)


def _response_options() -> dict[tuple[Phase, Action, bool], tuple[Decision, ...]]:
    """What a responder may answer, by window, action and whether they are its target."""
    table: dict[tuple[Phase, Action, bool], tuple[Decision, ...]] = {}
    for action, spec in ACTIONS.items():
        for is_target in (False, True):
            blocks = [block_as(c) for c in spec.blockers]
            if not (spec.blockable_by_anyone or is_target):
                blocks = []
            challenge = [CHALLENGE] if spec.challengeable else []
            table[_PH_ACTION_WINDOW, action, is_target] = (*challenge, *blocks, PASS)
            table[_PH_BLOCK_WINDOW, action, is_target] = (*blocks, PASS)
            table[_PH_BLOCK_CHALLENGE, action, is_target] = (CHALLENGE, PASS)
    return table


_RESPONSE_OPTIONS = _response_options()

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
}

__all__ = ["Game", "Phase", "PlayerState", "TurnState"]
