"""Server-rendered pages for people: leaderboards, tournaments, bots and match replays.

Views here only adapt: reads come from ``tournaments.selectors`` and the
engines; nothing is written.
"""
