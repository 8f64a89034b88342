"""The contract floor: the vocabulary the rooms above the engine share (button data, the
service's outcomes, the message plan, the settings table, a step's facts, the languages).
It imports only the engine and itself."""
