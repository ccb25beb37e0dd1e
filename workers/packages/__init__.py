"""Bot packages: checked and unpacked (``archive``), kept in the worker's cache
(``cache``, bounded by ``trim``), and built on the worker in the sandbox (``build``).
"""
