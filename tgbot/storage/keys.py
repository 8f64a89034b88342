"""Every Redis key the bot uses, in one place, designed for Redis Cluster's slots.

One game's keys share the hash tag ``{g:<id>}``: a step reads and writes only them in its
transaction. Outboxes belong to an *owner*: a game (its id), or a chat for the replies to
commands that no game holds (``c:<chat id>``, tagged ``{c:<chat id>}``).

What crosses games (a chat's or a person's game, settings, preferences, stats) lives in
keys of its own, each written in a single-slot operation. What every process scans (due
deadlines, outboxes waiting for delivery) is split into `buckets` keys tagged
``{dl:<n>}`` and ``{ob:<n>}``, a game's bucket fixed by its id, so that no key takes more
than about 1/buckets of that traffic however many games there are.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

CHAT_OWNER_PREFIX = "c:"
OUTBOX_TTL_S = 3 * 24 * 3600  # undelivered messages this old are of no use to anyone


def chat_owner(chat_id: int) -> str:
    """The outbox owner of a chat's replies (a game id never contains a colon)."""
    return f"{CHAT_OWNER_PREFIX}{chat_id}"


def _tag(owner: str) -> str:
    return owner if owner.startswith(CHAT_OWNER_PREFIX) else f"g:{owner}"


def slot_tag(key: str) -> str:
    """What Redis Cluster hashes for a key: its {tag} if it has one, else the whole key."""
    start = key.find("{")
    if start >= 0:
        end = key.find("}", start + 1)
        if end > start + 1:
            return key[start + 1 : end]
    return key


def game_of_key(key: str) -> str | None:
    """The game id a game-slot key belongs to (None for other keys)."""
    tag = slot_tag(key)
    return tag[2:] if tag.startswith("g:") else None


