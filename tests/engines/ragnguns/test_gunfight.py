"""GUNFIGHT (rules 0.3): firepower, the SHELTER takes first, the defender distributes the rest, damage
stays on cards, six Bullets on a GUNSLINGER lose the duel."""

from __future__ import annotations

from engines.ragnguns import GAME

from . import act, duel, lay_out, legal


def test_the_machete_gives_two_firepower() -> None:
    """ "the Machete has 2 ♠. If I placed it in my Alley, I can shoot up to two Bullets" """
    state = lay_out(duel(), 0, alley="machete", bullets=5)
    assert [a["bullets"] for a in legal(state, 0, "gunfight")] == [1, 2]


def test_no_alley_card_no_gunfight() -> None:
    state = lay_out(duel(), 0, alley=None, bullets=5)
    assert legal(state, 0, "gunfight") == []


def test_sisters_shoot_two_of_three_bullets_and_keep_one_for_the_belt() -> None:
    """ "I've got the Sisters in my Alley, which gives me a 3 ♠. I've got three Bullets left, but I want
    to keep one to put in my Cartridge Belt. I decide to shoot only two Bullets" """
    state = lay_out(duel(), 0, alley="sisters", bullets=3, hand=[])
    state = lay_out(state, 1, alley=None, shelter=None)
    assert [a["bullets"] for a in legal(state, 0, "gunfight")] == [1, 2, 3]
    shot = act(state, 0, {"type": "gunfight", "bullets": 2})
    assert (shot.sides[0].bullets, shot.sides[1].wounds) == (1, 2)
    assert legal(shot, 0, "gunfight") == []  # once per turn
    ended = act(shot, 0, {"type": "end_turn"})
    assert ended.sides[0].belt == 1


def test_iron_bar_takes_the_first_bullet_then_the_defender_keeps_the_machete() -> None:
    """ "my opponent has the Iron bar (1 ♥) in his Shelter and the Machete (1 ♥) in his Alley. The Iron
    bar take the first Bullet and is discarded. One Bullet remains, and my opponent chooses to take it
    with his Gunslinger and keeps his Machete for later." """
    state = lay_out(duel(), 0, alley="sisters", bullets=2)
    state = lay_out(state, 1, shelter="iron-bar", alley="machete")
    shot = act(state, 0, {"type": "gunfight", "bullets": 2})
    defender = shot.sides[1]
    assert defender.shelter is None and defender.discard[-1] == "iron-bar"
    decision = GAME.decision(shot)
    assert (decision.prompt, decision.seats) == ("distribute", frozenset({1}))
    assert legal(shot, 1) == [{"type": "distribute", "alley": 0}, {"type": "distribute", "alley": 1}]
    kept = act(shot, 1, {"type": "distribute", "alley": 0})
    assert (kept.sides[1].alley, kept.sides[1].wounds) == ("machete", 1)
    assert GAME.decision(kept).prompt == "main" and kept.current == 0
    assert kept.chips() == 0


def test_unfinished_damage_stays_on_the_card() -> None:
    """ "If a card isn't discarded this way, chips remains to keep track of damage." """
    state = lay_out(duel(), 0, alley="sisters", bullets=1)
    state = lay_out(state, 1, shelter="sisters")
    shot = act(state, 0, {"type": "gunfight", "bullets": 1})
    assert (shot.sides[1].shelter, shot.sides[1].shelter_wounds) == ("sisters", 1)


def test_six_bullets_on_a_gunslinger_lose_the_duel() -> None:
    state = lay_out(duel(), 0, alley="sisters", bullets=3)
    state = lay_out(state, 1, wounds=4, alley=None, shelter=None)
    shot = act(state, 0, {"type": "gunfight", "bullets": 2})
    outcome = GAME.outcome(shot)
    assert outcome is not None and outcome.ranks == (1, 2) and outcome.reason == "six_bullets"
    assert GAME.decision(shot).kind == "over"


def test_the_machete_in_the_shelter_must_be_shot_first() -> None:
    """ "the Machete has 1 ♥. If I placed it in my Shelter, my opponent must first shoot a Bullet at it
    (and discard it) before being able to reach me." """
    state = lay_out(duel(), 0, alley="sisters", bullets=1)
    state = lay_out(state, 1, shelter="machete", alley=None)
    shot = act(state, 0, {"type": "gunfight", "bullets": 1})
    assert (
        shot.sides[1].shelter is None and shot.sides[1].discard == ["machete"] and shot.sides[1].wounds == 0
    )
