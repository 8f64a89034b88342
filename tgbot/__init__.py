"""A Telegram bot for playing Coup in Georgian-speaking groups."""
