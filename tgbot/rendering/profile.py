"""The bot's profile: what a person sees before pressing Start, published in every language."""

from __future__ import annotations

from ..contract.languages import N_
from .i18n import Translator

# Telegram allows 512 and 120 characters.
DESCRIPTION = N_(
    "Play Coup, the bluffing card game, with your friends in a Telegram group. Add me to "
    "the group and type /newgame; everyone who joins gets their cards and buttons here, in "
    "private. Press Start so I can message you."
)
SHORT_DESCRIPTION = N_("Coup, the bluffing card game, for Telegram groups.")


def description(t: Translator) -> str:
    """The bot's description (shown in an empty private chat with it)."""
    return t.gettext(DESCRIPTION)


def short_description(t: Translator) -> str:
    """The bot's short description (its profile page, and shared links to it)."""
    return t.gettext(SHORT_DESCRIPTION)
