"""The games app: keeps the Game table in step with the engine registry."""
