"""A group's settings as one table: their keys, choices, defaults and environment variables.

Everything about a setting is built from `SETTINGS`: the configuration's defaults read
from the environment (`config.load_config`), a group's settings read from the stored hash
(`ChatSettings`), the timing a game keeps (`Timing`, fixed when it is created), which
decision each deadline times (`Timing.seconds`), and the rows of the settings screen and
what each button switches to (`next_setting`). A leaf of the service (it imports the
engine and the list of languages only), so that config and rendering may read it. The
words of each row are rendering's (`rendering/settings_screens.settings_screen`): the
service makes no text.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..engine import DecisionKind, Variant
from .languages import DEFAULT_LANGUAGE, LANGUAGES

TABLE, PRIVATE = "table", "private"  # where the answers to a claim are pressed
LONGEST_S = 24 * 3600  # no decision or lobby waits longer than a day


@dataclass(frozen=True, slots=True)
class Setting:
    """One setting of a group: its key (in the stored hash and on its button), the values
    its button cycles through, and its default as stored. A setting of a game's timing
    also has the environment variable that sets its default for the whole bot, the range
    that variable allows, and the kinds of decision whose deadline it gives."""

    key: str
    choices: tuple[str, ...]
    default: str
    env: str = ""  # set: a setting of the timing (`Timing`)
    lowest: int = 1
    highest: int = LONGEST_S
    times: tuple[DecisionKind, ...] = ()


SETTINGS: tuple[Setting, ...] = (
    Setting("lang", LANGUAGES, DEFAULT_LANGUAGE),
    Setting(
        "turn",
        ("30", "60", "90", "180", "300"),
        "90",
        "TURN_SECONDS",
        lowest=10,
        times=(DecisionKind.TURN,),
    ),
    Setting(
        "response",
        ("15", "30", "60", "120"),
        "30",
        "RESPONSE_SECONDS",
        lowest=5,
        times=(DecisionKind.RESPONSE,),
    ),
    # Choosing the card to show is timed as choosing the card to lose.
    Setting(
        "lose_card",
        ("20", "45", "90"),
        "45",
        "LOSE_CARD_SECONDS",
        lowest=5,
        times=(DecisionKind.LOSE_CARD, DecisionKind.SHOW_CARD),
    ),
    # A look at a shown card is timed as an exchange.
    Setting(
        "exchange",
        ("30", "60", "120"),
        "60",
        "EXCHANGE_SECONDS",
        lowest=5,
        times=(DecisionKind.EXCHANGE, DecisionKind.EXAMINE),
    ),
    Setting("lobby", ("60", "120", "300"), "120", "LOBBY_SECONDS", lowest=10),
    Setting("afk_limit", ("1", "2", "3"), "2", "AFK_LIMIT", lowest=1, highest=10),
    Setting("answers", (TABLE, PRIVATE), TABLE),
    Setting("variant", tuple(v.value for v in Variant), Variant.BASE.value),
)
BY_KEY = {s.key: s for s in SETTINGS}
TIMING_SETTINGS = tuple(s for s in SETTINGS if s.env)
SETTING_CHOICES = {s.key: s.choices for s in SETTINGS}
# The setting whose seconds a kind of decision gets (a turn's for any other).
_TIMED_BY = {kind: s.key for s in TIMING_SETTINGS for kind in s.times}


def _default(key: str) -> int:
    return int(BY_KEY[key].default)


def next_setting(key: str, current: str) -> str:
    """The value a settings button switches to (the first one after an unknown value)."""
    choices = BY_KEY[key].choices
    return (
        choices[(choices.index(current) + 1) % len(choices)] if current in choices else choices[0]
    )


@dataclass(frozen=True, slots=True)
class Timing:
    """Seconds per decision kind, the lobby wait and the AFK limit: a game's, fixed when
    it is created, or the bot's defaults for new games (`Config.deadlines`). Its fields
    are `TIMING_SETTINGS`' keys, in order (a test keeps them so)."""

    turn: int = _default("turn")
    response: int = _default("response")
    lose_card: int = _default("lose_card")
    exchange: int = _default("exchange")
    lobby: int = _default("lobby")
    afk_limit: int = _default("afk_limit")

    def seconds(self, kind: DecisionKind | None) -> int:
        """The deadline of a decision kind."""
        seconds: int = getattr(self, "turn" if kind is None else _TIMED_BY.get(kind, "turn"))
        return seconds


@dataclass(frozen=True, slots=True)
class ChatSettings:
    """What a group's admins chose in /settings, or the default where they chose nothing.

    Stored in Redis as a hash of strings (`store.chat_settings`), keyed by the settings'
    keys (`lang` for `language`); an unknown or unreadable value counts as unset.
    """

    language: str = DEFAULT_LANGUAGE
    turn: int = _default("turn")
    response: int = _default("response")
    lose_card: int = _default("lose_card")
    exchange: int = _default("exchange")
    lobby: int = _default("lobby")
    afk_limit: int = _default("afk_limit")
    answers: str = TABLE
    variant: Variant = Variant.BASE

    @classmethod
    def from_stored(cls, stored: Mapping[str, str], defaults: Timing | None = None) -> ChatSettings:
        """The settings a stored hash says, the timing's defaults (the config's) filling in."""
        d = defaults or Timing()

        def seconds(name: str) -> int:
            default: int = getattr(d, name)
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
            answers=PRIVATE if stored.get("answers") == PRIVATE else TABLE,
            variant=variant,
            **{s.key: seconds(s.key) for s in TIMING_SETTINGS},
        )

    def stored_value(self, key: str) -> str:
        """One setting as the hash stores it (`key` as stored: `lang`, `turn`, ...)."""
        if key == "lang":
            return self.language
        if key == "variant":
            return self.variant.value
        value: object = getattr(self, key)
        return str(value)

    def timing(self) -> Timing:
        """The timing a game opened now gets."""
        return Timing(**{s.key: getattr(self, s.key) for s in TIMING_SETTINGS})
