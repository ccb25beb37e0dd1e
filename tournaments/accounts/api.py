"""Sign-up, tokens (obtain and revoke) and the current user."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import permissions, serializers, status
from rest_framework.authtoken.models import Token
from rest_framework.authtoken.serializers import AuthTokenSerializer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from tournaments.accounts.services import token_revoke, user_create
from tournaments.api.common import signed_in
from tournaments.api.schema import error


class TokenOutputSerializer(serializers.Serializer):
    token = serializers.CharField(help_text="Send it as `Authorization: Token <token>`.")


class TokenInputSerializer(serializers.Serializer):
    username = serializers.CharField()
    password = serializers.CharField(write_only=True)


class UserOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()
    is_staff = serializers.BooleanField()


class TokenApi(APIView):
    """POST username and password to get your token; DELETE revokes it."""

    def get_permissions(self) -> list[permissions.BasePermission]:
        if self.request.method == "DELETE":
            return [permissions.IsAuthenticated()]
        return [permissions.AllowAny()]

    @extend_schema(
        summary="Get your API token",
        description="Returns your token, creating one if you have none (after a revoke, a new key).",
        request=TokenInputSerializer,
        responses={200: TokenOutputSerializer, 400: error("Wrong username or password.")},
        examples=[OpenApiExample("credentials", value={"username": "ada", "password": "a-long-password"})],
    )
    def post(self, request: Request) -> Response:
        data = AuthTokenSerializer(data=request.data, context={"request": request})
        data.is_valid(raise_exception=True)
        token, _ = Token.objects.get_or_create(user=data.validated_data["user"])
        return Response({"token": token.key})

    @extend_schema(
        summary="Revoke your API token",
        description="Deletes the token used (or your token, with session auth); it stops working at once.",
        request=None,
        responses={204: None},
    )
    def delete(self, request: Request) -> Response:
        token_revoke(user=signed_in(request))
        return Response(status=status.HTTP_204_NO_CONTENT)


class UserCreateApi(APIView):
    permission_classes = [permissions.AllowAny]

    class InputSerializer(serializers.Serializer):
        username = serializers.RegexField(r"^[\w.@+-]{1,150}$", max_length=150)
        password = serializers.CharField(min_length=4, max_length=128, write_only=True)

    class OutputSerializer(serializers.Serializer):
        id = serializers.IntegerField()
        username = serializers.CharField()
        token = serializers.CharField()

    @extend_schema(
        summary="Sign up",
        request=InputSerializer,
        responses={201: OutputSerializer, 409: error("The username is taken.")},
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user, token = user_create(username=data.validated_data["username"], password=data.validated_data["password"])
        return Response({"id": user.id, "username": user.username, "token": token.key}, status=status.HTTP_201_CREATED)


class MeApi(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(summary="Who am I", responses={200: UserOutputSerializer})
    def get(self, request: Request) -> Response:
        return Response(UserOutputSerializer(request.user).data)
