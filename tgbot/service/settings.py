"""A group's settings, typed: read from the stored hash in one place, with the defaults."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..config import Deadlines
from ..engine import Variant
from ..rendering.i18n import DEFAULT_LANGUAGE, LANGUAGES

TABLE, PRIVATE = "table", "private"  # where the answers to a claim are pressed
_DEFAULTS = Deadlines()


@dataclass(frozen=True, slots=True)
class ChatSettings:
    """What a group's admins chose in /settings, or the default where they chose nothing.

    Stored in Redis as a hash of strings (`store.chat_settings`), the same keys as these
    fields but `lang` for `language`; an unknown or unreadable value counts as unset.
    """

    language: str = DEFAULT_LANGUAGE
    turn: int = _DEFAULTS.turn
    response: int = _DEFAULTS.response
    lose_card: int = _DEFAULTS.lose_card
    exchange: int = _DEFAULTS.exchange
    lobby: int = _DEFAULTS.lobby
    afk_limit: int = _DEFAULTS.afk_limit
    answers: str = TABLE
    variant: Variant = Variant.BASE

    @classmethod
    def from_stored(
        cls, stored: Mapping[str, str], defaults: Deadlines | None = None
    ) -> ChatSettings:
        """The settings a stored hash says, the deadlines' defaults (the config's) filling in."""
        d = defaults or _DEFAULTS

        def seconds(name: str, default: int) -> int:
            try:
                return int(stored.get(name, default))
            except ValueError:
                return default

        try:
            variant = Variant.parse(stored.get("variant", Variant.BASE.value))
        except ValueError:
            variant = Variant.BASE
        language = stored.get("lang", "")
        return cls(
            language=language if language in LANGUAGES else DEFAULT_LANGUAGE,
            turn=seconds("turn", d.turn),
            response=seconds("response", d.response),
            lose_card=seconds("lose_card", d.lose_card),
            exchange=seconds("exchange", d.exchange),
            lobby=seconds("lobby", d.lobby),
            afk_limit=seconds("afk_limit", d.afk_limit),
            answers=PRIVATE if stored.get("answers") == PRIVATE else TABLE,
            variant=variant,
        )

    def stored_value(self, key: str) -> str:
        """One setting as the hash stores it (`key` as stored: `lang`, `turn`, ...)."""
        if key == "lang":
            return self.language
        if key == "variant":
            return self.variant.value
        value: object = getattr(self, key)
        return str(value)
