"""A bot's stored name the same for every reader: English, "Normal bot 4".

It used to be worded once, in the language of whoever started the match; pages now word it
per reader from the bot's level and seat (tables.words.player_name), and the Board API gives
this stored name.
"""

from django.db import migrations


def stable_names(apps, schema_editor):
    Player = apps.get_model("tables", "Player")
    bots = Player.objects.filter(user__isnull=True).exclude(bot_level="")
    for player in bots.only("pk", "seat", "bot_level").iterator():
        name = f"{player.bot_level.capitalize()} bot {player.seat + 1}"
        Player.objects.filter(pk=player.pk).update(name=name)


class Migration(migrations.Migration):
    dependencies = [
        ("tables", "0010_player_claimed_by"),
    ]

    operations = [
        migrations.RunPython(stable_names, migrations.RunPython.noop),
    ]
