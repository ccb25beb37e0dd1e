"""The bot runtime: everything between a match's spec and its record, and no Django.

Three rooms, each a package:

- ``workers.sandbox``: starting one bot in bubblewrap under its own uid and control
  group, measuring what it uses, reading how it ended, and killing all of it;
- ``workers.referee``: playing one match over the JSON-lines protocol, the clocks,
  and the local runner behind ``arbiter play``;
- ``workers.packages``: bot packages checked and unpacked, the worker's cache of
  them, and a version's server-side build.

At the top: ``match`` (the spec that goes in and the record that comes out),
``config`` (every environment variable), ``celery_app`` (the Celery app object,
the one module here that knows Django) and ``broker_files`` (the embedded broker's
transport).  The Celery task that calls :func:`workers.referee.play.play_match`
lives with the matches app and only adapts.
"""
