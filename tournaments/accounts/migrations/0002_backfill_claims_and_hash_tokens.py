"""Existing users claim their names' skeletons (first come, first served); plain tokens become hashed ones."""

import hashlib
import unicodedata

from django.db import migrations


def _skeleton(name):
    from tournaments.accounts.usernames import username_skeleton

    return username_skeleton(unicodedata.normalize("NFKC", name))


def forwards(apps, schema_editor):
    User = apps.get_model("auth", "User")
    UsernameClaim = apps.get_model("accounts", "UsernameClaim")
    ApiToken = apps.get_model("accounts", "ApiToken")
    Token = apps.get_model("authtoken", "Token")
    taken = set()
    for user in User.objects.order_by("id").only("id", "username"):
        skeleton = _skeleton(user.username)
        if skeleton not in taken:
            taken.add(skeleton)
            UsernameClaim.objects.create(user_id=user.id, skeleton=skeleton)
    for token in Token.objects.all():
        digest = hashlib.sha256(token.key.encode()).hexdigest()
        # No expiry: their holders were never told of one.
        ApiToken.objects.create(user_id=token.user_id, digest=digest, prefix=token.key[:8], expires_at=None)
    Token.objects.all().delete()


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0001_usernames_and_hashed_tokens"),
        ("authtoken", "0004_alter_tokenproxy_options"),
    ]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
