"""`LadderMatch.rated`: set with the match's RatedMatch, and indexed while false, so that a ladder's
matches still to rate are found without reading its history. Matches rated already are marked here."""

from django.db import migrations, models


def mark_rated(apps, schema_editor):
    LadderMatch = apps.get_model("ratings", "LadderMatch")
    RatedMatch = apps.get_model("ratings", "RatedMatch")
    LadderMatch.objects.filter(match_id__in=RatedMatch.objects.values("match_id")).update(rated=True)


class Migration(migrations.Migration):
    dependencies = [
        ("matches", "0002_match_event_append_only"),
        ("ratings", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="laddermatch",
            name="rated",
            field=models.BooleanField(default=False, editable=False, help_text="Its RatedMatch exists."),
        ),
        migrations.RunPython(mark_rated, migrations.RunPython.noop),
        migrations.AddIndex(
            model_name="laddermatch",
            index=models.Index(
                condition=models.Q(("rated", False)), fields=["round"], name="ladder_match_to_rate"
            ),
        ),
    ]
