"""Engines by id.

Every module in :mod:`engines.games` that defines a module-level ``ENGINE``
is registered on first use, so adding a game is adding one module.
"""

from __future__ import annotations

import importlib
import pkgutil

from engines.base import Engine

_ENGINES: dict[str, Engine] = {}
_loaded = False


class UnknownEngineError(KeyError):
    """No engine is registered under that id."""

    def __str__(self) -> str:
        return f"unknown game {self.args[0]!r}; known: {', '.join(sorted(_ENGINES))}"


def register(engine: Engine) -> Engine:
    """Add ``engine`` to the registry (idempotent for the same object)."""
    existing = _ENGINES.get(engine.id)
    if existing is not None and existing is not engine:
        raise ValueError(f"two engines claim the id {engine.id!r}")
    _ENGINES[engine.id] = engine
    return engine


def _load() -> None:
    global _loaded
    if _loaded:
        return
    import engines.games as games

    for info in sorted(pkgutil.iter_modules(games.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"engines.games.{info.name}")
        engine = getattr(module, "ENGINE", None)
        if isinstance(engine, Engine):
            register(engine)
    _loaded = True


def get_engine(engine_id: str) -> Engine:
    """The engine registered as ``engine_id``; UnknownEngineError otherwise."""
    _load()
    try:
        return _ENGINES[engine_id]
    except KeyError:
        raise UnknownEngineError(engine_id) from None


def all_engines() -> list[Engine]:
    """Every registered engine, sorted by id."""
    _load()
    return [_ENGINES[k] for k in sorted(_ENGINES)]
