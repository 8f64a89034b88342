"""Where the sender keeps the Telegram id of each message a game edits in place.

A private chat's messages are kept by their reference ("prompt:42"); a group's by their
reference and their chat ("turn@-100123"). A basic group that becomes a supergroup keeps
its messages where they were: the supergroup has none of them and numbers its own from 1,
so an id noted in the old group would name another message there, or none. Kept with its
chat, the old id is never looked up for the new chat: the game's next edit of that message
finds none and sends it anew there (see `Sender._edit`).
"""

from __future__ import annotations

from ..contract.plan import Op


def ref_key(op: Op) -> str | None:
    """The key of the message `op` sends or edits (None: one nothing edits later)."""
    if not op.ref or op.chat > 0:
        return op.ref
    return f"{op.ref}@{op.chat}"


def message_id(refs: dict[str, int], op: Op) -> int | None:
    """The id of the message `op` edits in its chat, if it was sent there."""
    key = ref_key(op)
    if key is None:
        return None
    found = refs.get(key)
    if found is None and key != op.ref:
        # Noted before a group's references named their chat: good while the game has no
        # reference of this name that does (it has not sent this message since).
        prefix = f"{op.ref}@"
        if not any(k.startswith(prefix) for k in refs):
            found = refs.get(op.ref or "")
    return found


def recorded_ids(refs: dict[str, int], chat: int) -> set[int]:
    """The ids the game records for messages that may be in `chat`: its references there,
    and every one that names no chat (a private chat's, or a group's noted before they
    did). Too many rather than too few: a message among them is never taken for a copy."""
    suffix = f"@{chat}"
    return {mid for key, mid in refs.items() if key.endswith(suffix) or "@" not in key}
