"""Looks into the store that only tests need (the bot itself never asks these)."""

from __future__ import annotations

from typing import Any

from tgbot.storage.store import Store


async def deadline_of(store: Store, game_id: str) -> int | None:
    """A game's armed deadline (epoch ms), None when it has none."""
    keys = store.keys
    due = await store.redis.zscore(keys.deadlines(keys.bucket(game_id)), game_id)
    return None if due is None else int(due)


async def outbox_head(store: Store, owner: str) -> dict[str, Any] | None:
    """An undelivered message of an owner, if it has any (None: all delivered)."""
    items = await store.outboxes.outbox_items(owner)
    return items[0][1] if items else None


async def admit_chat(store: Store, chat_id: int, now_ms: int, limit: int, window_ms: int) -> int:
    """Count a message to a chat if its window allows it (0); else the ms to wait first."""
    taken, wait = await store.windows.take_chat(chat_id, now_ms, limit, window_ms, 1, 0)
    return 0 if taken else wait
