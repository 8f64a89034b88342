"""What one game keeps in Redis besides the engine state: chat, players, prompts, deadline."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import TYPE_CHECKING, Any

from ..contract.settings import Timing as Timing  # a game keeps its timing in its record
from ..engine import Game, Variant, game_from_dict

if TYPE_CHECKING:
    from ..storage.games import GameTx

LOBBY, PLAYING, OVER, CANCELLED = "lobby", "playing", "over", "cancelled"
RECORD_SCHEMA = 1
GAME_ID = r"[a-z0-9]{6,16}"  # what a game id looks like wherever one is read back


@dataclass(slots=True)
class Seat:
    """A person in a game: Telegram id, display name, language."""

    id: int
    name: str
    lang: str
    ai: bool = False


@dataclass(slots=True)
class GameRecord:
    """A whole game as stored: written compare-and-set on `rev`."""

    id: str
    chat_id: int
    thread_id: int | None
    lang: str
    creator: int
    timing: Timing
    status: str = LOBBY
    players: list[Seat] = field(default_factory=list)
    engine: dict[str, Any] | None = None
    seed: int | None = None  # with the decisions, reproduces the game
    context: int = 0  # engine version at which the current decision was offered
    prompts: dict[int, int] = field(default_factory=dict)  # user -> context of open prompt
    deadline_ms: int | None = None
    ai_due_ms: int | None = None  # when an awaited AI player answers
    claims: dict[str, dict[str, int]] = field(default_factory=dict)  # public claim tracker
    moves: list[str] = field(default_factory=list)  # applied steps, coded (service/archive.py)
    move_s: list[int] = field(default_factory=list)  # when each was applied (s after created)
    created_ms: int = 0
    rev: int = 0
    # Where answers to a claim are given: "table" (buttons on the group's turn message) or
    # "private" (a prompt to each answerer), from the group's settings at creation.
    answers: str = "table"
    # The group's turn message: the current turn's story, as its public events (each
    # `Event.to_dict()`, rendered when shown), the reference of the message that holds it
    # (None until it is sent), and the context of the answer buttons it shows (None when
    # it shows none). `story` is what a record written before kept instead: the turn's
    # lines, rendered (or, once the game was over, its final message); shown before the
    # events, and empty from the next turn on.
    turn_events: list[dict[str, Any]] = field(default_factory=list)
    story: list[str] = field(default_factory=list)
    turn_ref: str | None = None
    table_context: int | None = None
    # Once the game is over: the claims its replay revealed, [player, character, turn,
    # true], for the final message's bluff summary (None: it did not replay).
    bluffs: list[list[Any]] | None = None
    delivered: int = -1  # the context whose prompt has reached Telegram (its deadline runs)
    # Turns closed so far (the deal is the 0th): every fifth closes with the whole table.
    turns: int = 0
    # The game's newest group message and the verdicts it shows (contract/steps.Newest as
    # `newest_to_dict` writes it): a turn with nothing to answer is added to it.
    newest: dict[str, Any] | None = None
    # Once the game is over: its end message opens with the last turn's story (that turn
    # had no message of its own), so Play again's edit of it keeps that story.
    end_tells_last_turn: bool = False
    # The rules (VARIANTS.md): the group's setting when the lobby opened, fixed for the game.
    variant: str = "base"
    # The shuffle anyone can check (service/fairness.py): the commitment to the seed the
    # group saw at the start, and the opening hands as dealt, [[player, [card, card]], ...].
    commitment: str | None = None
    deal: list[list[Any]] | None = None
    # ⏳ More time, once per player per game: who used it, and at which decision context
    # (a prompt's delivery that starts that deadline keeps the extra time).
    more_time: dict[int, int] = field(default_factory=dict)
    # Who opened the lobby, by name: the lobby names them even before they can join (a
    # person who never started the bot joins once they press Start).
    creator_name: str = ""
    # The engine state rebuilt once (`game()`), with the `engine` dict it was built from:
    # one operation's checks and its step share it. Not stored.
    _built: tuple[dict[str, Any], Game] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    def game_variant(self) -> Variant:
        """The variant this game is (or will be) played with."""
        try:
            return Variant.parse(self.variant)
        except ValueError:
            return Variant.BASE

    def seat(self, user_id: int) -> Seat | None:
        """The player with this id, if they are in the game."""
        return next((s for s in self.players if s.id == user_id), None)

    def humans(self) -> list[Seat]:
        """The people (not AI players) in the game."""
        return [s for s in self.players if not s.ai]

    def ai_ids(self) -> set[int]:
        """Seat ids of the AI players."""
        return {s.id for s in self.players if s.ai}

    def names(self) -> dict[int, str]:
        """Display names by id."""
        return {s.id: s.name for s in self.players}

    def next_due_ms(self) -> int | None:
        """When the game's next deadline falls: its decision's, or its awaited AI player's
        move if that comes first (None: neither is set)."""
        due = [d for d in (self.deadline_ms, self.ai_due_ms) if d is not None]
        return min(due) if due else None

    def game(self) -> Game:
        """The engine state, rebuilt once per `engine` dict (applying a decision to it
        changes it for every later call until `engine` is written again)."""
        assert self.engine is not None
        if self._built is None or self._built[0] is not self.engine:
            self._built = (self.engine, game_from_dict(self.engine))
        return self._built[1]

    def save_in(self, tx: GameTx, step: bool = True) -> None:
        """Write the record in `tx`: a step of the game raises its revision (a new record,
        or a change that is no step, keeps it: buttons stay current)."""
        if step:
            self.rev += 1
        tx.save(self.id, self.to_dict(), self.rev, self.status)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form."""
        data = asdict(replace(self))  # a copy without the rebuilt game (init=False)
        del data["_built"]
        data["schema"] = RECORD_SCHEMA
        data["prompts"] = {str(k): v for k, v in self.prompts.items()}
        data["more_time"] = {str(k): v for k, v in self.more_time.items()}
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameRecord:
        """Read what to_dict() wrote."""
        data = dict(data)
        data.pop("schema", None)
        data.pop("_seen", None)  # the storage's dedup of updates (tgbot/storage/plan.py)
        data.pop("tail", None)  # written before issue 38: no message keeps a "whose turn" line
        data["timing"] = Timing(**data["timing"])
        data["players"] = [Seat(**s) for s in data["players"]]
        data["prompts"] = {int(k): v for k, v in data["prompts"].items()}
        data["more_time"] = {int(k): v for k, v in data.get("more_time", {}).items()}
        return cls(**data)
