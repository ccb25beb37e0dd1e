"""Account pages: sign up, and the API token (create, list, revoke).

Log-in, log-out and the password change are Django's own views (see urls.py);
sign-up and tokens go through the same services as the API.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from tournaments.accounts.selectors import token_list
from tournaments.accounts.services import token_create, token_revoke, user_create
from tournaments.errors import ServiceError
from tournaments.web.forms import SignupForm, TokenRevokeForm, errors_into

# How much of a token's key the list shows: enough to tell tokens apart, too little to use one.
KEY_SHOWN = 8


def signup(request: HttpRequest) -> HttpResponse:
    """A new account, signed in at once; the API token is on the tokens page."""
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            user, _ = user_create(username=form.cleaned_data["username"], password=form.cleaned_data["password"])
        except ServiceError as exc:
            errors_into(form, exc)
        else:
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            messages.success(request, f"Welcome, {user.username}. Upload a bot to start playing.")
            return redirect("web-my-bots")
    return render(request, "web/signup.html", {"form": form}, status=400 if form.errors else 200)


@login_required
def tokens(request: HttpRequest) -> HttpResponse:
    """The user's API tokens: a new key is shown once, right after it is made."""
    rows = [{"prefix": t.prefix[:KEY_SHOWN], "created": t.created_at} for t in token_list(user=request.user)]
    new_key = request.session.pop("web_new_token", None)
    return render(request, "web/tokens.html", {"tokens": rows, "new_key": new_key})


@login_required
@require_POST
def token_new(request: HttpRequest) -> HttpResponse:
    """Make a new token and show it once (only its hash is kept)."""
    _, key = token_create(user=request.user)
    request.session["web_new_token"] = key
    messages.success(request, "A new token was made; earlier ones work until you revoke them or they expire.")
    return redirect("web-tokens")


@login_required
@require_POST
def token_delete(request: HttpRequest) -> HttpResponse:
    """Revoke one token, named by the start of its key."""
    form = TokenRevokeForm(request.POST)
    if form.is_valid() and token_revoke(user=request.user, key_prefix=form.cleaned_data["key_start"]):
        messages.success(request, "The token was revoked; it stops working at once.")
    else:
        messages.error(request, "No such token.")
    return redirect("web-tokens")
