"""Competitions: round robins, schedules, ladders, challenges and version tests."""
