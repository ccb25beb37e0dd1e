"""Sign-up, tokens and the current user."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.db import IntegrityError, transaction
from rest_framework import permissions, serializers, status
from rest_framework.authtoken.models import Token
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from tournaments.services.errors import ConflictError


class TokenApi(ObtainAuthToken):
    """POST username and password, get ``{"token": ...}``."""


class UserCreateApi(APIView):
    permission_classes = [permissions.AllowAny]

    class InputSerializer(serializers.Serializer):
        username = serializers.RegexField(r"^[\w.@+-]{1,150}$")
        password = serializers.CharField(min_length=4, max_length=128, write_only=True)

    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        validate_password(data.validated_data["password"])
        try:
            with transaction.atomic():
                user = get_user_model().objects.create_user(
                    username=data.validated_data["username"], password=data.validated_data["password"]
                )
                token = Token.objects.create(user=user)
        except IntegrityError as exc:
            raise ConflictError("That username is taken.", fields={"username": ["taken"]}) from exc
        return Response({"id": user.id, "username": user.username, "token": token.key}, status=status.HTTP_201_CREATED)


class MeApi(APIView):
    permission_classes = [permissions.IsAuthenticated]

    def get(self, request: Request) -> Response:
        user = request.user
        return Response({"id": user.id, "username": user.username, "is_staff": user.is_staff})
