"""`python -m tgbot` is the same as the `coup-bot` command."""

from .cli import main

raise SystemExit(main())
