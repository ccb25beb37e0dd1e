"""Every write to Arbiter's models: one function per use case, ``<entity>_<verb>``."""
