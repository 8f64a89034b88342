"""Callback data: every family of button data, its prefix, its pattern, packed and parsed.

A leaf of the service (it imports only the engine), so that rendering may pack buttons
with it and the edge may route presses by its patterns; parsing a press happens here,
next to `engine/codes`, never in rendering. Telegram allows 1-64 bytes of data.

The families, by prefix (any data that is none of the first three is a game's button):

- ``lang.<code>``: the private language picker (`language`).
- ``cfg.<key>``: a group's settings screen, one button per setting (`setting`).
- ``rp.<game id>``: the Replay button under a game's summary (`replay`).
- ``me.<game id>``: 👁 My cards on the group's turn message (`my_cards`): any player's
  own cards in a pop-up; valid as long as the game is on, so it names no context.
- ``mt.<game id>.<context>``: ⏳ More time (`more_time`), on the turn message for the
  answerers and on a private prompt: 30 s more for the decision of that context.
- ``<game id>.<context version>.<code>``: a game's button (`pack`, `unpack`). The context
  version is the game version at which the buttons' decision was offered; a press from an
  older context is stale. The code is a decision's code (engine/codes.py, the same as in
  the kept game record), a lobby code (one upper-case letter, never a whole decision code:
  "S" is Start, a ShowCard is "S" and a card), or a target picker's ("t" and an action's
  letter).

What is on the wire stays as it is: open buttons and kept records must keep working.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from ..engine import Action, codes

MAX_DATA_BYTES = 64  # Bot API: callback_data is 1-64 bytes

# ---- the picker of a person's language, the settings of a group, the replay ----------

LANGUAGE_PREFIX = "lang."
SETTING_PREFIX = "cfg."
REPLAY_PREFIX = "rp."
# python-telegram-bot matches these at the start of the data (`re.match`).
LANGUAGE_PATTERN = re.compile(re.escape(LANGUAGE_PREFIX) + "(.*)", re.DOTALL)
SETTING_PATTERN = re.compile(re.escape(SETTING_PREFIX) + "(.*)", re.DOTALL)
REPLAY_PATTERN = re.compile(re.escape(REPLAY_PREFIX))
MY_CARDS_PREFIX = "me."
MORE_TIME_PREFIX = "mt."
# Whole-data patterns: a malformed one falls through to a game's button and is refused.
MY_CARDS_PATTERN = re.compile(re.escape(MY_CARDS_PREFIX) + r"([a-z0-9]{6,16})\Z")
MORE_TIME_PATTERN = re.compile(re.escape(MORE_TIME_PREFIX) + r"([a-z0-9]{6,16})\.(\d{1,9})\Z")


def language(code: str) -> str:
    """The data of the language picker's button for a language."""
    return LANGUAGE_PREFIX + code


def setting(key: str) -> str:
    """The data of the settings screen's button for one setting (its stored key)."""
    return SETTING_PREFIX + key


def replay(game_id: str) -> str:
    """The data of a game's Replay button."""
    return REPLAY_PREFIX + game_id


def replay_game(data: str) -> str:
    """The game id a Replay button's data names (checked by whoever looks the game up)."""
    return data.removeprefix(REPLAY_PREFIX)


def my_cards(game_id: str) -> str:
    """The data of a game's 👁 My cards button."""
    return MY_CARDS_PREFIX + game_id


def more_time(game_id: str, context: int) -> str:
    """The data of a game's ⏳ More time button for the decision of `context`."""
    return f"{MORE_TIME_PREFIX}{game_id}.{context}"


# ---- a game's buttons ------------------------------------------------------------------

LOBBY_JOIN, LOBBY_LEAVE, LOBBY_START, LOBBY_CANCEL = "J", "Q", "S", "X"
LOBBY_ADD_AI, LOBBY_REMOVE_AI = "A", "R"
AGAIN = "G"  # Play again, on the final message of a game
LOBBY_CODES = frozenset(
    {LOBBY_JOIN, LOBBY_LEAVE, LOBBY_START, LOBBY_CANCEL, LOBBY_ADD_AI, LOBBY_REMOVE_AI, AGAIN}
)
ANSWER_HEADS = frozenset("CPB")  # Challenge, Pass, Block as ...: answers to a claim
PICK_PREFIX = "t"  # "t" + action code: show targets; "tb": back to the actions
BACK = "tb"
_PICKER_ACTION = {code: action for action, code in codes.ACTION_CODES.items()}
# The code of the button that opens an action's target picker ("t" and its letter).
PICKER_CODES = {action: PICK_PREFIX + code for action, code in codes.ACTION_CODES.items()}

# At most 16 + 1 + 9 + 1 + 8 = 35 bytes, well within MAX_DATA_BYTES.
GAME_PATTERN = re.compile(r"^([a-z0-9]{6,16})\.(\d{1,9})\.([A-Za-z0-9]{1,8})$")


class BadButton(ValueError):
    """Button data that does not parse."""


@dataclass(frozen=True, slots=True)
class ButtonPress:
    """A parsed button: which game, which context, and what it says."""

    game_id: str
    context: int
    code: str
    # Read off the code once, when the press is made: plain values from then on.
    answer: bool = field(init=False, compare=False)  # an answer to a claim (`is_answer`)
    # the action whose target picker it opens (`picker_action`), if any
    picker: Action | None = field(init=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "answer", is_answer(self.code))
        object.__setattr__(self, "picker", picker_action(self.code))


def pack(game_id: str, context: int, code: str) -> str:
    """Build the data string of a game's button."""
    return f"{game_id}.{context}.{code}"


def pack_all(game_id: str, context: int, codes: Iterable[str]) -> list[str]:
    """The data strings of a keyboard's buttons, which share a game and a context."""
    return [pack(game_id, context, code) for code in codes]


def unpack(data: str | None) -> ButtonPress:
    """Parse a game's button data, or raise BadButton."""
    match = GAME_PATTERN.match(data or "")
    if not match:
        raise BadButton(data)
    return ButtonPress(match.group(1), int(match.group(2)), match.group(3))


# The code of a decision (engine/codes.py, as the kept records write it): targets travel
# as seats, not user ids. The engine's own function: a button's code is that code.
encode_decision = codes.encode


def is_answer(code: str) -> bool:
    """Whether a code is an answer to a claim (the buttons of the group's turn message)."""
    return bool(code) and code[0] in ANSWER_HEADS


def picker_action(code: str) -> Action | None:
    """The action whose target picker a code opens, if it is such a code."""
    if len(code) == 2 and code[0] == PICK_PREFIX and code != BACK:
        return _PICKER_ACTION.get(code[1])
    return None
