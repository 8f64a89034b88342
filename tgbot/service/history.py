"""What outlives a game: its record, the ratings and stats it counts for, its replay.

The game's last transaction stores its record (in the game's slot) and arms the game's
deadline to fire at once; the deadline then counts the game on the group's board, on the
board of all groups and in each person's stats, each in its own single-slot transaction
that is a no-op if that scope counted the game before (see storage/history_store.py). A
crash anywhere in between leaves the deadline armed, so the counting resumes, once.

Ratings: openskill's Plackett-Luce model, the one openskill recommends for free-for-all
games of any size: the winner ranks first, then the players in the reverse order they went
out. Boards rank by mu - 3 sigma, so a newcomer starts at 0 and one lucky game does not top
a board.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Awaitable, Callable
from typing import Any

from openskill.models import PlackettLuce

from ..config import DAY_S, DEFAULT_RECORD_DAYS
from ..contract import callbacks
from ..contract.outcomes import Notice, Refusal, Said
from ..contract.plan import Send
from ..contract.steps import Claim
from ..engine import Game
from ..engine import events as ev
from ..rendering import history as texts
from ..rendering.i18n import Catalogs, Translator, pick_language
from ..storage.commit import retried
from ..storage.games import GameTx
from ..storage.history_store import GLOBAL_SCOPE, Rated, group_scope
from ..storage.keys import chat_owner
from ..storage.store import Store
from ..storage.updates import Handling
from .archive import DoesNotReplay, Replayed, archive_of, encode_archive, replay
from .records import GAME_ID, GameRecord
from .results import CallbackResult, Origin, Person, Reply, UserError

log = logging.getLogger(__name__)

MIN_PEOPLE = 2  # a game counts for ratings and stats with at least this many people
TOP_PEOPLE, TOP_AI = 10, 5
GAME_ID_SHAPE = re.compile(GAME_ID)
DAY_MS = DAY_S * 1000


def ai_member(seat_id: int) -> str:
    """An AI player's member name on a board (one per AI seat name: Nino, Levan, ...)."""
    return f"ai{seat_id}"


