"""User accounts: sign-up and API tokens."""
