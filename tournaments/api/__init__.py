"""The REST API under /api/: thin views over services and selectors."""
