"""On its first turn lowers its own CPU-time limit to the next whole second it reaches, then spins.

Were the call allowed, the kernel would SIGKILL the bot within a second: a death that looks like
something outside the sandbox killed it.  Reports ``LIMIT:set`` or ``LIMIT:refused <error>``.
"""

import resource
import time

from arbiter_common import play, report


def turn(msg):
    used = int(time.process_time()) + 1
    try:
        resource.setrlimit(resource.RLIMIT_CPU, (used, used))
        report("LIMIT", "set")
    except (OSError, ValueError) as exc:
        report("LIMIT", f"refused {exc}")
    while True:
        pass


play(on_turn=turn)
