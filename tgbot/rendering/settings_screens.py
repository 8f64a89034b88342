"""The screens where people choose: a person's language and a group's settings."""

from __future__ import annotations

from collections.abc import Callable

from ..contract import callbacks
from ..contract.languages import LANGUAGE_NAMED, LANGUAGE_TABLE
from ..contract.settings import SETTINGS, ChatSettings
from .i18n import Translator
from .texts import variant_name
from .ui import Screen, rows_of, seconds_text


def language_screen(t: Translator) -> Screen:
    """The language picker."""
    return Screen(
        t.gettext("🌐 Choose your language:"),
        rows_of(
            [
                {"text": t.gettext(language.button), "data": callbacks.language(language.code)}
                for language in LANGUAGE_TABLE
            ]
        ),
    )


def _language_label(t: Translator, s: ChatSettings) -> str:
    language = t.gettext(LANGUAGE_NAMED[s.language].name)
    return t.gettext("🌐 Language: {value}").format(value=language)


def _answers_label(t: Translator, s: ChatSettings) -> str:
    where = t.gettext("at the table") if s.answers == "table" else t.gettext("in private")
    return t.gettext("🗳 Answers: {value}").format(value=where)


def _variant_label(t: Translator, s: ChatSettings) -> str:
    # TRANSLATORS: the variant setting's button; {value} is the variant's name.
    return t.gettext("🃏 Variant: {value}").format(value=variant_name(t, s.variant))


# The words of each row of the settings screen, by the setting's key (contract/settings.py
# has the rows, in order, and what each button switches to).
SETTING_LABELS: dict[str, Callable[[Translator, ChatSettings], str]] = {
    "lang": _language_label,
    "turn": lambda t, s: t.gettext("▶️ Turn: {value}").format(value=seconds_text(t, s.turn)),
    "response": lambda t, s: t.gettext("⏳ Responses: {value}").format(
        value=seconds_text(t, s.response)
    ),
    "lose_card": lambda t, s: t.gettext("🔻 Losing a card: {value}").format(
        value=seconds_text(t, s.lose_card)
    ),
    "exchange": lambda t, s: t.gettext("🔄 Exchange: {value}").format(
        value=seconds_text(t, s.exchange)
    ),
    "lobby": lambda t, s: t.gettext("🎲 Lobby: {value}").format(value=seconds_text(t, s.lobby)),
    "afk_limit": lambda t, s: t.ngettext(
        "💤 Removed after {n} missed turn", "💤 Removed after {n} missed turns", s.afk_limit
    ).format(n=s.afk_limit),
    "answers": _answers_label,
    "variant": _variant_label,
}


def setting_label(t: Translator, current: ChatSettings, key: str) -> str:
    """One setting's row as the screen shows it (what a press on it answers)."""
    return SETTING_LABELS[key](t, current)


def settings_screen(t: Translator, current: ChatSettings) -> Screen:
    """The group's settings; each button switches one of them to its next value."""
    text = t.gettext("⚙️ Settings for new games (admins can change them):")
    rows = [
        [{"text": SETTING_LABELS[s.key](t, current), "data": callbacks.setting(s.key)}]
        for s in SETTINGS
    ]
    return Screen(text, rows)
