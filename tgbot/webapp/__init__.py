"""The Mini App's edge: its API (api.py), checked by Telegram's signature (auth.py)."""

from __future__ import annotations

from collections.abc import Callable

from starlette.routing import BaseRoute

from ..config import Config
from ..service.game_service import GameService
from .api import api_routes


def routes(service: Callable[[], GameService], config: Config) -> list[BaseRoute]:
    """Every route the Mini App adds to the webhook app."""
    return api_routes(service, config)
