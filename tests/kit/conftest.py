"""The kit's tests share the referee tests' sandbox fixtures (a private runtime dir and uid range)."""

from tests.referee.conftest import limits, runtime  # noqa: F401 - fixtures
