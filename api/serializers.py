from __future__ import annotations

from rest_framework import serializers

from engines.registry import game_keys
from tournaments.models import Match, MatchSeat


class MatchSeatSerializer(serializers.ModelSerializer):
    user = serializers.SlugRelatedField(slug_field="username", read_only=True)

    class Meta:
        model = MatchSeat
        fields = ["index", "user", "bot"]


class MatchSerializer(serializers.ModelSerializer):
    seats = MatchSeatSerializer(many=True, read_only=True)
    seq = serializers.IntegerField(read_only=True, help_text="Sequence number of the last event (0: none yet).")
    seed = serializers.SerializerMethodField(help_text="The secret seed, revealed once the match is finished.")
    created_by = serializers.SlugRelatedField(slug_field="username", read_only=True)

    class Meta:
        model = Match
        fields = [
            "id",
            "game",
            "engine_version",
            "options",
            "status",
            "seats",
            "seq",
            "seed_commitment",
            "seed",
            "outcome",
            "created_by",
            "created_at",
            "finished_at",
        ]

    def get_seed(self, match: Match) -> str | None:
        return bytes(match.seed).hex() if match.is_finished else None


class SeatRequestSerializer(serializers.Serializer):
    user = serializers.CharField(required=False, help_text="A username.")
    bot = serializers.CharField(required=False, help_text="A built-in bot of the game, e.g. 'heuristic'.")


class MatchCreateSerializer(serializers.Serializer):
    game = serializers.ChoiceField(choices=[])
    options = serializers.DictField(required=False, default=dict, help_text="Rule variants; see /api/games/.")
    seats = SeatRequestSerializer(many=True, help_text='In ring order, e.g. [{"user": "demo"}, {"bot": "heuristic"}].')

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["game"].choices = game_keys()

    def validate_seats(self, seats):
        for index, seat in enumerate(seats):
            if len(seat) != 1:
                raise serializers.ValidationError(f'seat {index}: give exactly one of "user" or "bot"')
        return seats


class ActionSubmitSerializer(serializers.Serializer):
    expected_seq = serializers.IntegerField(
        min_value=0, help_text="The seq of the last event you saw; a stale one is refused with 409."
    )
    action = serializers.DictField(help_text='A JSON object with a "type"; see legal-actions.')
    seat = serializers.IntegerField(
        required=False, min_value=0, help_text="Only needed when you hold several seats in this match."
    )
    idempotency_key = serializers.CharField(
        required=False,
        max_length=100,
        help_text="Retry-safe key (or the Idempotency-Key header): the same key twice writes once.",
    )


class ForfeitSerializer(serializers.Serializer):
    seat = serializers.IntegerField(required=False, min_value=0)
    reason = serializers.CharField(required=False, default="resigned", max_length=200)


class EventSerializer(serializers.Serializer):
    seq = serializers.IntegerField()
    kind = serializers.CharField()
    seat = serializers.IntegerField(allow_null=True)
    payload = serializers.JSONField(allow_null=True, help_text="null while it is hidden from you.")
    redacted = serializers.BooleanField()
    actor = serializers.CharField(allow_null=True)
    created_at = serializers.DateTimeField()


class DecisionSerializer(serializers.Serializer):
    kind = serializers.CharField(help_text="turn, simultaneous, response, chance or over")
    seats = serializers.ListField(child=serializers.IntegerField())
    prompt = serializers.CharField()


class SeatViewSerializer(serializers.Serializer):
    seq = serializers.IntegerField()
    seat = serializers.IntegerField(allow_null=True, help_text="null: you see as a spectator.")
    status = serializers.CharField()
    decision = DecisionSerializer()
    view = serializers.JSONField()
    legal_actions = serializers.ListField(child=serializers.JSONField())


class ActionResultSerializer(SeatViewSerializer):
    event = EventSerializer()
    events = EventSerializer(many=True, help_text="Your event and everything appended after it.")
    replayed = serializers.BooleanField()


class VerificationSerializer(serializers.Serializer):
    verified = serializers.BooleanField()
    seed = serializers.CharField()
    seed_commitment = serializers.CharField()
    chance_events_checked = serializers.IntegerField()
    events_replayed = serializers.IntegerField()
    problems = serializers.ListField(child=serializers.CharField())
