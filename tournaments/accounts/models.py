"""What accounts keep besides Django's users: the first answer to each idempotent request."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class IdempotentRequest(models.Model):
    """A POST sent with an ``Idempotency-Key`` header, and the answer it got (tournaments/api/idempotency.py)."""

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
