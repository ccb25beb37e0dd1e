"""The admin: every model browsable; history read-only; actions call services."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from tournaments.models import Bot, BotVersion, Game, Match, MatchSeat, Participant, Rating, RatingChange, Tournament
from tournaments.selectors.standings import tournament_crosstable, tournament_progress, tournament_standings
from tournaments.services.errors import ServiceError
from tournaments.services.matches import matches_requeue_errored
from tournaments.services.tournaments import tournament_cancel, tournament_start


class ReadOnlyInline(admin.TabularInline):
    extra = 0
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class HistoryAdmin(admin.ModelAdmin):
    """History is written by services only: viewable, never edited or deleted here."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Game)
class GameAdmin(HistoryAdmin):
    list_display = ["id", "name", "version", "seat_counts", "available", "synced_at"]
    list_filter = ["available"]
    search_fields = ["id", "name"]


class BotVersionInline(ReadOnlyInline):
    model = BotVersion
    fields = ["number", "filename", "size", "checksum", "kind", "command", "created"]
    readonly_fields = fields


@admin.register(Bot)
class BotAdmin(admin.ModelAdmin):
    list_display = ["name", "game", "owner", "visibility", "active", "created"]
    list_filter = ["game", "visibility", "active"]
    search_fields = ["name", "owner__username"]
    list_select_related = ["game", "owner"]
    readonly_fields = ["owner", "game", "name", "created"]
    fields = ["name", "game", "owner", "visibility", "active", "description", "created"]
    inlines = [BotVersionInline]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # bots come with a package: upload through the API

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(BotVersion)
class BotVersionAdmin(HistoryAdmin):
    list_display = ["__str__", "bot", "number", "size", "kind", "checksum", "created"]
    list_filter = ["bot__game", "kind"]
    search_fields = ["bot__name", "checksum", "filename"]
    exclude = ["package"]
    list_select_related = ["bot__game"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[BotVersion]:
        return super().get_queryset(request).defer("package")


class ParticipantInline(ReadOnlyInline):
    model = Participant
    fields = ["number", "bot_version"]
    readonly_fields = fields


def _table(headers: list[str], rows: list[list[Any]]) -> SafeString:
    head = format_html_join("", "<th>{}</th>", ((h,) for h in headers))
    body = format_html_join(
        "", "<tr>{}</tr>", ((format_html_join("", "<td>{}</td>", ((c,) for c in row)),) for row in rows)
    )
    return format_html('<table class="arbiter-table"><thead><tr>{}</tr></thead><tbody>{}</tbody></table>', head, body)


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    list_display = ["id", "name", "game", "owner", "status", "format", "seats", "rated", "created", "finished"]
    list_filter = ["status", "game", "format", "rated"]
    search_fields = ["name", "owner__username"]
    list_select_related = ["game", "owner"]
    inlines = [ParticipantInline]
    actions = ["start_tournaments", "cancel_tournaments", "requeue_errored"]
    readonly_fields = [
        "game", "owner", "options", "seats", "format", "games_per_pairing", "move_ms", "game_ms",
        "startup_ms", "rated", "rating_pool", "status", "created", "started", "finished",
        "progress", "standings", "crosstable",
    ]  # fmt: skip
    fields = ["name", *readonly_fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # tournaments are created through the API (participants need validating)

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
        return _table(
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
        return _table(
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
        total = sum(matches_requeue_errored(tournament=t) for t in queryset)
        self.message_user(request, f"Re-queued {total} errored match(es).")


class MatchSeatInline(ReadOnlyInline):
    model = MatchSeat
    fields = ["seat", "team", "bot_version", "rank", "score", "status", "cpu_ms", "peak_rss_kb", "stderr"]
    readonly_fields = fields


class RatingChangeInline(ReadOnlyInline):
    model = RatingChange
    fields = ["rating", "before", "after", "delta", "k"]
    readonly_fields = fields


@admin.register(Match)
class MatchAdmin(HistoryAdmin):
    list_display = ["id", "game", "tournament", "index", "status", "attempt", "worker", "result_reason", "finished_at"]
    list_filter = ["status", "game", "rated"]
    search_fields = ["id", "tournament__name", "error_reason", "result_reason"]
    list_select_related = ["tournament", "game"]
    inlines = [MatchSeatInline, RatingChangeInline]
    actions = ["requeue_errored"]
    raw_id_fields = ["tournament"]

    @admin.action(description="Re-queue selected errored matches")
    def requeue_errored(self, request: HttpRequest, queryset: QuerySet[Match]) -> None:
        count = matches_requeue_errored(match_ids=list(queryset.values_list("id", flat=True)))
        self.message_user(request, f"Re-queued {count} errored match(es).")


@admin.register(Rating)
class RatingAdmin(HistoryAdmin):
    list_display = ["bot_version", "pool", "elo", "games", "wins", "draws", "losses", "updated"]
    list_filter = ["pool"]
    search_fields = ["bot_version__bot__name", "pool"]
    list_select_related = ["bot_version__bot"]
    inlines = [RatingChangeInline]


@admin.register(RatingChange)
class RatingChangeAdmin(HistoryAdmin):
    list_display = ["id", "rating", "match", "before", "after", "delta", "k", "created"]
    list_filter = ["rating__pool"]
    search_fields = ["rating__bot_version__bot__name"]
    list_select_related = ["rating__bot_version__bot"]


# -- pages (tournaments/web/): "View on site" and a link to each public page, the bot's rating chart --
from tournaments.web.admin_extras import bot_rating_chart, public_link, public_url  # noqa: E402

for _model_admin in (TournamentAdmin, BotAdmin, MatchAdmin):
    _model_admin.view_on_site = staticmethod(public_url)
    _model_admin.public_link = public_link
    _model_admin.readonly_fields = [*_model_admin.readonly_fields, "public_link"]
    if _model_admin.fields is not None:
        _model_admin.fields = [*_model_admin.fields, "public_link"]
BotAdmin.rating_chart = bot_rating_chart
BotAdmin.readonly_fields = [*BotAdmin.readonly_fields, "rating_chart"]
BotAdmin.fields = [*BotAdmin.fields, "rating_chart"]
# -- end pages --


# -- scheduled and recurring tournaments, ladders (docs/organisers.md) --
from django import forms  # noqa: E402
from django.utils import timezone  # noqa: E402

from tournaments.models import Ladder, TournamentSchedule  # noqa: E402
from tournaments.services.ladder import ladder_clean, ladder_save  # noqa: E402
from tournaments.services.schedules import schedule_clean, schedule_save  # noqa: E402


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


TournamentAdmin.list_display = [*TournamentAdmin.list_display, "start_at", "schedule"]
TournamentAdmin.list_filter = [WhenFilter, *TournamentAdmin.list_filter]
TournamentAdmin.list_select_related = [*TournamentAdmin.list_select_related, "schedule"]
TournamentAdmin.readonly_fields = [*TournamentAdmin.readonly_fields, "start_at", "all_active", "schedule"]
TournamentAdmin.fields = [*TournamentAdmin.fields, "start_at", "all_active", "schedule"]
MatchAdmin.list_display = [*MatchAdmin.list_display, "kind"]
MatchAdmin.list_filter = ["kind", *MatchAdmin.list_filter]


def _service_errors(form: forms.ModelForm, exc: ServiceError) -> None:
    """Show a service's refusal on the form, next to the field it names when the form has it."""
    named = [f for f in exc.fields if f in form.fields]
    form.add_error(named[0] if named else None, exc.message)


class TournamentScheduleForm(forms.ModelForm):
    class Meta:
        model = TournamentSchedule
        fields = [
            "name", "game", "options", "seats", "format", "games_per_pairing", "move_ms", "game_ms",
            "startup_ms", "rated", "kind", "at_time", "weekday", "cron", "enabled",
        ]  # fmt: skip

    def _post_clean(self) -> None:
        super()._post_clean()
        if not self.errors:
            try:
                schedule_clean(schedule=self.instance)
            except ServiceError as exc:
                _service_errors(self, exc)


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
            obj.owner = request.user
        schedule_save(schedule=obj, now=timezone.now())

    @admin.display(description="Recent editions")
    def recent_editions(self, obj: TournamentSchedule) -> SafeString:
        rows = obj.editions.order_by("-id")[:10] if obj.pk else []
        return _table(["Tournament", "Status", "Started"], [[t.name, t.status, t.started or "-"] for t in rows])


class LadderForm(forms.ModelForm):
    class Meta:
        model = Ladder
        fields = ["game", "options", "seats", "move_ms", "game_ms", "startup_ms", "queued_target", "enabled"]

    def _post_clean(self) -> None:
        super()._post_clean()
        if not self.errors:
            try:
                ladder_clean(ladder=self.instance)
            except ServiceError as exc:
                _service_errors(self, exc)


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


# -- end scheduled and recurring tournaments, ladders --

# -- challenges and retired versions (public API): history, read-only here --
from tournaments.models_challenges import BotVersionRetirement, Challenge, ChallengeMatch  # noqa: E402


class ChallengeMatchInline(ReadOnlyInline):
    model = ChallengeMatch
    fields = ["number", "match"]
    readonly_fields = fields


@admin.register(Challenge)
class ChallengeAdmin(HistoryAdmin):
    list_display = ["id", "challenger", "game", "bot_version", "opponent_version", "games", "created"]
    list_filter = ["game"]
    list_select_related = ["challenger", "bot_version__bot", "opponent_version__bot"]
    inlines = [ChallengeMatchInline]


@admin.register(BotVersionRetirement)
class BotVersionRetirementAdmin(HistoryAdmin):
    list_display = ["bot_version", "retired_by", "retired_at"]
    list_select_related = ["bot_version__bot", "retired_by"]


# -- end challenges and retired versions --
