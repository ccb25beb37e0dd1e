"""What accounts keep beside Django's users: the username's lookalike key, hashed API tokens and
the first answer to each idempotent request."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class UsernameClaim(models.Model):
    """One user's claim on a username skeleton (``usernames.username_skeleton``): unique, so two
    accounts can never have names a reader would mistake for each other."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="username_claim")
    skeleton = models.CharField(max_length=300, unique=True)

    def __str__(self) -> str:
        return self.skeleton


class ApiToken(models.Model):
    """An API token, kept as the SHA-256 of its key: a copy of the database holds no working token.

    The key itself is shown once, when the token is issued.  ``prefix`` (its first characters)
    lets a user or staff tell tokens apart without the key.
    """

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    digest = models.CharField(max_length=64, unique=True)
    prefix = models.CharField(max_length=8)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField(null=True, blank=True, help_text="Empty: until revoked.")

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.user})"


class IdempotentRequest(models.Model):
    """A POST sent with an ``Idempotency-Key`` header, and the answer it got (tournaments/accounts/idempotency.py)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=200)
    path = models.CharField(max_length=500)
    status = models.PositiveSmallIntegerField()
    body = models.JSONField(null=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "key"], name="idempotent_request_user_key")]

    def __str__(self) -> str:
        return f"{self.user_id}:{self.key}"
