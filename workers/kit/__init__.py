"""The bot authors' kit: the ``arbiter`` command (new, play, check, login, upload, status).

The local parts (new, play, check) need only the engines and the bot runtime;
login, upload and status talk to a server's HTTP API.  No Django.
"""
