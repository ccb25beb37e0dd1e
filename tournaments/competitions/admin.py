"""Admin of competitions: tournaments (with standings and actions), schedules, ladders, challenges."""

from __future__ import annotations

from typing import Any, cast

from django.contrib import admin, messages
from django.contrib.auth.models import User
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.html import format_html
from django.utils.safestring import SafeString

from tournaments.admin_kit import HistoryAdmin, PublicPageMixin, ReadOnlyInline, ServiceCheckedForm, html_table
from tournaments.competitions.models import (
    Challenge,
    ChallengeMatch,
    Ladder,
    Participant,
    Tournament,
    TournamentSchedule,
)
from tournaments.competitions.selectors.standings import (
    tournament_crosstable,
    tournament_progress,
    tournament_standings,
)
from tournaments.competitions.selectors.tournaments import tournaments_count_errored, tournaments_filter_errored
from tournaments.competitions.services.ladders import ladder_clean, ladder_save
from tournaments.competitions.services.schedules import schedule_clean, schedule_save
from tournaments.competitions.services.tournaments import tournament_cancel, tournament_priority_set, tournament_start
from tournaments.errors import ServiceError
from tournaments.matches.record import matches_requeue_errored


class ParticipantInline(ReadOnlyInline):
    model = Participant
    readonly_fields = (
        "number",
        "bot_version",
    )
    fields = readonly_fields

    def get_queryset(self, request: HttpRequest) -> Any:
        """Each row names its bot and version: fetch them with the rows, not one query per row."""
        return super().get_queryset(request).select_related("bot_version__bot")


class WhenFilter(admin.SimpleListFilter):
    """Upcoming (a draft waiting for its start time) and recurring (created by a schedule) tournaments."""

    title = "when"
    parameter_name = "when"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("upcoming", "Upcoming"), ("recurring", "Recurring editions"), ("by_hand", "Started by hand")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Tournament]) -> QuerySet[Tournament]:
        if self.value() == "upcoming":
            return queryset.filter(status=Tournament.Status.DRAFT, start_at__isnull=False).order_by("start_at")
        if self.value() == "recurring":
            return queryset.filter(schedule__isnull=False)
        if self.value() == "by_hand":
            return queryset.filter(start_at__isnull=True, schedule__isnull=True)
        return queryset


class ErroredFilter(admin.SimpleListFilter):
    """Tournaments with errored matches (the service failed them), to find those worth a re-queue."""

    title = "errored matches"
    parameter_name = "errored"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("yes", "With errored matches"), ("no", "Without")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Tournament]) -> QuerySet[Tournament]:
        if self.value() in ("yes", "no"):
            return tournaments_filter_errored(tournaments=queryset, errored=self.value() == "yes")
        return queryset


@admin.register(Tournament)
class TournamentAdmin(PublicPageMixin, admin.ModelAdmin):
    list_display = [
        "id", "name", "game", "owner", "status", "errored", "format", "seats", "rated", "created", "finished",
        "start_at", "schedule",
    ]  # fmt: skip
    list_filter = [WhenFilter, ErroredFilter, "status", "game", "format", "rated"]
    search_fields = ["name", "owner__username"]
    list_select_related = ["game", "owner", "schedule"]
    inlines = [ParticipantInline]
    actions = ["start_tournaments", "cancel_tournaments", "requeue_errored"]
    readonly_fields = [
        "game", "owner", "options", "seats", "format", "games_per_pairing", "move_ms", "game_ms",
        "startup_ms", "rated", "rating_pool", "status", "created", "started", "finished",
        "progress", "standings", "crosstable", "start_at", "all_active", "schedule", "public_link",
        "challenger",
    ]  # fmt: skip
    fields = ["name", "priority", *readonly_fields]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Tournament]:
        """Each row with its count of errored matches, counted in the list's one query."""
        return tournaments_count_errored(tournaments=super().get_queryset(request))

    @admin.display(description="Errored", ordering="errored_matches")
    def errored(self, obj: Tournament) -> SafeString | int:
        """The count; when there are some, a link to the tournament's page, where staff re-queue them."""
        count: int = getattr(obj, "errored_matches", 0)
        if not count:
            return 0
        return format_html(
            '<a href="{}#requeue-errored" title="Re-queue them on its page">{}</a>', obj.get_absolute_url(), count
        )

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # tournaments are created through the API (participants need validating)

    def save_model(self, request: HttpRequest, obj: Tournament, form: Any, change: bool) -> None:
        # Its queued matches move with it (matches/queue.py); the name is all else that may change here.
        priority = obj.priority
        obj.priority = Tournament.objects.values_list("priority", flat=True).get(pk=obj.pk)
        super().save_model(request, obj, form, change)
        if priority != obj.priority:
            try:
                tournament_priority_set(tournament=obj, user=request.user, priority=priority)
            except ServiceError as exc:
                self.message_user(request, exc.message, messages.ERROR)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(description="Progress")
    def progress(self, obj: Tournament) -> str:
        counts = tournament_progress(tournament=obj)
        return ", ".join(f"{k}: {v}" for k, v in counts.items())

    @admin.display(description="Standings")
    def standings(self, obj: Tournament) -> SafeString:
        # The admin table shows no performance columns: skip the fit.
        rows = tournament_standings(tournament=obj, performance=False)
        return html_table(
            ["#", "Bot", "Games", "W", "D", "L", "Points", "Score %", "S-B", "Forfeits", "Elo"],
            [
                [
                    r["place"], f"{r['bot_name']} v{r['version']}", r["games"], r["wins"], r["draws"], r["losses"],
                    r["points"], r["score_percent"], r["sonneborn_berger"],
                    ", ".join(f"{k}: {v}" for k, v in r["forfeits"].items()) or "-",
                    r["elo"] if r["elo"] is not None else "-",
                ]
                for r in rows
            ],
        )  # fmt: skip

    @admin.display(description="Crosstable")
    def crosstable(self, obj: Tournament) -> SafeString:
        table = tournament_crosstable(tournament=obj)
        names = [f"{p['bot_name']} v{p['version']}" for p in table["participants"]]
        return html_table(
            ["", *names],
            [
                [name] + ["x" if c is None else f"{c['points']:g}/{c['games']}" for c in row["cells"]]
                for name, row in zip(names, table["rows"], strict=True)
            ],
        )

    def _each(self, request: HttpRequest, queryset: QuerySet[Tournament], action: Any, verb: str) -> None:
        done = 0
        for tournament in queryset:
            try:
                action(tournament=tournament, user=request.user)
                done += 1
            except ServiceError as exc:
                self.message_user(request, f"{tournament}: {exc.message}", messages.WARNING)
        self.message_user(request, f"{verb} {done} tournament(s).")

    @admin.action(description="Start selected draft tournaments")
    def start_tournaments(self, request: HttpRequest, queryset: QuerySet[Tournament]) -> None:
        self._each(request, queryset, tournament_start, "Started")

    @admin.action(description="Cancel selected tournaments")
    def cancel_tournaments(self, request: HttpRequest, queryset: QuerySet[Tournament]) -> None:
        self._each(request, queryset, tournament_cancel, "Cancelled")

    @admin.action(description="Re-queue errored matches of selected tournaments")
    def requeue_errored(self, request: HttpRequest, queryset: QuerySet[Tournament]) -> None:
        total = sum(matches_requeue_errored(tournament_id=t.pk) for t in queryset)
        self.message_user(request, f"Re-queued {total} errored match(es).")


