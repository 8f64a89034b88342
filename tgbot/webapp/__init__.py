"""The Mini App's edge: its API (api.py), checked by Telegram's signature (auth.py), and its
page (page.py)."""

from __future__ import annotations

from collections.abc import Callable

from starlette.routing import BaseRoute

from ..config import Config
from ..service.game_service import GameService
from .api import api_routes
from .page import page_routes


def routes(service: Callable[[], GameService], config: Config) -> list[BaseRoute]:
    """Every route the Mini App adds to the webhook app."""
    return [*api_routes(service, config), *page_routes()]
