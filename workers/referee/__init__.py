"""The referee: one match played between sandboxed bots over the JSON-lines protocol.

``play`` runs a match from start to record, ``conversation`` talks to the bots
over the pipes that ``pipes`` serves, ``clock`` charges each bot only for its own
time, ``text`` makes bot text safe to keep, and ``local`` plays bots on this
machine without the service (``arbiter play``).
"""
