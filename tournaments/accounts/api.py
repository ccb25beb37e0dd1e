"""Sign-up, tokens (issue and revoke) and the current user."""

from __future__ import annotations

from django.contrib.auth.models import User
from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import exceptions, permissions, serializers, status
from rest_framework.authtoken.serializers import AuthTokenSerializer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from tournaments.accounts.models import ApiToken
from tournaments.accounts.services import token_create, token_revoke, user_create
from tournaments.accounts.throttles import credentials_throttle
from tournaments.accounts.usernames import username_skeleton
from tournaments.api.common import signed_in
from tournaments.api.schema import error
from tournaments.api.throttles import client_address


class TokenOutputSerializer(serializers.Serializer):
    token = serializers.CharField(help_text="Send it as `Authorization: Token <token>`.")
    expires_at = serializers.DateTimeField(allow_null=True, help_text="When it stops working (null: never).")


class TokenInputSerializer(serializers.Serializer):
    username = serializers.CharField()
    password = serializers.CharField(write_only=True)


class UserOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()
    is_staff = serializers.BooleanField()


def _throttle(request: Request, *, signup: bool = False) -> None:
    """Count a credentials request against the address's and the username's budgets (429 when over).

    A request that carries a valid token of the username it names has proved control of the
    account another way: a lock on that username (someone else's guessing) does not stop it.
    """
    username = str(request.data.get("username", "") if hasattr(request.data, "get") else "")[:150]
    user = request.user
    proven = (
        isinstance(request.auth, ApiToken)
        and isinstance(user, User)
        and username_skeleton(user.get_username()) == username_skeleton(username)
    )
    wait = credentials_throttle(address=client_address(request), username=username, signup=signup, proven=proven)
    if wait is not None:
        raise exceptions.Throttled(wait)


class TokenApi(APIView):
    """POST username and password to get a new token; DELETE revokes the one you use."""

    def get_permissions(self) -> list[permissions.BasePermission]:
        if self.request.method == "DELETE":
            return [permissions.IsAuthenticated()]
        return [permissions.AllowAny()]

    @extend_schema(
        summary="Get an API token",
        description=(
            "Issues a new token (each call makes another; the server keeps only a hash, so a lost key "
            "cannot be shown again). Tokens expire after ARBITER_TOKEN_TTL_DAYS days. Login attempts are "
            "throttled per address and per username (429); a username locked by others' tries still "
            "leaves each address a few of its own, and a request that carries a valid token of that "
            "username is not counted against it. A password change revokes every token of its user."
        ),
        request=TokenInputSerializer,
        responses={
            200: TokenOutputSerializer,
            400: error("Wrong username or password."),
            429: error("Too many tries."),
        },
        examples=[OpenApiExample("credentials", value={"username": "ada", "password": "a-long-password"})],
    )
    def post(self, request: Request) -> Response:
        _throttle(request)
        data = AuthTokenSerializer(data=request.data, context={"request": request})
        data.is_valid(raise_exception=True)
        token, key = token_create(user=data.validated_data["user"])
        return Response(TokenOutputSerializer({"token": key, "expires_at": token.expires_at}).data)

    @extend_schema(
        summary="Revoke your API token",
        description="Deletes the token used (every token of yours, with session auth); it stops working at once.",
        request=None,
        responses={204: None},
    )
    def delete(self, request: Request) -> Response:
        token = request.auth if isinstance(request.auth, ApiToken) else None
        token_revoke(user=signed_in(request), token=token)
        return Response(status=status.HTTP_204_NO_CONTENT)


class UserCreateApi(APIView):
    permission_classes = [permissions.AllowAny]

    class InputSerializer(serializers.Serializer):
        username = serializers.RegexField(r"^[\w.@+-]{1,150}$", max_length=150)
        password = serializers.CharField(max_length=128, write_only=True)

    class OutputSerializer(serializers.Serializer):
        id = serializers.IntegerField()
        username = serializers.CharField()
        token = serializers.CharField()

    @extend_schema(
        summary="Sign up",
        description=(
            "Passwords go through the server's password checks (length, common passwords, not all digits, "
            "not like the username). A username that differs from a taken one only in case, width or "
            "lookalike letters counts as taken. Sign-ups are throttled per address (429)."
        ),
        request=InputSerializer,
        responses={
            201: OutputSerializer,
            403: error("Sign-up is closed on this server."),
            409: error("The username (or a lookalike) is taken."),
            429: error("Too many sign-ups."),
        },
    )
    def post(self, request: Request) -> Response:
        _throttle(request, signup=True)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user, key = user_create(username=data.validated_data["username"], password=data.validated_data["password"])
        return Response({"id": user.id, "username": user.username, "token": key}, status=status.HTTP_201_CREATED)


class MeApi(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(summary="Who am I", responses={200: UserOutputSerializer})
    def get(self, request: Request) -> Response:
        return Response(UserOutputSerializer(request.user).data)
