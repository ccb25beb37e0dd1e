"""Forms of the pages that write: they only read the fields; the services check everything else."""

from __future__ import annotations

from typing import Any

from django import forms

from engines import Engine
from tournaments.bots.models import Bot
from tournaments.bots.services import BOT_NAME_RE
from tournaments.competitions.models import Tournament, TournamentSchedule
from tournaments.competitions.models.schedules import SCHEDULE_FORMATS
from tournaments.errors import ServiceError
from tournaments.matches.clocks import CLOCK_LIMITS_MS
from tournaments.matches.models import DEFAULT_GAME_MS, DEFAULT_MOVE_MS, DEFAULT_STARTUP_MS


def errors_into(form: forms.Form, exc: ServiceError) -> None:
    """Show a service's refusal on the form: under the fields it names, else above the form."""
    placed = False
    for name in exc.fields:
        if name in form.fields:
            form.add_error(name, exc.message)
            placed = True
    if not placed:
        form.add_error(None, exc.message)


class SignupForm(forms.Form):
    username = forms.CharField(max_length=150, widget=forms.TextInput(attrs={"autocomplete": "username"}))
    password = forms.CharField(max_length=128, widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}))


class TokenRevokeForm(forms.Form):
    key_start = forms.CharField(max_length=40)


class UploadForm(forms.Form):
    package = forms.FileField(help_text="A .py file, or a .zip / .tar.gz with main.py or bot.json.")
    notes = forms.CharField(required=False, max_length=10000, widget=forms.Textarea(attrs={"rows": 2}))


