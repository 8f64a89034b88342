"""The typed error the engine raises for anything illegal."""

from __future__ import annotations

from enum import StrEnum


class Reason(StrEnum):
    """Why a decision was refused."""

    GAME_OVER = "game_over"
    STALE = "stale"
    UNKNOWN_PLAYER = "unknown_player"
    NOT_ALIVE = "not_alive"
    NOT_YOUR_DECISION = "not_your_decision"
    WRONG_KIND = "wrong_kind"
    MUST_COUP = "must_coup"
    CANNOT_AFFORD = "cannot_afford"
    BAD_TARGET = "bad_target"
    NOT_ELIGIBLE = "not_eligible"
    NO_SUCH_CARD = "no_such_card"
    BAD_SELECTION = "bad_selection"
    BAD_SETUP = "bad_setup"
    NOT_IN_VARIANT = "not_in_variant"  # an action or character this variant does not have
    SAME_ALLEGIANCE = "same_allegiance"  # Reformation: the table is divided
    RESERVE_EMPTY = "reserve_empty"  # Embezzlement needs a coin in the Treasury Reserve


class IllegalDecision(Exception):
    """A decision the rules do not allow now; the game is left unchanged."""

    def __init__(self, reason: Reason, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail
