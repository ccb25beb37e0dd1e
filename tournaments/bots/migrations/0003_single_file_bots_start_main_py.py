"""Single-file bots always start as ``main.py``: rewrite the commands stored before that rule."""

from django.db import migrations
from django.db.backends.base.schema import BaseDatabaseSchemaEditor
from django.db.migrations.state import StateApps


def forwards(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    # The package code now unpacks a single file under the fixed name, so a stored command naming
    # the upload's own filename would no longer find its file.
    BotVersion = apps.get_model("bots", "BotVersion")
    BotVersion.objects.filter(kind="python").exclude(command=["python3", "main.py"]).update(
        command=["python3", "main.py"]
    )


class Migration(migrations.Migration):
    dependencies = [
        ("bots", "0002_rename_tables"),
    ]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
