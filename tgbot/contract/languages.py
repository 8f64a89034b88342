"""The languages the bot speaks, and the markers of msgids: shared words of every room
(the settings table, rendering and the edges read them; gettext itself is rendering's)."""

from __future__ import annotations

from dataclasses import dataclass


def N_(message: str) -> str:
    """Mark a string for extraction without translating it here."""
    return message


def NC_(context: str, message: str) -> tuple[str, str]:
    """Mark a string with its context (for pgettext) without translating it here."""
    return context, message


@dataclass(frozen=True, slots=True)
class Language:
    """A language the bot speaks: its code (Telegram's, the catalogue's folder, what a
    person's or a group's choice stores) and its name and picker button, as msgids that
    each reader reads in their own language. Its native name is its own catalogue's
    translation of `name` (Georgian text lives in the catalogues, not in code)."""

    code: str
    name: str
    button: str


# Every language the bot speaks, in the order of the picker and the settings' cycle; each
# needs a catalogue (TRANSLATING.md, "Adding a language").
LANGUAGE_TABLE: tuple[Language, ...] = (
    Language("ka", N_("Georgian"), N_("🇬🇪 Georgian")),
    Language("en", N_("English"), N_("🇬🇧 English")),
)
LANGUAGES = tuple(language.code for language in LANGUAGE_TABLE)
LANGUAGE_NAMED = {language.code: language for language in LANGUAGE_TABLE}
DEFAULT_LANGUAGE = "ka"
SOURCE_LANGUAGE = "en"  # msgids are English: a string missing from `ka` reads in English
