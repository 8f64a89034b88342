"""The game service: lobby, steps, timeouts; it loads, applies the engine and saves."""
