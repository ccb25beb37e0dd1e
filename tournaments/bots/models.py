"""Bots and their versions: what users upload.

A version is an immutable package; retiring it only records that its owner
no longer wants it picked as the bot's current version.  Versions are
history (matches and ratings point at them), so foreign keys into them use
PROTECT.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.urls import reverse


# Out here, not nested in the model, so that its Meta can name the members (a class nested in a
# class sees none of that class's names); ``Bot.Visibility`` is this class.
class BotVisibility(models.TextChoices):
    PUBLIC = "public", "Public"
    PRIVATE = "private", "Private"


class Bot(models.Model):
    Visibility = BotVisibility

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="bots")
    game = models.ForeignKey("games.Game", on_delete=models.PROTECT, related_name="bots")
    name = models.CharField(max_length=64)
    description = models.TextField(blank=True)
    visibility = models.CharField(max_length=10, choices=Visibility.choices, default=Visibility.PUBLIC)
    active = models.BooleanField(default=True)
    # Another user's challenge to this bot waits for the owner's yes (docs/web.md); else it plays at once.
    challenges_ask = models.BooleanField(default=False, help_text="ask the owner to accept each challenge")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game_id", "name", "id"]
        constraints = [
            models.UniqueConstraint(fields=["owner", "name", "game"], name="bot_unique_owner_name_game"),
            models.CheckConstraint(condition=Q(visibility__in=BotVisibility.values), name="bot_visibility_valid"),
            models.CheckConstraint(condition=~Q(name=""), name="bot_name_not_empty"),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.game_id})"

    def get_absolute_url(self) -> str:
        """The bot's public page."""
        return reverse("web-bot", args=[self.pk])


class BotVersion(models.Model):
    """An uploaded package.  Never changed after creation (a build's outcome lives in ``BotBuild``)."""

    bot = models.ForeignKey(Bot, on_delete=models.PROTECT, related_name="versions")
    number = models.PositiveIntegerField()
    package = models.BinaryField(editable=False)
    filename = models.CharField(max_length=255)
    checksum = models.CharField(max_length=64, help_text="sha256 of the package bytes")
    size = models.PositiveIntegerField()
    kind = models.CharField(max_length=40, blank=True)
    command = models.JSONField(default=list)
    unpacked_bytes = models.PositiveBigIntegerField(default=0)
    notes = models.TextField(blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["bot_id", "number"]
        constraints = [
            models.UniqueConstraint(fields=["bot", "number"], name="botversion_unique_number"),
            models.CheckConstraint(condition=Q(number__gte=1), name="botversion_number_positive"),
            models.CheckConstraint(condition=Q(size__gt=0), name="botversion_size_positive"),
        ]
        # The leaderboard's "no newer version" anti-join reads (bot, number, id) of every
        # version; covering them lets PostgreSQL skip the heap rows (packages sit inline).
        # SQLite builds the index without the covered column (hence models.W040 is silenced).
        indexes = [models.Index(fields=["bot", "number"], include=["id"], name="botversion_bot_number_cover")]

    def __str__(self) -> str:
        return f"{self.bot.name} v{self.number}"


class BotVersionRetirement(models.Model):
    """Marks a version retired; the version row itself stays immutable."""

    bot_version = models.OneToOneField(
        BotVersion, on_delete=models.PROTECT, related_name="retirement", primary_key=True
    )
    retired_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    retired_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"version {self.bot_version_id} retired"


# Out here, not nested in the model, so that its Meta can name the members (a class nested in a
# class sees none of that class's names); ``BotBuild.Status`` is this class.
class BuildStatus(models.TextChoices):
    BUILDING = "building", "Building"
    READY = "ready", "Ready"
    FAILED = "failed", "Failed"


class BotBuild(models.Model):
    """The service's build of a version whose bot.json names a ``build`` (workers/packages/build.py).

    A version with no row needs no build.  BUILDING until a worker's build ends it:
    READY with the built archive every worker unpacks for the version's matches, or
    FAILED with the build's last output lines.  ``attempt`` counts claims: a claim
    holds the build until ``lease_until``, after which the sweeper sends it again.
    """

    Status = BuildStatus

    version = models.OneToOneField(BotVersion, on_delete=models.PROTECT, related_name="build", primary_key=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.BUILDING)
    command = models.JSONField(default=list)
    log = models.TextField(blank=True, help_text="the build's last output lines, or why it failed")
    archive = models.BinaryField(editable=False, default=b"")
    checksum = models.CharField(max_length=64, blank=True, help_text="sha256 of the built archive")
    attempt = models.PositiveIntegerField(default=0)
    worker = models.CharField(max_length=200, blank=True)
    lease_until = models.DateTimeField(null=True, blank=True)
    created = models.DateTimeField(auto_now_add=True)
    finished = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(status__in=BuildStatus.values), name="botbuild_status_valid"),
            models.CheckConstraint(
                condition=~Q(status=BuildStatus.READY) | ~Q(checksum=""), name="botbuild_ready_has_archive"
            ),
        ]
        indexes = [models.Index(fields=["status", "lease_until"], name="botbuild_status_lease")]

    def __str__(self) -> str:
        return f"build of version {self.version_id}: {self.status}"
