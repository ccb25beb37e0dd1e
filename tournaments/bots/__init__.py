"""Bots and their immutable versions (packages)."""
