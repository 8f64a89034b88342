"""Base games as rules version 1 played them, for rebuilding the records kept from then.

Rules version 2 made the base game follow VARIANTS.md's clarifications like every other
variant: no question with one answer, and any decision of one's own resets the AFK
streak. A record kept before that names no rules version; a base game among them is
rebuilt with `BaseGameRules1`, which asks what version 1 asked and counts the streak as it
did, so that it rebuilds to its recorded digest. The other variants followed the
clarifications already: their old records rebuild with `Game`. Nothing plays version 1.
"""

from __future__ import annotations

from .cards import Character, Variant
from .decisions import Decision, KeepCards, TakeAction
from .events import Event
from .game import Game

RULES_VERSION = 2  # the rules every game is played under now
RULES_VERSIONS = (1, RULES_VERSION)


class BaseGameRules1(Game):
    """A base game under rules version 1 (replays of old records only)."""

    __slots__ = ()

    def _asks_loss(self, hand: list[Character]) -> bool:
        return len(hand) > 1  # two alike were asked too

    def _asks_keep(self, keeps: tuple[KeepCards, ...]) -> bool:
        return True  # an exchange was always asked

    def apply(
        self, player_id: int, decision: Decision, expected_version: int | None = None
    ) -> list[Event]:
        """Apply a decision; only a turn of one's own reset the AFK streak then."""
        me = self._by_id.get(player_id)
        streak = me.afk_turns if me is not None else 0
        events = super().apply(player_id, decision, expected_version)
        if me is not None and not isinstance(decision, TakeAction):
            me.afk_turns = streak
        return events


def game_class(variant: Variant, rules_version: int) -> type[Game]:
    """The class that rebuilds a `variant` game played under `rules_version`."""
    if rules_version not in RULES_VERSIONS:
        raise ValueError(f"unknown rules version {rules_version!r}")
    if rules_version == 1 and variant is Variant.BASE:
        return BaseGameRules1
    return Game
