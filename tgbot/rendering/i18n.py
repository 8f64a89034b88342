"""Gettext catalogues: one Translator per language, passed explicitly (no global locale)."""

from __future__ import annotations

import gettext
from io import BytesIO
from pathlib import Path

from ..contract.languages import DEFAULT_LANGUAGE, LANGUAGES

DOMAIN = "messages"


# A wheel carries the catalogues compiled to .mo inside the package (setup.py compiles
# them at build time); a checkout has the .po sources in the top-level locales/.
PACKAGED_LOCALES = Path(__file__).resolve().parent.parent / "locales"
SOURCE_LOCALES = Path(__file__).resolve().parents[2] / "locales"


class CatalogError(Exception):
    """A language's catalogue is missing or cannot be read; the message says which."""


def default_locales_dir() -> Path:
    """Where the catalogues are: inside the installed package, else the checkout's."""
    packaged = PACKAGED_LOCALES / DEFAULT_LANGUAGE / "LC_MESSAGES" / f"{DOMAIN}.mo"
    return PACKAGED_LOCALES if packaged.is_file() else SOURCE_LOCALES


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
    # Babel is needed only for .po sources; an installed wheel reads compiled .mo files.
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with po_path.open("rb") as handle:
        catalog = read_po(handle, abort_invalid=True)
    buffer = BytesIO()
    write_mo(buffer, catalog, use_fuzzy=False)
    buffer.seek(0)
    return gettext.GNUTranslations(buffer)


def load_catalog(locales_dir: Path, language: str) -> gettext.GNUTranslations:
    """One language's catalogue: the .po source when present, else the compiled .mo."""
    folder = locales_dir / language / "LC_MESSAGES"
    po, mo = folder / f"{DOMAIN}.po", folder / f"{DOMAIN}.mo"
    try:
        if po.is_file():  # the source wins: a .mo beside it may be stale
            return compile_catalog(po)
        if mo.is_file():
            with mo.open("rb") as handle:
                return gettext.GNUTranslations(handle)
    except Exception as err:  # Babel and gettext raise many kinds for a damaged file
        raise CatalogError(f"the {language} catalogue in {folder} cannot be read: {err}") from err
    raise CatalogError(
        f"no {language} catalogue in {folder}: reinstall coup-bot or set LOCALES_DIR"
    )


class Catalogs:
    """All languages the bot speaks, loaded once at start (CatalogError if one is missing)."""

    def __init__(self, locales_dir: Path, languages: tuple[str, ...] = LANGUAGES) -> None:
        self._translators = {
            language: Translator(language, load_catalog(locales_dir, language))
            for language in languages
        }

    @property
    def languages(self) -> tuple[str, ...]:
        """Languages with a catalogue."""
        return tuple(self._translators)

    def get(self, language: str | None) -> Translator:
        """The translator for a language; Georgian for anything unknown."""
        if language is not None and language in self._translators:
            return self._translators[language]
        return self._translators[DEFAULT_LANGUAGE]


def pick_language(chosen: str | None, telegram_code: str | None) -> str:
    """A person's language: their choice, else their Telegram language if ka/en, else ka."""
    if chosen is not None and chosen in LANGUAGES:
        return chosen
    code = (telegram_code or "").split("-")[0].lower()
    return code if code in LANGUAGES else DEFAULT_LANGUAGE
