"""Every Redis key the bot uses, in one place.

One game's keys share the hash tag ``{g:<id>}`` so that they could live on one Redis
Cluster slot. Outboxes belong to an *owner*: a game (its id), or a chat for the replies to
commands that no game holds (``c:<chat id>``, tagged ``{c:<chat id>}``).
"""

from __future__ import annotations

from dataclasses import dataclass

CHAT_OWNER_PREFIX = "c:"


def chat_owner(chat_id: int) -> str:
    """The outbox owner of a chat's replies (a game id never contains a colon)."""
    return f"{CHAT_OWNER_PREFIX}{chat_id}"


def _tag(owner: str) -> str:
    return owner if owner.startswith(CHAT_OWNER_PREFIX) else f"g:{owner}"


@dataclass(frozen=True, slots=True)
class Keys:
    """Key names under a prefix."""

    prefix: str = "coup"

    def game(self, game_id: str) -> str:
        """The game record (JSON, with its revision)."""
        return f"{self.prefix}:{{g:{game_id}}}:game"

    def outbox(self, owner: str) -> str:
        """Messages a game's steps (or a chat's replies) queued, not delivered yet."""
        return f"{self.prefix}:{{{_tag(owner)}}}:outbox"

    def messages(self, owner: str) -> str:
        """Hash: message reference -> Telegram message id (to edit later)."""
        return f"{self.prefix}:{{{_tag(owner)}}}:msgs"

    def sending(self, owner: str) -> str:
        """Lock held while one process delivers the owner's outbox."""
        return f"{self.prefix}:{{{_tag(owner)}}}:sending"

    def chat_game(self, chat_id: int) -> str:
        """The open game of a group."""
        return f"{self.prefix}:chat:{chat_id}:game"

    def chat_settings(self, chat_id: int) -> str:
        """Hash: a group's settings (language, deadlines, AFK limit)."""
        return f"{self.prefix}:chat:{chat_id}:settings"

    def user_game(self, user_id: int) -> str:
        """The game a person is in."""
        return f"{self.prefix}:user:{user_id}:game"

    def user_prefs(self, user_id: int) -> str:
        """Hash: a person's language and whether the bot may write to them."""
        return f"{self.prefix}:user:{user_id}:prefs"

    @property
    def deadlines(self) -> str:
        """Sorted set: game id scored by its next deadline (epoch milliseconds)."""
        return f"{self.prefix}:deadlines"

    @property
    def pending_outboxes(self) -> str:
        """Set of games whose outbox may hold undelivered messages."""
        return f"{self.prefix}:outboxes"

    def update(self, update_id: int) -> str:
        """Marks a Telegram update as applied, so a second delivery changes nothing."""
        return f"{self.prefix}:update:{update_id}"

    def stats_user(self, user_id: int) -> str:
        """Hash: a person's games played, won, and claims by character (kept forever)."""
        return f"{self.prefix}:stats:user:{user_id}"

    def stats_chat_wins(self, chat_id: int) -> str:
        """Sorted set: wins per person in a group (the leaderboard)."""
        return f"{self.prefix}:stats:chat:{chat_id}:wins"

    def stats_chat_played(self, chat_id: int) -> str:
        """Sorted set: games played per person in a group."""
        return f"{self.prefix}:stats:chat:{chat_id}:played"

    def stats_chat_names(self, chat_id: int) -> str:
        """Hash: the latest display name of each person on a group's leaderboard."""
        return f"{self.prefix}:stats:chat:{chat_id}:names"

    def chat_sends(self, chat_id: int) -> str:
        """Sorted set: recent messages and edits sent to a chat (its rate window)."""
        return f"{self.prefix}:sends:{{rl:{chat_id}}}:window"

    def chat_hold(self, chat_id: int) -> str:
        """Set while Telegram asked the bot (with a 429) to wait before writing to a chat."""
        return f"{self.prefix}:sends:{{rl:{chat_id}}}:hold"

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
