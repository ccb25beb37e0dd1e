"""Matches: a match's life from queued to recorded."""
