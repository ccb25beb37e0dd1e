"""The sandbox: one bot started in bubblewrap, held by the kernel, measured, and ended.

``start`` is the entry (``start_bot``, the sandbox's errors, what the host allows);
``command`` builds bubblewrap's command line, ``launcher`` hands a bot to a waiting
launcher and ``warm`` keeps launchers started ahead of time.  ``slots`` (the bots'
uids), ``group`` and ``cgroups`` (each slot's control group), ``mounts``, ``view``, ``procmask``,
``seccomp``, ``limits`` and ``cpus`` are the parts of the cage; ``process`` is a started
bot, ``deaths`` reads how it ended, ``strays`` reaps what a killed worker left, and
``runtimes``, ``containers`` and ``selfcheck`` say what this worker can run.
"""
