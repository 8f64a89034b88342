"""The Telegram edge's own short answers: throttling, buttons that do not belong, rights."""

from __future__ import annotations

from ..contract.outcomes import Refusal, Said
from .i18n import Translator
from .notices import say
from .ui import Button, Screen


def too_fast(t: Translator) -> str:
    """To someone over the per-person limit (said once a window), or when a chat is busy."""
    return t.gettext("Too fast: wait a moment.")


def button_not_valid(t: Translator) -> str:
    """A press of a button that does not belong on that message or in that chat."""
    return say(t, Said(Refusal.NOT_VALID))  # the service's own words for it


def button_out_of_date(t: Translator) -> str:
    """A press on a message that can no longer be changed."""
    return say(t, Said(Refusal.OUT_OF_DATE))  # the service's own words for it


def settings_for_admins(t: Translator) -> str:
    """/settings, or a settings button, from someone who is not an admin of the group."""
    return t.gettext("Only group admins can change the settings.")


def no_game_here(t: Translator) -> str:
    """A game command in a group without a game."""
    return say(t, Said(Refusal.NO_GAME_HERE))  # the service's own words for it


def write_as_yourself(t: Translator) -> str:
    """A command that needs a seat at the table, sent as the group or as a channel."""
    return t.gettext("To play, write as yourself, not as the group or a channel.")


def not_in_a_game(t: Translator) -> str:
    """/leave in private from someone in no game."""
    return t.gettext("You are not in a game.")


def open_the_bot_first(t: Translator, name: str, link: str) -> Screen:
    """The answer to /join from someone the bot may not write to yet: a deep link."""
    text = t.gettext("{name}, open the bot and press Start, and you're in.").format(name=name)
    button: Button = {"text": t.gettext("🤖 Open the bot"), "url": link}
    return Screen(text, [[button]])


def group_only(t: Translator, command: str) -> str:
    """The hint for a group's command sent in a private chat (one line)."""
    return t.gettext("{command} works in a group: add me to a group and send it there.").format(
        command=command
    )
