"""Redis storage: whole-game records written compare-and-set, outboxes and deadlines."""
