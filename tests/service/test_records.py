"""A game record rebuilds its engine state once per stored state, and never stores it."""

from __future__ import annotations

import json

from tgbot.contract.settings import Timing
from tgbot.engine import Game, game_to_dict
from tgbot.engine.cards import Action
from tgbot.engine.decisions import TakeAction
from tgbot.service.records import GameRecord, Seat


def playing_record() -> GameRecord:
    game, _ = Game.new([1, 2], 7, keep_seating=True, first_player=1)
    record = GameRecord("g1", -1, None, "ka", 1, Timing(), status="playing")
    record.players = [Seat(1, "ნინო", "ka"), Seat(2, "Levan", "en")]
    record.engine = game_to_dict(game)
    return record


def test_one_operation_shares_one_rebuilt_game() -> None:
    record = playing_record()
    game = record.game()
    assert record.game() is game  # the checks and the step see the same state
    game.apply(1, TakeAction(Action.INCOME))
    record.engine = game_to_dict(game)  # the step writes it back: a new state
    again = record.game()
    assert again is not game and game_to_dict(again) == game_to_dict(game)


def test_the_rebuilt_game_is_not_stored() -> None:
    record = playing_record()
    record.game()
    stored = record.to_dict()
    assert "_built" not in stored
    back = GameRecord.from_dict(json.loads(json.dumps(stored)))
    assert back.to_dict() == stored and back.game() is not record.game()
