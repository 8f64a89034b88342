"""A person's preferences (a small hash of strings) and a group's settings (JSON in the
group's slot, beside its outbox)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .commit import Commits
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

    async def set_chat_settings(self, chat_id: int, **values: str) -> None:
        """Store some of a group's settings (a group that became a supergroup, tests): no
        update's mark, nothing queued."""
        await self.change_chat_settings(chat_id, lambda _: dict(values), None)

    async def change_chat_settings(
        self,
        chat_id: int,
        change: Callable[[dict[str, str]], dict[str, str]],
        update: Handling | None,
        queue: Callable[[dict[str, str]], list[dict[str, Any]]] | None = None,
    ) -> dict[str, str]:
        """Change a group's settings from their current values, compare-and-set, with the
        update's mark and what `queue` makes of the new values queued in the group's
        outbox, in one script on the group's slot; the settings then. Duplicate if the
        update was applied before."""
        key = self.keys.chat_settings(chat_id)
        before = self.keys.chat_settings_before(chat_id)
        written: dict[str, str] = {}

        async def build(seen: dict[str, str | None]) -> Writes:
            raw = seen[key]
            current = dict(await self.redis.hgetall(before)) if raw is None else settings_of(raw)
            values = {**current, **change(current)}
            writes = Writes(set_json={key: dict(values)})
            if raw is None:
                writes.delete.append(before)  # moved: read from the new key from now on
            for op in queue(values) if queue is not None else []:
                writes.send(chat_owner(chat_id), op)
            written.clear()
            written.update(values)
            return writes

        await self.commits.atomic([key], build, update=update)
        return written


def settings_of(raw: str) -> dict[str, str]:
    """A group's settings as stored (JSON), without the update ids kept with them."""
    doc = doc_of(raw) or {}
    return {k: str(v) for k, v in doc.items() if k != SEEN_FIELD}


# An update of a chat: 2 if applied before (in the chat's latest ids, KEYS[1]), else 1 if
