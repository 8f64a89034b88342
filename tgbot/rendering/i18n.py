"""Gettext catalogues: one Translator per language, passed explicitly (no global locale)."""

from __future__ import annotations

import gettext
from io import BytesIO
from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

DOMAIN = "messages"
LANGUAGES = ("ka", "en")
DEFAULT_LANGUAGE = "ka"
SOURCE_LANGUAGE = "en"  # msgids are English: a string missing from `ka` reads in English


def N_(message: str) -> str:
    """Mark a string for extraction without translating it here."""
    return message


class Translator:
    """Translations for one language."""

    def __init__(self, language: str, translations: gettext.NullTranslations) -> None:
        self.language = language
        self._translations = translations

    def gettext(self, message: str) -> str:
        """Translate a message."""
        return self._translations.gettext(message)

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        """Translate a message whose form depends on the number n."""
        return self._translations.ngettext(singular, plural, n)

    def pgettext(self, context: str, message: str) -> str:
        """Translate a message in a context (for words that differ by use)."""
        return self._translations.pgettext(context, message)


def compile_catalog(po_path: Path) -> gettext.GNUTranslations:
    """Compile a .po file in memory (fuzzy entries left out) and load it."""
    with po_path.open("rb") as handle:
        catalog = read_po(handle)
    buffer = BytesIO()
    write_mo(buffer, catalog, use_fuzzy=False)
    buffer.seek(0)
    return gettext.GNUTranslations(buffer)


class Catalogs:
    """All languages the bot speaks, loaded once at start."""

    def __init__(self, locales_dir: Path, languages: tuple[str, ...] = LANGUAGES) -> None:
        self._translators: dict[str, Translator] = {}
        for language in languages:
            po = locales_dir / language / "LC_MESSAGES" / f"{DOMAIN}.po"
            loaded: gettext.NullTranslations = (
                compile_catalog(po) if po.is_file() else gettext.NullTranslations()
            )
            self._translators[language] = Translator(language, loaded)

    @property
    def languages(self) -> tuple[str, ...]:
        """Languages with a catalogue."""
        return tuple(self._translators)

    def get(self, language: str | None) -> Translator:
        """The translator for a language; Georgian for anything unknown."""
        if language in self._translators:
            return self._translators[language]  # type: ignore[index]
        return self._translators[DEFAULT_LANGUAGE]


def pick_language(chosen: str | None, telegram_code: str | None) -> str:
    """A person's language: their choice, else their Telegram language if ka/en, else ka."""
    if chosen in LANGUAGES:
        return chosen  # type: ignore[return-value]
    code = (telegram_code or "").split("-")[0].lower()
    return code if code in LANGUAGES else DEFAULT_LANGUAGE
