"""The Mini App: its page (`page`) and its API, served by the webhook app."""