@dataclass(frozen=True, slots=True)
class Keys:
    """Key names under a prefix."""

    prefix: str = "coup"
    buckets: int = 8  # REDIS_BUCKETS: shards of the deadline and pending-delivery sets

    def bucket(self, owner: str) -> int:
        """The bucket of a game (or chat owner), the same in every process."""
        return zlib.crc32(owner.encode()) % self.buckets

    def game(self, game_id: str) -> str:
        """The game record (JSON, with its revision)."""
        return f"{self.prefix}:{{g:{game_id}}}:game"

    def archive(self, game_id: str) -> str:
        """A finished game's kept record (JSON), in the game's slot."""
        return f"{self.prefix}:{{g:{game_id}}}:archive"

    def outbox(self, owner: str) -> str:
        """List: what a game's steps (or a chat's replies) queued and the sender has not
        taken into its chats' lanes yet (`outbox_lane`)."""
        return f"{self.prefix}:{{{_tag(owner)}}}:outbox"

    def outbox_lanes(self, owner: str) -> str:
        """Set: the chats whose lane of an owner's outbox holds messages (see Store)."""
        return f"{self.prefix}:{{{_tag(owner)}}}:lanes"

    def outbox_lane(self, owner: str, chat_id: int | str) -> str:
        """List: one chat's messages taken from an owner's outbox, in order."""
        return f"{self.prefix}:{{{_tag(owner)}}}:lane:{chat_id}"

    def outbox_states(self, owner: str) -> str:
        """Hash: the newest pending state of each message of an owner's lanes, and what a
        send with buttons reached Telegram as (see Store)."""
        return f"{self.prefix}:{{{_tag(owner)}}}:states"

    def sender_lease(self, token: str) -> str:
        """Set while the process whose delivery locks hold `token` is alive."""
        return f"{self.prefix}:sender:{token}"

    def messages(self, owner: str) -> str:
        """Hash: message reference -> Telegram message id (to edit later)."""
        return f"{self.prefix}:{{{_tag(owner)}}}:msgs"

    def message_heads(self, owner: str) -> str:
        """Hash: message reference -> the quiet turns' verdicts that rode at its top when it
        was sent (every later state of it keeps them)."""
        return f"{self.prefix}:{{{_tag(owner)}}}:heads"

    def sending(self, owner: str) -> str:
        """Lock held while one process delivers the owner's outbox."""
        return f"{self.prefix}:{{{_tag(owner)}}}:sending"

    def chat_game(self, chat_id: int) -> str:
        """The open game of a group."""
        return f"{self.prefix}:chat:{chat_id}:game"

    def chat_settings(self, chat_id: int) -> str:
        """JSON: a group's settings (language, deadlines, AFK limit...), in the group's slot
        ``{c:<chat id>}``, with its outbox: a change and the screen's new look are queued
        in one script."""
        return f"{self.prefix}:{{{chat_owner(chat_id)}}}:settings"

    def chat_settings_before(self, chat_id: int) -> str:
        """Hash: a group's settings as written before they moved to `chat_settings` (read
        while that is absent, dropped by its first write)."""
        return f"{self.prefix}:chat:{chat_id}:settings"

    def notify_list(self, chat_id: int) -> str:
        """The people of a group who asked to be told privately when a game opens there
        (/notify), in the group's slot ``{c:<chat id>}``, as its notice marks."""
        return f"{self.prefix}:{{{chat_owner(chat_id)}}}:notify"

    def notified(self, chat_id: int, user_id: int) -> str:
        """A mark that a person was told of a game opening in a group (it caps the notices:
        one per person per group while it lives), in the group's slot."""
        return f"{self.prefix}:{{{chat_owner(chat_id)}}}:notified:{user_id}"

    def user_game(self, user_id: int) -> str:
        """The game a person is in."""
        return f"{self.prefix}:user:{user_id}:game"

    def user_prefs(self, user_id: int) -> str:
        """Hash: a person's language and whether the bot may write to them."""
        return f"{self.prefix}:user:{user_id}:prefs"

    def deadlines(self, bucket: int) -> str:
        """Sorted set: one bucket's game ids scored by their next deadline (epoch ms)."""
        return f"{self.prefix}:{{dl:{bucket}}}:deadlines"

    def deadline_revs(self, bucket: int) -> str:
        """Hash: the record revision that last set each game's deadline in the bucket
        (an older step's late write never overrides a newer one)."""
        return f"{self.prefix}:{{dl:{bucket}}}:revs"

    def pending_outboxes(self, bucket: int) -> str:
        """Sorted set: one bucket's owners whose outbox may hold undelivered messages,
        scored by when a step last queued something (epoch ms)."""
        return f"{self.prefix}:{{ob:{bucket}}}:pending"

    def seen(self, scope_key: str) -> str:
        """Sorted set in `scope_key`'s slot: the latest update ids applied there (bounded)."""
        return f"{self.prefix}:{{{slot_tag(scope_key)}}}:seen"

    def update_lease(self, chat_id: int, update_id: int) -> str:
        """An update being handled, in its chat's outbox slot (`storage/updates.py`)."""
        scope = self.outbox(chat_owner(chat_id))
        return f"{self.prefix}:{{{slot_tag(scope)}}}:u:{update_id}"

    def chat_sends(self, chat_id: int) -> str:
        """Sorted set: recent messages and edits sent to a chat (its rate window)."""
        return f"{self.prefix}:sends:{{rl:{chat_id}}}:window"

    def chat_game_sends(self, chat_id: int) -> str:
        """Sorted set: a group's recent messages and edits of its games (their share of its
        rate window; the rest of its window is `chat_sends`)."""
        return f"{self.prefix}:sends:{{rl:{chat_id}}}:game"

    def chat_hold(self, chat_id: int) -> str:
        """Set while Telegram asked the bot (with a 429) to wait before writing to a chat."""
        return f"{self.prefix}:sends:{{rl:{chat_id}}}:hold"

    def chat_pace(self, chat_id: int) -> str:
        """String: when a group's next message is due at its steady pace (ms; see
        storage/windows.py's admit script)."""
        return f"{self.prefix}:sends:{{rl:{chat_id}}}:pace"

    def bot_sends(self, queued: bool, shard: int) -> str:
        """Sorted set: one shard of the bot's recent calls, from every process (per second)."""
        kind = "queued" if queued else "direct"
        return f"{self.prefix}:sends:{{bot:{kind}:{shard}}}"

    @property
    def health_probe(self) -> str:
        """A short-lived key written to check that Redis accepts writes."""
        return f"{self.prefix}:health"

    def throttle(self, user_id: int) -> str:
        """Counts one person's recent updates."""
        return f"{self.prefix}:throttle:{user_id}"

    def game_events(self, game_id: str) -> str:
        """The (sharded) pub/sub channel a game's record's new revisions are published on,
        in its game's slot."""
        return f"{self.prefix}:{{g:{game_id}}}:events"

    def app_present(self, game_id: str) -> str:
        """Sorted set in the game's slot: the event streams open on the game, each
        `<person>:<stream>:<process>`, counted while its process's `app_pages` lives (an
        older `<person>:<stream>` scored by when it lapses, epoch ms); a player with one
        is asked in the page first (telegram/lanes.py `asked_in_page`)."""
        return f"{self.prefix}:{{g:{game_id}}}:present"

    def app_pages(self, process: str) -> str:
        """Set while the process `process` holds event streams open (renewed by one task
        per process, however many pages it serves): its presences count while it lives."""
        return f"{self.prefix}:pages:{process}"

    def app_request(self, user_id: int, game_id: str, request_id: str) -> str:
        """A Mini App decision's request id in one game and, once accepted, its answer
        (exactly once)."""
        return f"{self.prefix}:app:{user_id}:req:{game_id}:{request_id}"

    def app_ticket(self, ticket: str) -> str:
        """A single-use ticket that opens one event stream of one person on one game."""
        return f"{self.prefix}:app:ticket:{ticket}"

    def app_throttle(self, user_id: int) -> str:
        """Counts one person's recent Mini App requests."""
        return f"{self.prefix}:app:{user_id}:throttle"

    # Rating boards (one per group, one over all groups: `history_store.group_scope`), each
    # in the slot of its scope, and a person's stats, in theirs.

    def ratings(self, scope: str) -> str:
        """Hash: member -> JSON {mu, s(igma), g(ames), w(ins), n(ame)}."""
        return f"{self.prefix}:{{r:{scope}}}:ratings"

    def ranks(self, scope: str, ai: bool) -> str:
        """Sorted set: member -> conservative rating (people and AI players apart)."""
        return f"{self.prefix}:{{r:{scope}}}:rank:{'ai' if ai else 'people'}"

    def scope_games(self, scope: str) -> str:
        """Sorted set: the games counted on this board (game id -> end, epoch ms)."""
        return f"{self.prefix}:{{r:{scope}}}:games"

    def person_stats(self, user_id: int) -> str:
        """Hash: a person's games, wins, claims and bluffs by character."""
        return f"{self.prefix}:{{u:{user_id}}}:stats"

    def person_games(self, user_id: int) -> str:
        """Sorted set: the games a person played (game id -> end, epoch ms)."""
        return f"{self.prefix}:{{u:{user_id}}}:games"

    def legacy_deadlines(self) -> str:
        """The one deadline set of versions before the buckets (read once, at start)."""
        return f"{self.prefix}:deadlines"

    def legacy_outboxes(self) -> str:
        """The one set of pending outboxes of versions before the buckets (as above)."""
        return f"{self.prefix}:outboxes"
