"""AI players: they decide from their own view of the game only, through the engine API."""

from .player import choose

__all__ = ["choose"]
