"""A person's preferences (a small hash of strings) and a group's settings (JSON in the
group's slot, beside its outbox)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from .commit import Commits, retried
from .keys import Keys, chat_owner
from .plan import SEEN_FIELD, Writes, doc_of
from .updates import Handling

# /notify: a group's list lives this long after its last change or use (a group that
# plays no more forgets it); a person is told of a group's new game at most once per
# NOTIFY_COOLDOWN_S, and a game's opening tells at most NOTIFY_MAX_PER_LOBBY people (the
# bot's 30 messages a second are shared by every group).
NOTIFY_TTL_S = 180 * 24 * 3600
NOTIFY_COOLDOWN_S = 600
NOTIFY_MAX_PER_LOBBY = 30

# Toggle ARGV[1] in the hash KEYS[1] (its value ARGV[3], a language code); 1 when it is
# in the hash now. ARGV[2]: the hash's TTL.
_TOGGLE = """
local on = 1
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then
  redis.call('HDEL', KEYS[1], ARGV[1])
  on = 0
else
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
end
if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('EXPIRE', KEYS[1], ARGV[2]) end
return on
"""

# KEYS[1] the group's list, KEYS[2..] each candidate's mark: the (1-based) candidates
# whose mark was free, now set for ARGV[1] s; at most ARGV[3]. The list's TTL is renewed.
_CLAIM_NOTICES = """
local told = {}
for i = 2, #KEYS do
  if #told >= tonumber(ARGV[3]) then break end
  if redis.call('SET', KEYS[i], '1', 'NX', 'EX', ARGV[1]) then told[#told + 1] = i - 1 end
end
if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('EXPIRE', KEYS[1], ARGV[2]) end
return told
"""


# A person's "dm" field: "1" once they started the bot in private (it may write to them
# there), "0" once Telegram refused a message to them (until they start it again).
DM_FIELD = "dm"


def can_write(prefs: dict[str, str]) -> bool:
    """Whether a person's preferences say the bot may write to them in private."""
    return prefs.get(DM_FIELD) == "1"


@dataclass(slots=True, kw_only=True)
class SettingsTx(Writes):
    """What one change of a group's settings writes, in the group's words."""

    chat_id: int
    key: str

    def settings(self, values: dict[str, str]) -> None:
        """The group's settings after the change, all of them."""
        self.set_json[self.key] = dict(values)

    def queue(self, op: dict[str, Any]) -> None:
        """Queue one delivery in the group's outbox, in the same script."""
        self.send(chat_owner(self.chat_id), op)


class Prefs:
    """Preferences and settings."""

    def __init__(self, redis: Any, keys: Keys, commits: Commits) -> None:
        self.redis = redis
        self.keys = keys
        self.commits = commits

    async def user_prefs(self, user_id: int) -> dict[str, str]:
        """A person's stored preferences."""
        prefs: dict[str, str] = await self.redis.hgetall(self.keys.user_prefs(user_id))
        return prefs

    async def refused_us(self, user_id: int) -> bool:
        """Whether Telegram refused the bot's last private message to this person."""
        return bool(await self.redis.hget(self.keys.user_prefs(user_id), DM_FIELD) == "0")

    def note_refused(self, writes: Writes, user_id: int) -> None:
        """Add to `writes`: Telegram refused a private message to this person."""
        writes.hset.setdefault(self.keys.user_prefs(user_id), {})[DM_FIELD] = "0"

    async def note_started(self, user_id: int, name: str) -> None:
        """The person started the bot in private: it may write to them (under `name`)."""
        await self.set_user_prefs(user_id, **{DM_FIELD: "1", "name": name})

    async def set_user_prefs(self, user_id: int, **values: str) -> None:
        """Store some of a person's preferences."""
        await self.redis.hset(self.keys.user_prefs(user_id), mapping=values)

    async def toggle_notify(self, chat_id: int, user_id: int, language_code: str) -> bool:
        """/notify in a group: add the person to those told of a new game there (with their
        Telegram language then: the notice's, until they choose one), or take them off;
        True when they are now on it. The list lives NOTIFY_TTL_S after its last change
        or use."""
        key = self.keys.notify_list(chat_id)
        on = await self.redis.eval(_TOGGLE, 1, key, user_id, NOTIFY_TTL_S, language_code)
        return bool(int(on))

    async def claim_notices(
        self, chat_id: int, candidates: list[int], cooldown_s: int = NOTIFY_COOLDOWN_S
    ) -> list[int]:
        """Of `candidates` (people on the group's list), those to be told of a game opening
        now: each at most once per `cooldown_s` per group, at most NOTIFY_MAX_PER_LOBBY at a
        time. One script on the group's slot (the list and every mark share it)."""
        if not candidates:
            return []
        keys = [self.keys.notify_list(chat_id)]
        keys += [self.keys.notified(chat_id, u) for u in candidates]
        told = await self.redis.eval(
            _CLAIM_NOTICES, len(keys), *keys, cooldown_s, NOTIFY_TTL_S, NOTIFY_MAX_PER_LOBBY
        )
        return [candidates[int(i) - 1] for i in told]

    async def notify_list(self, chat_id: int) -> dict[int, str]:
        """The people of a group who asked to be told when a game opens there, each with
        their Telegram language when they asked ("" if none)."""
        listed = await self.redis.hgetall(self.keys.notify_list(chat_id))
        return {int(u): str(code) for u, code in sorted(listed.items())}

    async def chat_settings(self, chat_id: int) -> dict[str, str]:
        """A group's stored settings (those written before they moved, while they have
        not been written since)."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.get(self.keys.chat_settings(chat_id))
        pipe.hgetall(self.keys.chat_settings_before(chat_id))
        raw, before = await pipe.execute()
        return dict(before) if raw is None else settings_of(raw)

    @retried
    async def set_chat_settings(self, chat_id: int, **values: str) -> None:
        """Store some of a group's settings (a group that became a supergroup, tests): no
        update's mark, nothing queued."""
        async with self.settings_transaction(chat_id, None) as (current, tx):
            tx.settings({**current, **values})

    @contextlib.asynccontextmanager
    async def settings_transaction(
        self, chat_id: int, update: Handling | None
    ) -> AsyncIterator[tuple[dict[str, str], SettingsTx]]:
        """One attempt at changing a group's settings, as a block: it gives their current
        values and the transaction to fill (the new values, what the group's outbox
        queues); leaving it commits them compare-and-set, with the update's mark, in one
        script on the group's slot. Duplicate if the update was applied before; Stale if
        the settings changed meanwhile (the caller runs its attempt again: `retried`)."""
        key = self.keys.chat_settings(chat_id)
        before = self.keys.chat_settings_before(chat_id)
        read = await self.commits.read([key], update)
        raw = read.seen[key]
        current = dict(await self.redis.hgetall(before)) if raw is None else settings_of(raw)
        tx = SettingsTx(chat_id=chat_id, key=key)
        if raw is None:
            tx.delete.append(before)  # moved: read from the new key from now on
        yield current, tx
        if key not in tx.set_json:
            tx.settings(current)
        await self.commits.write(read, tx, update)


def settings_of(raw: str) -> dict[str, str]:
    """A group's settings as stored (JSON), without the update ids kept with them."""
    doc = doc_of(raw) or {}
    return {k: str(v) for k, v in doc.items() if k != SEEN_FIELD}


# An update of a chat: 2 if applied before (in the chat's latest ids, KEYS[1]), else 1 if