class BotCreateForm(UploadForm):
    game = forms.ChoiceField(choices=[])
    name = forms.RegexField(BOT_NAME_RE.pattern, max_length=64, help_text="1-64 letters, digits, '_', '.', '-'.")
    visibility = forms.ChoiceField(choices=Bot.Visibility.choices, initial=Bot.Visibility.PUBLIC)
    description = forms.CharField(required=False, max_length=10000, widget=forms.Textarea(attrs={"rows": 2}))

    field_order = ["game", "name", "package", "visibility", "description", "notes"]

    def __init__(self, *args: Any, games: list[tuple[str, str]], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["game"].choices = games  # type: ignore[attr-defined]


class BotSettingsForm(forms.Form):
    visibility = forms.ChoiceField(choices=Bot.Visibility.choices)
    description = forms.CharField(required=False, max_length=10000, widget=forms.Textarea(attrs={"rows": 2}))
    challenges_ask = forms.BooleanField(required=False)


def _option_field(option: Any) -> forms.Field:
    """A form field for one engine option, bounded as the engine bounds it."""
    label = option.name.replace("_", " ")
    if option.kind is bool:
        return forms.BooleanField(required=False, initial=option.default, label=label, help_text=option.description)
    if option.choices is not None:
        choices = [(str(c), str(c)) for c in option.choices]
        return forms.ChoiceField(
            choices=choices, initial=str(option.default), label=label, help_text=option.description
        )
    if option.kind is int:
        return forms.IntegerField(
            required=False,
            initial=option.default,
            min_value=option.minimum,
            max_value=option.maximum,
            label=label,
            help_text=option.description,
        )
    return forms.CharField(required=False, initial=option.default, label=label, help_text=option.description)


class TournamentForm(forms.Form):
    """A round robin, Swiss or knockout of one game: its seats and options come from the engine's own list."""

    name = forms.CharField(required=False, max_length=200)
    seats = forms.TypedChoiceField(coerce=int, choices=[])
    participants = forms.MultipleChoiceField(choices=[], widget=forms.CheckboxSelectMultiple)
    challenger = forms.TypedChoiceField(
        coerce=int, required=False, empty_value=None, choices=[],
        help_text="A gauntlet's one bot: it plays every participant ticked (its field), in pairs of games with "
        "the seats swapped.",
    )  # fmt: skip
    format = forms.ChoiceField(choices=Tournament.Format.choices, initial=Tournament.Format.SINGLE)
    games_per_pairing = forms.IntegerField(
        min_value=1, max_value=100, initial=2, help_text="Games each group plays per leg; a double round robin "
        "plays them twice, with the seats swapped; a knockout's pairing is a best of this many, deciders if level."
    )  # fmt: skip
    rounds = forms.IntegerField(
        required=False, min_value=0, max_value=1000, initial=0, help_text="Swiss only: rounds to play, at most half "
        "the field; 0 or empty: ceil(log2(bots))."
    )  # fmt: skip
    seeding = forms.ChoiceField(
        required=False,
        choices=Tournament.Seeding.choices,
        initial=Tournament.Seeding.RATING,
        help_text="Swiss and knockouts: seeds by rating in the tournament's pool, or a random draw at the start.",
    )
    move_ms = forms.IntegerField(
        min_value=1,
        max_value=CLOCK_LIMITS_MS["move_ms"],
        initial=DEFAULT_MOVE_MS,
        label="Time per move (ms)",
        help_text=f"1 to {CLOCK_LIMITS_MS['move_ms']} ms.",
    )
    game_ms = forms.IntegerField(
        min_value=1,
        max_value=CLOCK_LIMITS_MS["game_ms"],
        initial=DEFAULT_GAME_MS,
        label="Time per game (ms)",
        help_text=f"1 to {CLOCK_LIMITS_MS['game_ms']} ms.",
    )
    startup_ms = forms.IntegerField(
        min_value=1,
        max_value=CLOCK_LIMITS_MS["startup_ms"],
        initial=DEFAULT_STARTUP_MS,
        label="Start-up time (ms)",
        help_text=f"1 to {CLOCK_LIMITS_MS['startup_ms']} ms.",
    )
    rated = forms.BooleanField(required=False, initial=True)
    start = forms.BooleanField(required=False, initial=True, label="Start at once")

    def __init__(self, *args: Any, engine: Engine, bots: list[tuple[int, str]], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.engine = engine
        self.fields["seats"].choices = [(n, str(n)) for n in engine.seat_counts]  # type: ignore[attr-defined]
        self.fields["participants"].choices = [(str(i), label) for i, label in bots]  # type: ignore[attr-defined]
        self.fields["challenger"].choices = [("", "(none)"), *bots]  # type: ignore[attr-defined]
        self.option_names = []
        for option in engine.options:
            self.fields[f"option_{option.name}"] = _option_field(option)
            self.option_names.append(option.name)

    def options(self) -> dict[str, Any]:
        """The engine options as typed values (the engine validates them again); a blank one is its default."""
        out: dict[str, Any] = {}
        for option in self.engine.options:
            value = self.cleaned_data[f"option_{option.name}"]
            if value in (None, "") and option.kind is not bool:
                continue
            if option.choices is not None and option.kind is int:
                value = int(value)
            out[option.name] = value
        return out

    def option_fields(self) -> list[forms.BoundField]:
        """The engine's options, for the template."""
        return [self[f"option_{name}"] for name in self.option_names]

    def gauntlet_fields(self) -> list[forms.BoundField]:
        """The challenger, for the template."""
        return [self["challenger"]]

    def clock_fields(self) -> list[forms.BoundField]:
        """Format, games per pairing, rounds, seeding, the three clocks, rated and start, for the template."""
        names = [
            "format",
            "games_per_pairing",
            "rounds",
            "seeding",
            "move_ms",
            "game_ms",
            "startup_ms",
            "rated",
            "start",
        ]
        return [self[name] for name in names]


class VersionTestForm(forms.Form):
    """A version test of one of the user's bots: which versions, the hypotheses, the cap on games."""

    candidate = forms.TypedChoiceField(coerce=int, choices=[], help_text="The version under test.")
    baseline = forms.TypedChoiceField(coerce=int, choices=[], help_text="The version it is compared with.")
    elo0 = forms.FloatField(required=False, label="H0 (Elo)", help_text="Not better than this; empty: the default.")
    elo1 = forms.FloatField(
        required=False, label="H1 (Elo)", help_text="At least this much better; empty: the default."
    )
    max_games = forms.IntegerField(
        required=False, min_value=2, help_text="The most games before it stops undecided; empty: the default."
    )

    def __init__(self, *args: Any, numbers: list[int], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        choices = [(n, f"v{n}") for n in sorted(numbers, reverse=True)]
        self.fields["candidate"].choices = choices  # type: ignore[attr-defined]
        self.fields["baseline"].choices = choices  # type: ignore[attr-defined]
        if numbers and not self.is_bound:
            self.initial.setdefault("candidate", max(numbers))
            self.initial.setdefault("baseline", sorted(numbers)[-2] if len(numbers) > 1 else max(numbers))


class ScheduleForm(forms.Form):
    """A recurring round robin: its name, game, when it runs (daily, weekly or cron, UTC) and its format."""

    name = forms.CharField(max_length=180, help_text="Each edition is called by this name and its date.")
    game = forms.ChoiceField(choices=[])
    kind = forms.ChoiceField(choices=TournamentSchedule.Kind.choices, initial=TournamentSchedule.Kind.DAILY)
    at_time = forms.TimeField(required=False, label="Time (UTC)", help_text="Daily and weekly: HH:MM.")
    weekday = forms.TypedChoiceField(
        coerce=int,
        required=False,
        empty_value=None,
        choices=[("", "(weekly only)"), *TournamentSchedule.Weekday.choices],
    )
    cron = forms.CharField(
        required=False, max_length=120, help_text="Cron: minute hour day-of-month month day-of-week, UTC."
    )
    format = forms.ChoiceField(choices=SCHEDULE_FORMATS, initial=Tournament.Format.SINGLE)
    games_per_pairing = forms.IntegerField(min_value=1, max_value=100, initial=2)

    def __init__(self, *args: Any, games: list[tuple[str, str]], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["game"].choices = games  # type: ignore[attr-defined]


class ChallengeForm(forms.Form):
    """A challenge: one of your bots, the opponent's id (its page links here with it), how many games."""

    bot = forms.TypedChoiceField(coerce=int, choices=[], label="Your bot")
    opponent = forms.IntegerField(min_value=1, label="Opponent bot id", help_text="Any public bot of the same game.")
    games = forms.IntegerField(min_value=1, max_value=100, initial=2, help_text="Sides change every game.")

    def __init__(self, *args: Any, bots: list[tuple[int, str]], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["bot"].choices = bots  # type: ignore[attr-defined]
