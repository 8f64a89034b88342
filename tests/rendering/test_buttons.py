"""Button data: a decision's code (the one codec) behind its game and context, in 64 bytes."""

from __future__ import annotations

import pytest

from tgbot.contract import callbacks as buttons
from tgbot.engine import Action, Character, Decision, codes
from tgbot.engine.decisions import (
    Block,
    Challenge,
    KeepCards,
    Pass,
    ShowCard,
    TakeAction,
)

LONGEST_ID, LONGEST_CONTEXT = "z" * 16, 999_999_999


def test_the_longest_button_fits_and_reads_back_with_its_context() -> None:
    seats = [101, 102, 103, 104, 105, 106]
    longest: list[Decision] = [
        KeepCards((Character.AMBASSADOR, Character.CONTESSA)),
        TakeAction(Action.ASSASSINATE, 106),
    ]
    for decision in longest:
        data = buttons.pack(LONGEST_ID, LONGEST_CONTEXT, buttons.encode_decision(decision, seats))
        assert len(data.encode()) <= buttons.MAX_DATA_BYTES
        pressed = buttons.unpack(data)
        assert (pressed.game_id, pressed.context) == (LONGEST_ID, LONGEST_CONTEXT)
        assert codes.decode(pressed.code, seats) == decision


def test_buttons_and_records_share_one_code() -> None:
    seats = [7, 8]
    decision = ShowCard(Character.INQUISITOR)
    assert buttons.encode_decision(decision, seats) == codes.encode(decision, seats) == "Si"


def test_lobby_and_picker_codes_are_no_decision() -> None:
    pickers = [buttons.PICKER_CODES[a] for a in Action]
    for code in [*buttons.LOBBY_CODES, *pickers, buttons.BACK]:
        with pytest.raises(codes.BadCode):
            codes.decode(code, [1, 2])
    assert [buttons.picker_action(c) for c in pickers] == list(Action)
    assert buttons.picker_action(buttons.BACK) is None


def test_a_press_is_parsed_once_into_what_it_opens_or_answers() -> None:
    picker = buttons.unpack(buttons.pack("abcdef", 3, buttons.PICKER_CODES[Action.COUP]))
    assert (picker.picker, picker.answer) == (Action.COUP, False)
    back = buttons.unpack(buttons.pack("abcdef", 3, buttons.BACK))
    assert (back.picker, back.answer) == (None, False)
    for decision in (Challenge(), Pass(), Block(Character.DUKE)):
        pressed = buttons.unpack(buttons.pack("abcdef", 3, codes.encode(decision, [1, 2])))
        assert (pressed.picker, pressed.answer) == (None, True), decision
    income = buttons.unpack(
        buttons.pack("abcdef", 3, codes.encode(TakeAction(Action.INCOME), [1, 2]))
    )
    assert (income.picker, income.answer) == (None, False)


def test_bad_data_is_a_bad_button() -> None:
    for data in (None, "", "abcdef.1", "abcdef.x.C", "ABCDEF.1.C", "abcdef.1." + "K" * 9):
        with pytest.raises(buttons.BadButton):
            buttons.unpack(data)
    for code in ("Wd", "c9", "Kdddd", "Z"):  # "Wd": ShowCard's button code before the codec
        with pytest.raises(codes.BadCode):
            codes.decode(code, [1, 2])
