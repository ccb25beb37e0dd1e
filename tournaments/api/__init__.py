"""What every app's REST API shares: the error shape, pagination, the schema, throttles, parsers, filters.

A toolkit below the apps: it imports none of them (``tests/test_layers.py``).  Each
app's views live in its own ``api`` module; ``tournaments/api_urls.py`` maps them
all under /api/.
"""
