"""Every non-trivial read of Arbiter's models."""
