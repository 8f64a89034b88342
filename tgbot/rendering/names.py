"""The names of characters, actions, sides and variants, as gettext messages (the words
every other text is made of), and who is who: `Names`, a player's id to their name."""

from __future__ import annotations

from collections.abc import Mapping

from ..contract.languages import N_
from ..engine import Action, Allegiance, Character, Variant
from .action_words import ACTION_WORDS
from .i18n import Translator

Names = Mapping[int, str]

CHARACTER_NAMES: dict[Character, str] = {
    Character.DUKE: N_("Duke"),
    Character.ASSASSIN: N_("Assassin"),
    Character.CAPTAIN: N_("Captain"),
    Character.AMBASSADOR: N_("Ambassador"),
    Character.CONTESSA: N_("Contessa"),
    Character.INQUISITOR: N_("Inquisitor"),
}

# Each action's name, from its row of words (`action_words.ACTION_WORDS`).
ACTION_NAMES: dict[Action, str] = {a: words.name for a, words in ACTION_WORDS.items()}

# The sides' names. No text reads them alone today (the table marks the sides 🔵 and 🔴,
# and its legend names both in one msgid); kept so that the catalogues hold the
# glossary's word for a side, as the translators use it in the other sentences.
ALLEGIANCE_NAMES: dict[Allegiance, str] = {
    Allegiance.LOYALIST: N_("Loyalist"),
    Allegiance.REFORMIST: N_("Reformist"),
}

VARIANT_NAMES: dict[Variant, str] = {
    Variant.BASE: N_("Base game"),
    Variant.INQUISITOR: N_("Inquisitor"),
    Variant.REFORMATION: N_("Reformation"),
    Variant.REFORMATION_INQUISITOR: N_("Reformation + Inquisitor"),
}


def character_name(t: Translator, character: Character) -> str:
    """A character's name."""
    return t.gettext(CHARACTER_NAMES[character])


def action_name(t: Translator, action: Action) -> str:
    """An action's name."""
    return t.gettext(ACTION_NAMES[action])


def variant_name(t: Translator, variant: Variant) -> str:
    """A variant's name, for the board, the lobby and the log."""
    return t.gettext(VARIANT_NAMES[variant])
