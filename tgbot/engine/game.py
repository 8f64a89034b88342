"""The Coup state machine: what is legal now, and what a decision or a timeout does."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from itertools import combinations

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
)
from .errors import IllegalDecision, Reason
from .rng import GameRandom

DEFAULT_AFK_LIMIT = 2
_UNTARGETED = tuple(take(a) for a, spec in ACTIONS.items() if not spec.targeted)


_KIND_OF: dict[type, DecisionKind] = {
    TakeAction: DecisionKind.TURN,
    Pass: DecisionKind.RESPONSE,
    Challenge: DecisionKind.RESPONSE,
    Block: DecisionKind.RESPONSE,
    LoseCard: DecisionKind.LOSE_CARD,
    KeepCards: DecisionKind.EXCHANGE,
}


def _card_order(cards: tuple[Character, ...]) -> list[int]:
    return [CHARACTER_ORDER[c] for c in cards]


_TARGETED = (Action.COUP, Action.ASSASSINATE)  # open to every living opponent you can pay for


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


_WINDOWS: dict[Phase, Window] = {
    Phase.ACTION_WINDOW: Window.ACTION,
    Phase.BLOCK_WINDOW: Window.BLOCK,
    Phase.BLOCK_CHALLENGE: Window.BLOCK_CHALLENGE,
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
        "_awaiting",
        "_by_id",
        "_seat",
        "_someone_out",
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
        phase: Phase = Phase.TURN,
        losses: list[int] | None = None,
        version: int = 0,
        afk_limit: int = DEFAULT_AFK_LIMIT,
        winner: int | None = None,
    ) -> None:
        self.players = players
        self._by_id = {p.id: p for p in players}
        self._seat = {p.id: i for i, p in enumerate(players)}
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
        # Derived from the state above; kept current by _commit() after every change.
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
        return self.phase is Phase.OVER

    def alive_players(self) -> list[PlayerState]:
        """Living players in seat order."""
        return [p for p in self.players if p.hidden]

    def awaiting(self) -> Awaiting:
        """Who must decide now, and the kind of decision (which sets the deadline)."""
        return self._awaiting

    def _compute_awaiting(self) -> Awaiting:
        phase = self.phase
        if phase is Phase.OVER:
            return Awaiting(None, ())
        if self.losses:
            return Awaiting(DecisionKind.LOSE_CARD, (self.losses[0],))
        if phase is Phase.TURN:
            return Awaiting(DecisionKind.TURN, (self.turn.actor,))
        if phase is Phase.EXCHANGE:
            return Awaiting(DecisionKind.EXCHANGE, (self.turn.actor,))
        return Awaiting(DecisionKind.RESPONSE, tuple(self._responders()), _WINDOWS[phase])

    def _commit(self) -> None:
        """Close a change: bump the version and note who is awaited next."""
        self.version += 1
        self._awaiting = self._compute_awaiting()

    def legal_decisions(self, player_id: int) -> list[Decision]:
        """Every decision `player_id` may take now (empty when it is not theirs to take)."""
        kind, awaited, _ = self._awaiting
        if player_id not in awaited:
            return []
        if kind is DecisionKind.RESPONSE:
            return self._response_options(player_id)
        me = self._by_id[player_id]
        if kind is DecisionKind.TURN:
            return self._turn_options(me)
        if kind is DecisionKind.LOSE_CARD:
            return [lose(c) for c in sorted_cards(list(set(me.hidden)))]
        pool = me.hidden + self.turn.drawn
        keeps = {sorted_cards(combo) for combo in combinations(pool, len(me.hidden))}
        return [KeepCards(k) for k in sorted(keeps, key=_card_order)]

    def _response_options(self, player_id: int) -> list[Decision]:
        turn = self.turn
        assert turn.action is not None
        if self.phase is Phase.BLOCK_CHALLENGE:
            return [CHALLENGE, PASS]
        spec = ACTIONS[turn.action]
        options: list[Decision] = []
        if self.phase is Phase.ACTION_WINDOW and spec.challengeable:
            options.append(CHALLENGE)
        if spec.blockable_by_anyone or player_id == turn.target:
            options += [block_as(c) for c in spec.blockers]
        options.append(PASS)
        return options

    def _turn_options(self, me: PlayerState) -> list[Decision]:
        opponents = [p.id for p in self.players if p.hidden and p is not me]
        coins = me.coins
        if coins >= FORCED_COUP_COINS:
            return [take(Action.COUP, pid) for pid in opponents]
        options: list[Decision] = list(_UNTARGETED)
        for action in _TARGETED:
            if coins >= ACTIONS[action].cost:
                options += [take(action, pid) for pid in opponents]
        by_id = self._by_id
        options += [take(Action.STEAL, pid) for pid in opponents if by_id[pid].coins > 0]
        return options

    def _responders(self) -> list[int]:
        """Players who may still answer the open window, in seat order after the actor."""
        return self.turn.waiting

    def _open_window(self, phase: Phase) -> None:
        """Open a response window and list who may answer it."""
        turn = self.turn
        self.phase = phase
        if phase is Phase.BLOCK_WINDOW:
            target = self._by_id[turn.target] if turn.target is not None else None
            turn.waiting = [target.id] if target is not None and target.hidden else []
            return
        excluded = turn.actor if phase is Phase.ACTION_WINDOW else turn.blocker
        players = self.players
        start = self._seat[turn.actor] + 1
        turn.waiting = [
            p.id for p in players[start:] + players[:start] if p.hidden and p.id != excluded
        ]

    # ---- applying ------------------------------------------------------------------

    def apply(
        self, player_id: int, decision: Decision, expected_version: int | None = None
    ) -> list[ev.Event]:
        """Apply one decision by one player and return the events it caused.

        Anything illegal raises IllegalDecision and leaves the game unchanged. When
        `expected_version` is given and the game has moved on, the decision is STALE.
        """
        self._check_version(expected_version)
        self._validate(player_id, decision)
        out: list[ev.Event] = []
        kind = type(decision)
        if kind is Pass:
            self.turn.waiting.remove(player_id)
            out.append(ev.ResponsePassed(player_id))
        elif kind is TakeAction:
            self._by_id[player_id].afk_turns = 0
            self._declare(decision, out)  # type: ignore[arg-type]
        elif kind is Challenge:
            self._challenge(player_id, out)
        elif kind is Block:
            self._block(player_id, decision.character, out)  # type: ignore[union-attr]
        elif kind is LoseCard:
            self.losses.pop(0)
            self._lose(self._by_id[player_id], decision.character, out)  # type: ignore[union-attr]
        else:
            self._finish_exchange(list(decision.cards), out)  # type: ignore[union-attr]
        self._advance(out)
        self._commit()
        return out

    def apply_timeout(self, expected_version: int | None = None) -> list[ev.Event]:
        """Apply the RULES.md timeout default for whoever is awaited now."""
        self._check_version(expected_version)
        waiting = self.awaiting()
        out: list[ev.Event] = []
        if waiting.kind is DecisionKind.LOSE_CARD:
            me = self._by_id[waiting.players[0]]
            out.append(ev.DecisionTimedOut(me.id, waiting.kind))
            self.losses.pop(0)
            self._lose(me, self.rng.choice(me.hidden), out)
        elif waiting.kind is DecisionKind.TURN:
            me = self._by_id[self.turn.actor]
            out.append(ev.DecisionTimedOut(me.id, waiting.kind))
            me.afk_turns += 1
            if me.afk_turns >= self.afk_limit:
                self._remove(me, afk=True, out=out)
            else:
                self._declare(self._default_action(me), out)
        elif waiting.kind is DecisionKind.RESPONSE:
            for pid in waiting.players:
                out.append(ev.DecisionTimedOut(pid, waiting.kind))
            self.turn.waiting = []
        elif waiting.kind is DecisionKind.EXCHANGE:
            me = self._by_id[self.turn.actor]
            out.append(ev.DecisionTimedOut(me.id, waiting.kind))
            self._finish_exchange(list(me.hidden), out)
        else:
            raise IllegalDecision(Reason.GAME_OVER, "the game is over")
        self._advance(out)
        self._commit()
        return out

    def leave(self, player_id: int, expected_version: int | None = None) -> list[ev.Event]:
        """Take a living player out of the game: all their cards turn face up."""
        self._check_version(expected_version)
        me = self.player(player_id)
        if not me.hidden:
            raise IllegalDecision(Reason.NOT_ALIVE, f"{player_id} is already out")
        out: list[ev.Event] = []
        self._remove(me, afk=False, out=out)
        self._advance(out)
        self._commit()
        return out

    def _check_version(self, expected: int | None) -> None:
        if self.phase is Phase.OVER:
            raise IllegalDecision(Reason.GAME_OVER, "the game is over")
        if expected is not None and expected != self.version:
            raise IllegalDecision(
                Reason.STALE, f"decision for version {expected}, game is at {self.version}"
            )

    def _default_action(self, me: PlayerState) -> TakeAction:
        if me.coins < FORCED_COUP_COINS:
            return take(Action.INCOME)
        n = len(self.players)
        seat = self._seat[me.id]
        for i in range(seat + 1, seat + n):
            p = self.players[i % n]
            if p.hidden:
                return take(Action.COUP, p.id)
        raise AssertionError("a forced coup needs a living opponent")

    def _validate(self, player_id: int, decision: Decision) -> None:
        me = self._by_id.get(player_id)
        if me is None:
            raise IllegalDecision(Reason.UNKNOWN_PLAYER, f"{player_id} is not in this game")
        if not me.hidden:
            raise IllegalDecision(Reason.NOT_ALIVE, f"{player_id} is out of the game")
        kind, awaited, _ = self._awaiting
        if player_id not in awaited:
            raise IllegalDecision(Reason.NOT_YOUR_DECISION, f"{player_id} is not awaited now")
        needed = _KIND_OF.get(type(decision))
        if needed is None:
            raise IllegalDecision(Reason.WRONG_KIND, f"unknown decision {decision!r}")
        if needed is not kind:
            raise IllegalDecision(Reason.WRONG_KIND, f"a {needed} decision is not due, {kind} is")
        if kind is DecisionKind.RESPONSE:
            if not self._may_respond(player_id, decision):  # type: ignore[arg-type]
                raise IllegalDecision(Reason.NOT_ELIGIBLE, f"{decision} is not open to you now")
        elif kind is DecisionKind.TURN:
            self._validate_action(me, decision)  # type: ignore[arg-type]
        elif kind is DecisionKind.LOSE_CARD:
            if decision.character not in me.hidden:  # type: ignore[union-attr]
                raise IllegalDecision(Reason.NO_SUCH_CARD, f"no face-down {decision}")
        else:
            self._validate_keep(me, decision.cards)  # type: ignore[union-attr]

    def _may_respond(self, player_id: int, decision: Pass | Challenge | Block) -> bool:
        """The same rules as _response_options, without building the list."""
        if type(decision) is Pass:
            return True
        phase = self.phase
        turn = self.turn
        assert turn.action is not None
        spec = ACTIONS[turn.action]
        if type(decision) is Challenge:
            return phase is Phase.BLOCK_CHALLENGE or (
                phase is Phase.ACTION_WINDOW and spec.challengeable
            )
        return (
            phase is not Phase.BLOCK_CHALLENGE
            and decision.character in spec.blockers
            and (spec.blockable_by_anyone or player_id == turn.target)
        )

    def _validate_action(self, me: PlayerState, decision: TakeAction) -> None:
        action = decision.action
        if action not in ACTIONS:
            raise IllegalDecision(Reason.WRONG_KIND, f"unknown action {action!r}")
        spec = ACTIONS[action]
        if me.coins >= FORCED_COUP_COINS and action is not Action.COUP:
            raise IllegalDecision(Reason.MUST_COUP, "with 10 or more coins you must coup")
        if me.coins < spec.cost:
            raise IllegalDecision(
                Reason.CANNOT_AFFORD, f"{decision.action} costs {spec.cost}, you have {me.coins}"
            )
        if not spec.targeted:
            if decision.target is not None:
                raise IllegalDecision(Reason.BAD_TARGET, f"{decision.action} takes no target")
            return
        target = self._by_id.get(decision.target) if decision.target is not None else None
        if target is None or target is me or not target.hidden:
            raise IllegalDecision(Reason.BAD_TARGET, "the target must be a living opponent")
        if action is Action.STEAL and target.coins == 0:
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
        if action is Action.INCOME or action is Action.COUP:
            self.phase = Phase.RESOLVE
        else:
            self._open_window(Phase.ACTION_WINDOW)

    def _challenge(self, challenger: int, out: list[ev.Event]) -> None:
        turn = self.turn
        assert turn.action is not None
        if self.phase is Phase.BLOCK_CHALLENGE:
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
            if self.phase is Phase.BLOCK_CHALLENGE:
                self.phase = Phase.BLOCKED
            elif ACTIONS[turn.action].blockers:
                self._open_window(Phase.BLOCK_WINDOW)
            else:
                self.phase = Phase.RESOLVE
            return
        out.append(ev.ClaimFailed(claimant, character, challenger))
        self.losses.append(claimant)
        if self.phase is Phase.BLOCK_CHALLENGE:
            self.phase = Phase.RESOLVE
            return
        refund = ACTIONS[turn.action].cost
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
        self._open_window(Phase.BLOCK_CHALLENGE)

    def _resolve(self, out: list[ev.Event]) -> None:
        turn = self.turn
        action = turn.action
        assert action is not None
        me = self._by_id[turn.actor]
        self.phase = Phase.END_TURN
        if action in ACTION_GAIN:
            amount = min(ACTION_GAIN[action], self.treasury)
            me.coins += amount
            self.treasury -= amount
            out.append(ev.ActionResolved(me.id, action, None, amount))
            return
        if action is Action.EXCHANGE:
            turn.drawn = [self.deck.pop() for _ in range(EXCHANGE_DRAW)]
            out.append(ev.ExchangeDrawn(me.id, tuple(turn.drawn)))
            self.phase = Phase.EXCHANGE
            return
        assert turn.target is not None
        target = self._by_id[turn.target]
        if not target.hidden:
            out.append(ev.ActionFizzled(me.id, action, target.id))
            return
        if action is Action.STEAL:
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
            turn = self.turn
            actor_alive = bool(self._by_id[turn.actor].hidden)
            if phase is Phase.TURN:
                if actor_alive:
                    return
                self.phase = Phase.END_TURN
            elif phase in _WINDOWS:
                if not actor_alive:
                    self.phase = Phase.END_TURN
                elif phase is Phase.BLOCK_CHALLENGE and not self._by_id[turn.blocker].hidden:
                    self.phase = Phase.RESOLVE  # a blocker who left takes the block along
                elif self._responders():
                    return
                elif phase is Phase.BLOCK_CHALLENGE:
                    self.phase = Phase.BLOCKED
                else:
                    self.phase = Phase.RESOLVE
            elif phase is Phase.RESOLVE:
                if actor_alive:
                    self._resolve(out)
                else:
                    self.phase = Phase.END_TURN
            elif phase is Phase.BLOCKED:
                assert turn.action is not None and turn.blocker is not None
                assert turn.block_character is not None
                out.append(
                    ev.ActionBlocked(turn.actor, turn.action, turn.blocker, turn.block_character)
                )
                self.phase = Phase.END_TURN
            elif phase is Phase.EXCHANGE:
                if actor_alive:
                    return
                self._return_drawn()
                self.phase = Phase.END_TURN
            else:
                self._next_turn(out)

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
        n = len(self.players)
        seat = self._seat[self.turn.actor]
        for i in range(seat + 1, seat + n + 1):
            nxt = self.players[i % n]
            if nxt.hidden:
                break
        self.turn = TurnState(actor=nxt.id)
        self.phase = Phase.TURN
        out.append(ev.TurnStarted(nxt.id, nxt.coins >= FORCED_COUP_COINS))

    def _end_game(self, winner: PlayerState, out: list[ev.Event]) -> None:
        self._return_drawn()
        self.losses = []
        self.phase = Phase.OVER
        self.winner = winner.id
        out.append(ev.GameEnded(winner.id))

    # ---- invariants ----------------------------------------------------------------

    def coin_count(self) -> int:
        """Coins with the players and in the treasury: always 50."""
        return self.treasury + sum(p.coins for p in self.players)


__all__ = ["Game", "Phase", "PlayerState", "TurnState"]
