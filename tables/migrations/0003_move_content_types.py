"""Hand the "games" app's content types to "tables", so permissions and admin history follow.

The Moderators group's rights on matches (manage.py moderator) and the admin's log entries point
at content types; renaming them keeps both, where new ones would leave them pointing at nothing.
"""

from django.db import migrations

MODELS = ["match", "player", "presence", "round", "actionlog", "roundscore"]


def forwards(apps, schema_editor):  # noqa: ANN001, ANN201
    ContentType = apps.get_model("contenttypes", "ContentType")
    taken = set(
        ContentType.objects.filter(app_label="tables").values_list("model", flat=True)
    )
    ContentType.objects.filter(app_label="games", model__in=set(MODELS) - taken).update(
        app_label="tables"
    )


def backwards(apps, schema_editor):  # noqa: ANN001, ANN201
    ContentType = apps.get_model("contenttypes", "ContentType")
    ContentType.objects.filter(app_label="tables", model__in=MODELS).update(app_label="games")


class Migration(migrations.Migration):
    dependencies = [
        ("tables", "0002_player_won"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(forwards, backwards)]
