"""A small seeded random.Random whose whole state is one 64-bit integer."""

from __future__ import annotations

import math
import random
from collections.abc import MutableSequence
from typing import Any

SEED_BITS = 64  # a game's seed: the generator's whole state is this many bits
_MASK64 = (1 << SEED_BITS) - 1
_GAMMA = 0x9E3779B97F4A7C15
_MIX1 = 0xBF58476D1CE4E5B9
_MIX2 = 0x94D049BB133111EB

_MAX_ONE_DRAW = 20  # 20! < 2**64 < 21!
# For n items: the largest multiple of n! that fits in 64 bits.
_ONE_DRAW_LIMIT = [(1 << 64) // math.factorial(n) * math.factorial(n) for n in range(21)]


class GameRandom(random.Random):
    """SplitMix64 behind the random.Random API; the state fits in one JSON number.

    The Mersenne Twister state of a plain random.Random is 625 integers, too big to store
    with every game; SplitMix64 passes the usual statistical tests and is enough for
    shuffling fifteen cards.
    """

    def __init__(self, seed: int = 0) -> None:
        self._state = 0
        super().__init__(seed)

    def seed(self, a: object = None, version: int = 2) -> None:
        """Reset the generator from an integer seed."""
        if not isinstance(a, int):
            raise TypeError("GameRandom needs an integer seed")
        self._state = a & _MASK64

    # random.Random's state is a tuple; ours is one integer (it is stored with every game).
    def getstate(self) -> int:  # type: ignore[override]
        """Return the generator state as one integer."""
        return self._state

    def setstate(self, state: int) -> None:  # type: ignore[override]
        """Restore a state returned by getstate()."""
        self._state = int(state) & _MASK64

    def _next64(self) -> int:
        self._state = state = (self._state + _GAMMA) & _MASK64
        z = ((state ^ (state >> 30)) * _MIX1) & _MASK64
        z = ((z ^ (z >> 27)) * _MIX2) & _MASK64
        return z ^ (z >> 31)

    def random(self) -> float:
        """Return a float in [0, 1)."""
        return (self._next64() >> 11) * (1.0 / 9007199254740992.0)

    def shuffle(self, x: MutableSequence[Any]) -> None:
        """Shuffle a list in place, uniformly, from one 64-bit draw for up to 20 items.

        Fisher-Yates takes its swap indices as the mixed-radix digits of one number drawn
        uniformly below a multiple of len(x)!, so the shuffle is exact (draws at or above
        that multiple are rejected) and costs one generator step instead of one per item.
        """
        n = len(x)
        if n < 2:
            return
        if n > _MAX_ONE_DRAW:
            super().shuffle(x)
            return
        limit = _ONE_DRAW_LIMIT[n]
        r = self._next64()
        while r >= limit:
            r = self._next64()
        for i in range(n - 1, 0, -1):
            r, j = divmod(r, i + 1)
            x[i], x[j] = x[j], x[i]

    def getrandbits(self, k: int) -> int:
        """Return an integer with k random bits."""
        if k <= 64:
            return self._next64() >> (64 - k) if k > 0 else 0
        result = 0
        for shift in range(0, k, 64):
            result |= self._next64() << shift
        return result >> (-k % 64)
