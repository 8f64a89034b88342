"""What one player (or the group, as a spectator) may know about a game."""

from __future__ import annotations

from dataclasses import dataclass

from .cards import Action, Allegiance, Character, Variant
from .decisions import Awaiting, Decision
from .game import Game, Phase


@dataclass(frozen=True, slots=True)
class SeatView:
    """The public face of one seat."""

    id: int
    coins: int
    revealed: tuple[Character, ...]
    cards_down: int
    allegiance: Allegiance | None = None  # public, in Reformation games

    @property
    def alive(self) -> bool:
        """True while the seat holds a face-down card."""
        return self.cards_down > 0


@dataclass(frozen=True, slots=True)
class PlayerView:
    """Everything RULES.md lets `viewer` know; `viewer` None is the public board."""

    viewer: int | None
    seats: tuple[SeatView, ...]
    my_cards: tuple[Character, ...]
    exchange_drawn: tuple[Character, ...]
    deck_size: int
    treasury: int
    awaiting: Awaiting
    actor: int | None
    action: Action | None
    target: int | None
    blocker: int | None
    block_character: Character | None
    version: int
    winner: int | None
    legal: tuple[Decision, ...]
    variant: Variant = Variant.BASE
    reserve: int = 0  # the Treasury Reserve: public
    divided: bool = False  # Reformation: both allegiances are alive
    # Examine: the card the target showed, for the examiner and the target only.
    examined: Character | None = None
    # Every seat's cards, face down and face up, once the game is over (public then).
    final_cards: tuple[tuple[Character, ...], ...] = ()
    mine: SeatView | None = None  # the viewer's own seat (None: the public board)

    def seat(self, player_id: int) -> SeatView:
        """Return one seat's public face."""
        for seat in self.seats:
            if seat.id == player_id:
                return seat
        raise KeyError(player_id)


def view_of(game: Game, viewer: int | None = None) -> PlayerView:
    """Return what `viewer` may know (None: what the group may know)."""
    me = game.player(viewer) if viewer is not None else None
    turn = game.turn
    over = game.phase is Phase.OVER
    exchanging = (
        me is not None and game.phase is Phase.EXCHANGE and turn.actor == viewer and not over
    )
    examined = (
        turn.shown
        if me is not None
        and game.phase is Phase.EXAMINE_DECIDE
        and viewer in (turn.actor, turn.target)
        else None
    )
    seats = tuple(
        SeatView(p.id, p.coins, tuple(p.revealed), len(p.hidden), p.allegiance)
        for p in game.players
    )
    return PlayerView(
        viewer=viewer,
        seats=seats,
        my_cards=tuple(me.hidden) if me is not None else (),
        exchange_drawn=tuple(turn.drawn) if exchanging else (),
        deck_size=len(game.deck),
        treasury=game.treasury,
        awaiting=game.awaiting(),
        actor=None if over else turn.actor,
        action=None if over else turn.action,
        target=None if over else turn.target,
        blocker=None if over else turn.blocker,
        block_character=None if over else turn.block_character,
        version=game.version,
        winner=game.winner,
        legal=tuple(game.legal_decisions(viewer)) if viewer is not None else (),
        variant=game.variant,
        reserve=game.reserve,
        divided=game.divided(),
        examined=examined,
        final_cards=tuple(tuple(p.hidden + p.revealed) for p in game.players) if over else (),
        mine=next((s for s in seats if s.id == viewer), None),
    )
