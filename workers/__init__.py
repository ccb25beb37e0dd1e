"""Running bots: the referee, the sandbox, bot packages and the local ``play`` command.

Nothing in this package imports Django; the Celery task that wraps
:func:`workers.referee.play_match` lives beside it and adapts.
"""
