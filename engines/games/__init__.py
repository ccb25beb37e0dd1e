"""One module per game; each defines ``ENGINE`` and is found by the registry."""
