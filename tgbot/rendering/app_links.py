"""How the Mini App opens from a chat (issue 29): a `web_app` button in a private chat, and
in a group, where Telegram refuses `web_app` buttons, a URL button to the bot's direct link
`https://t.me/<bot>/<short name>?startapp=<game>`. Without them configured, no button."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote

from .i18n import Translator
from .ui import Button, Keyboard


@dataclass(frozen=True, slots=True)
class AppLinks:
    """Where the Mini App is: its page's public address (None: no `web_app` buttons) and
    BotFather's short name of it (None: no direct link for groups)."""

    page_url: str | None = None
    short_name: str | None = None

    def page_of(self, game_id: str | None) -> str | None:
        """The page's address, opening `game_id` (None: the user's current game)."""
        if self.page_url is None:
            return None
        if game_id is None:
            return self.page_url
        join = "&" if "?" in self.page_url else "?"
        return f"{self.page_url}{join}game={quote(game_id)}"

    def direct_link(self, bot_username: str, game_id: str) -> str | None:
        """The direct link a group's button opens (Telegram hands `startapp` to the page
        as `start_param`), or None without a short name."""
        if self.short_name is None or not bot_username:
            return None
        return f"https://t.me/{bot_username}/{self.short_name}?startapp={quote(game_id)}"


def menu_label(t: Translator) -> str:
    """The private chat's menu button, and the buttons that open the Mini App."""
    return t.gettext("🃏 Table")


def private_row(t: Translator, links: AppLinks, game_id: str) -> Keyboard:
    """A private prompt's last row: the Mini App on this game ([] when not configured)."""
    url = links.page_of(game_id)
    if url is None:
        return []
    button: Button = {"text": menu_label(t), "web_app": url}
    return [[button]]


def group_row(t: Translator, links: AppLinks, bot_username: str, game_id: str) -> Keyboard:
    """The group's turn message's row to the Mini App ([] when not configured)."""
    url = links.direct_link(bot_username, game_id)
    if url is None:
        return []
    button: Button = {"text": menu_label(t), "url": url}
    return [[button]]
