"""The Telegram side: thin handlers, the webhook app and the outbox sender."""
