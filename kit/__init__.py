"""The bot authors' kit: the ``arbiter`` command (new, play, check, signup, login, upload,
tournament, challenge, status).

The local parts (new, play, check) need only the engines and the bot runtime;
signup, login, upload, tournament, challenge and status talk to a
server's HTTP API.  No Django.

The reference bots (random, greedy, search) live here, in ``bots/``, shipped with the
installed package: ``arbiter check`` plays against them wherever the kit is installed,
and the demo, the tests and the benchmarks take them from the same place.
"""

from pathlib import Path

REFERENCE_BOTS = Path(__file__).resolve().parent / "bots"