class TournamentScheduleForm(ServiceCheckedForm):
    class Meta:
        model = TournamentSchedule
        fields = [
            "name", "game", "options", "seats", "format", "games_per_pairing", "move_ms", "game_ms",
            "startup_ms", "rated", "kind", "at_time", "weekday", "cron", "enabled",
        ]  # fmt: skip

    def service_check(self) -> None:
        schedule_clean(schedule=self.instance)


@admin.register(TournamentSchedule)
class TournamentScheduleAdmin(admin.ModelAdmin):
    form = TournamentScheduleForm
    list_display = ["name", "game", "kind", "at_time", "weekday", "cron", "enabled", "next_run", "last_run", "owner"]
    list_filter = ["enabled", "kind", "game"]
    search_fields = ["name"]
    list_select_related = ["game", "owner"]
    readonly_fields = ["owner", "next_run", "last_run", "created", "recent_editions"]

    def get_changeform_initial_data(self, request: HttpRequest) -> dict[str, Any]:
        return {"seats": 2, "at_time": "03:00"}

    def save_model(self, request: HttpRequest, obj: TournamentSchedule, form: Any, change: bool) -> None:
        if not change:
            obj.owner = cast(User, request.user)  # only staff reach the admin
        schedule_save(schedule=obj)

    @admin.display(description="Recent editions")
    def recent_editions(self, obj: TournamentSchedule) -> SafeString:
        rows = obj.editions.order_by("-id")[:10] if obj.pk else []
        return html_table(["Tournament", "Status", "Started"], [[t.name, t.status, t.started or "-"] for t in rows])


class LadderForm(ServiceCheckedForm):
    class Meta:
        model = Ladder
        fields = ["game", "options", "seats", "move_ms", "game_ms", "startup_ms", "queued_target", "enabled"]

    def service_check(self) -> None:
        ladder_clean(ladder=self.instance)


@admin.register(Ladder)
class LadderAdmin(admin.ModelAdmin):
    form = LadderForm
    list_display = ["__str__", "game", "pool", "seats", "queued_target", "enabled", "topped_up_at"]
    list_filter = ["enabled", "game"]
    readonly_fields = ["pool", "topped_up_at", "created"]

    def save_model(self, request: HttpRequest, obj: Ladder, form: Any, change: bool) -> None:
        ladder_save(ladder=obj)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # disable it instead: its matches and ratings stay


class ChallengeMatchInline(ReadOnlyInline):
    model = ChallengeMatch
    readonly_fields = (
        "number",
        "match",
    )
    fields = readonly_fields


@admin.register(Challenge)
class ChallengeAdmin(HistoryAdmin):
    list_display = ["id", "challenger", "game", "bot_version", "opponent_version", "games", "created"]
    list_filter = ["game"]
    list_select_related = ["challenger", "bot_version__bot", "opponent_version__bot"]
    inlines = [ChallengeMatchInline]