class History:
    """Game records, ratings, personal stats, the claim tracker and replays."""

    def __init__(
        self,
        store: Store,
        catalogs: Catalogs,
        committed: Callable[[str], Awaitable[None]],
        clock: Callable[[], float] = time.time,
        record_ttl_s: int = DEFAULT_RECORD_DAYS * DAY_S,
    ) -> None:
        self.store = store
        self.records = store.history
        self.catalogs = catalogs
        self.committed = committed
        self.clock = clock
        self.record_ttl_s = record_ttl_s
        self.model = PlackettLuce()

    # ---- during a game -----------------------------------------------------------------

    @staticmethod
    def tally_claims(record: GameRecord, events: list[Any]) -> None:
        """Count the characters each player claimed out loud (public: the claim tracker)."""
        for e in events:
            if isinstance(e, ev.ActionDeclared) and e.claim is not None:
                who, character = e.actor, e.claim
            elif isinstance(e, ev.BlockDeclared):
                who, character = e.blocker, e.character
            else:
                continue
            mine = record.claims.setdefault(str(who), {})
            mine[character.value] = mine.get(character.value, 0) + 1

    def claims_line(self, t: Translator, record: GameRecord) -> str:
        """The claim tracker's line for the table ("" when empty or long)."""
        return texts.claims_line(t, record.claims, record.names())

    # ---- the game's last transaction ---------------------------------------------------

    def bluffs_revealed(self, record: GameRecord, game: Game, now_ms: int) -> list[Claim] | None:
        """The claims for the final message's bluff summary, from the game's record
        replayed by the engine; None (and an error logged) if it does not replay, so that
        nothing wrong is ever shown."""
        try:
            replayed = replay(archive_of(record, game, now_ms))
        except DoesNotReplay as err:
            log.error("game %s: its record does not replay (%s); no bluff summary", record.id, err)
            return None
        return [(c.player, c.character, c.turn, c.true) for c in replayed.claims]

    def game_over(self, record: GameRecord, game: Game, tx: GameTx, now_ms: int) -> None:
        """Store the game's record and arm the counting of the game.

        Called in the game's last transaction, after the game was closed (_finish).
        """
        tx.keep_archive(encode_archive(archive_of(record, game, now_ms)), self.record_ttl_s)
        # The deadline (closed by _finish) fires at once, to count the game (settle_if_over).
        tx.arm_deadline(now_ms)

    # ---- after it: counting, once per scope --------------------------------------------

    async def settle_if_over(self, game_id: str) -> bool:
        """If the game is over and kept, count it everywhere (again: no-op) and disarm its
        deadline; False for a game that is not over."""
        archive = await self.records.archive(game_id)
        if archive is None:
            return False
        await self.settle(archive)
        await self.store.deadlines.clear_deadline(game_id)
        return True

    async def settle(self, archive: dict[str, Any]) -> None:
        """Count a finished game on its group's board, the global board and in each
        person's stats; each scope at most once."""
        game_id, end_ms = str(archive["id"]), int(archive["end"])
        keep_ms = self.record_ttl_s * 1000 + DAY_MS  # the lists outlive the records a little
        players = [(int(p[0]), str(p[1]), bool(p[3])) for p in archive["players"]]
        humans = [pid for pid, _, ai in players if not ai]
        counted = len(humans) >= MIN_PEOPLE
        winner = archive.get("winner")
        replayed: Replayed | None
        try:
            replayed = replay(archive)
            places = {pid: i for i, pid in enumerate(replayed.ranking(), 1)}
        except DoesNotReplay as err:
            # Who won is recorded; the order of the others and the bluffs are not known.
            log.error("game %s does not replay (%s): counted without its bluffs", game_id, err)
            replayed = None
            places = {pid: 1 if pid == winner else 2 for pid, _, _ in players}
        members = [str(pid) if not ai else ai_member(pid) for pid, _, ai in players]

        def rate(seen: dict[str, Rated | None]) -> list[tuple[Rated, bool, float]]:
            model = self.model
            teams = []
            for m in members:
                old = seen.get(m)
                teams.append([model.rating() if old is None else model.rating(old.mu, old.sigma)])
            ranks: list[float] = [places[pid] for pid, _, _ in players]
            new = model.rate(teams, ranks=ranks)
            out = []
            for (pid, name, ai), member, team in zip(players, members, new, strict=True):
                before = seen.get(member)
                games = (before.games if before else 0) + 1
                wins = (before.wins if before else 0) + (pid == winner)
                now = team[0]
                score = texts.conservative(now.mu, now.sigma)
                out.append((Rated(member, now.mu, now.sigma, games, wins, name), ai, score))
            return out

        for scope in (group_scope(int(archive["chat"])), GLOBAL_SCOPE):
            await self._rate_once(scope, game_id, end_ms, keep_ms, members, rate, counted)
        for pid in humans:
            counts: dict[str, int] = {}
            if counted:
                counts = {"played": 1, "won": int(pid == winner)}
                for claim in replayed.claims if replayed else []:
                    if claim.player == pid:
                        for name in ("claim", *(() if claim.true else ("bluff",))):
                            field = f"{name}:{claim.character.value}"
                            counts[field] = counts.get(field, 0) + 1
            await self.records.count_person_once(pid, game_id, end_ms, keep_ms, counts)
        log.info("game %s counted (%s)", game_id, "rated" if counted else "fewer than 2 people")

    @retried
    async def _rate_once(
        self,
        scope: str,
        game_id: str,
        end_ms: int,
        keep_ms: int,
        members: list[str],
        rate: Callable[[dict[str, Rated | None]], list[tuple[Rated, bool, float]]],
        counted: bool,
    ) -> None:
        """Count a game on a board once: rated from the members' current ratings when it
        `counted` (two people or more), else only listed there."""
        async with self.records.rating_round(scope, game_id, end_ms, keep_ms, members) as board:
            if counted and not board.counted:
                board.new = rate(board.seen)

    # ---- reading ------------------------------------------------------------------------

    async def stats(self, person: Person, t: Translator) -> Reply:
        """/stats: a person's rating over all groups, games, wins, claims and bluffs."""
        counts = await self.records.person_stats(person.id)
        rated = await self.records.rating(GLOBAL_SCOPE, str(person.id))
        rating = None if rated is None else (rated.mu, rated.sigma)
        return Reply(texts.stats_text(t, counts, rating))

    async def top(self, chat_id: int | None, t: Translator) -> Reply:
        """/top: a group's board (None: all groups') by conservative rating, AI apart."""
        scope = GLOBAL_SCOPE if chat_id is None else group_scope(chat_id)
        people = await self.records.board(scope, False, TOP_PEOPLE)
        ai = await self.records.board(scope, True, TOP_AI)

        def rows(entries: list[Rated]) -> list[tuple[str, float, float, int]]:
            return [(r.name, r.mu, r.sigma, r.games) for r in entries]

        return Reply(texts.top_text(t, rows(people), rows(ai), every_group=chat_id is None))

    @staticmethod
    def claims(record: GameRecord | None, t: Translator) -> Reply:
        """/claims: who has claimed which character in the running game."""
        if record is None:
            raise UserError(Refusal.NO_GAME_HERE, t.language)
        # A lobby is a game with no claim yet ("open one with /newgame" would be wrong there).
        return Reply(texts.claims_text(t, record.claims, record.names()))

    # ---- replays ------------------------------------------------------------------------

    async def replay_for_person(self, person: Person, origin: Origin, game_id: str) -> None:
        """/replay in private: the public log and then the person's own view, in their
        language; `game_id` "" for their last game."""
        t = await self._translator(person)
        if game_id and not GAME_ID_SHAPE.fullmatch(game_id):
            raise UserError(Refusal.NO_SUCH_GAME_ID, t.language)
        if not game_id:
            latest = await self.records.latest_of_person(person.id, 1)
            if not latest:
                raise self._none_kept(t)
            game_id = latest[0]
        archive = await self.records.archive(game_id)
        if archive is None:
            raise self._none_kept(t)
        if person.id not in [int(p[0]) for p in archive["players"] if not p[3]]:
            raise UserError(Refusal.NOT_A_PLAYER_OF_REPLAY, t.language)
        await self._queue(origin, person.id, None, self._texts(t, archive, person.id))

    async def replay_for_group(self, origin: Origin, t: Translator) -> None:
        """/replay in a group: the public log of its last finished game."""
        scope = group_scope(origin.chat_id)
        latest = await self.records.latest_of_scope(scope, 1)
        archive = await self.records.archive(latest[0]) if latest else None
        if archive is None:
            raise self._none_kept(t)
        await self._queue(origin, origin.chat_id, origin.thread_id, self._texts(t, archive, None))

    async def replay_pressed(
        self, person: Person, data: str, update: Handling | None
    ) -> CallbackResult:
        """The Replay button under a game's summary: its player gets it privately."""
        t = await self._translator(person)
        game_id = callbacks.replay_game(data)
        try:
            await self.replay_for_person(person, Origin(update, person.id), game_id)
        except UserError as err:
            return CallbackResult(err.said, alert=True)
        return CallbackResult(Said(Notice.REPLAY_SENT, t.language))

    def _texts(self, t: Translator, archive: dict[str, Any], viewer: int | None) -> list[str]:
        try:
            replayed = replay(archive)
        except DoesNotReplay as err:
            log.error("replay of game %s refused: %s", archive.get("id"), err)
            return [texts.does_not_replay_text(t)]
        names = replayed.names()
        started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(int(archive["start"]) / 1000))
        header = texts.replay_header(t, str(archive["id"]), started)
        lines = texts.public_log(t, replayed.steps, names, header)
        if archive.get("commit"):  # a game that showed its commitment at the start
            game_id, seed, code = str(archive["id"]), int(archive["seed"]), archive["commit"]
            lines += ["", texts.shuffle_check(t, game_id, seed, str(code))]
        messages = texts.split_messages(lines)
        if viewer is not None:
            messages += texts.split_messages(texts.private_log(t, replayed.steps, names, viewer))
        return messages

    def _none_kept(self, t: Translator) -> UserError:
        return UserError(Refusal.NO_RECORD_KEPT, t.language, days=self.record_ttl_s // DAY_S)

    async def _translator(self, person: Person) -> Translator:
        prefs = await self.store.prefs.user_prefs(person.id)
        return self.catalogs.get(pick_language(prefs.get("lang"), person.language_code))

    async def _queue(
        self, origin: Origin, chat_id: int, thread_id: int | None, messages: list[str]
    ) -> None:
        """Queue messages for a chat with the update's mark, in one transaction (delivered
        by the sender, never from the handler)."""
        owner = chat_owner(chat_id)
        ops = [Send(chat_id, text, thread=thread_id, direct=True).to_op() for text in messages]
        await self.store.commits.queue(owner, ops, origin.update)  # Duplicate if seen
        await self.committed(owner)
