"""Live process sets: real web servers, Celery workers, beat and Redis for the tests and benchmarks.

One implementation for every test that needs real processes and for ``bench/``:

- ``ProcessSet`` (processes.py): start, wait for, signal, stop and read the processes of one set;
  run ``manage.py`` against its database;
- ``Proc``, ``celery_argv``, ``free_port`` (process.py): one process, one Celery command line,
  one port (the one poll loop is tests/waiting.py);
- ``UidBand`` (uids.py): the set's own sandbox uids;
- services.py: throwaway PostgreSQL databases and private Redis queues;
- ``Api`` (api.py): a JSON client of the set's web server;
- fixtures.py: the pytest fixtures ``live_processes`` and ``live_processes_session``.

Nothing here imports Django: ``bench`` sets Django up itself, after choosing the environment.
"""

from tests.live.api import Api, greedy_zip, random_bot
from tests.live.process import PYTHON, ROOT, Proc, celery_argv, free_port
from tests.live.processes import ProcessSet

__all__ = [
    "PYTHON",
    "ROOT",
    "Api",
    "Proc",
    "ProcessSet",
    "celery_argv",
    "free_port",
    "greedy_zip",
    "random_bot",
]
