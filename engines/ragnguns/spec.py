"""Rag'n'Guns: metadata and options (rules 0.3: SETUP, EFFECTS, DECKBUILDING).

Every option exists because the rulebook leaves a point open or says two things; each `doc` says
which. docs/games/ragnguns.md lists every reading with the sentence it comes from.
"""

from __future__ import annotations

from engines.protocol import GameSpec, OptionSpec
from engines.ragnguns.catalogue import load_formats

FIRST_RANDOM = "random"
FIRST_SEAT_0 = "seat_0"
FIRST_SEAT_1 = "seat_1"

# EFFECTS: "Improvise indicates that by paying ① I can pick a MELEE card ... So I pay nothing".
# The two sentences give two costs; the catalogue records both as the Effect's `readings`.
SO_I_PAY_NOTHING = "so_i_pay_nothing"
BY_PAYING_ONE = "by_paying_one"

# "When your opponent take six BULLETS, you win." -- the GUNSLINGER's ♥ in the catalogue is 6 too.
LOSING_WOUNDS = 6
# SETUP: "A 6-sided dice (the CYLINDER)": a die shows at most 6, so the cylinder stops there.
CYLINDER_MAX = 6
CYLINDER_START = 1  # "Set the CYLINDER on 1"
DRAW = 3  # "DRAW 3 cards."
HIDEOUT_SLOTS = 2  # "The HIDEOUT is a two-slot game zone"

OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        name="format",
        default="standard",
        choices=tuple(sorted(load_formats())),
        doc="The legality format each seat's deck is checked under when it is brought (formats.json).",
    ),
    OptionSpec(
        name="ban_list",
        default="",
        doc=(
            "Ours (ban lists change over time; the rulebook has none): the format's ban list as JSON "
            "{version, effective, banned, restricted, max_restricted}, set by the service from the list in "
            "effect when the match is created, so the match keeps the list it began under. Empty: the "
            "format's packaged list (formats.json)."
        ),
        set_at_creation=True,
    ),
    OptionSpec(
        name="first_player",
        default=FIRST_RANDOM,
        choices=(FIRST_RANDOM, FIRST_SEAT_0, FIRST_SEAT_1),
        doc=(
            "SETUP: 'each player roll a die and the highest result decides, but you can decide "
            "otherwise'. random (the default): a fair chance choice between the two seats; seat_0 / "
            "seat_1: that seat starts (a loser-starts house rule, a tournament's choice)."
        ),
    ),
    OptionSpec(
        name="improvise_cost",
        default=SO_I_PAY_NOTHING,
        choices=(SO_I_PAY_NOTHING, BY_PAYING_ONE),
        doc=(
            "EFFECTS contradicts itself: 'Improvise indicates that by paying ① I can pick a MELEE card "
            "... So I pay nothing'. so_i_pay_nothing (the default): the Effect costs ⓪, as the sentence "
            "describing the play says and as the Brass Knuckles example chains it; by_paying_one: ①. "
            "The catalogue's Effect carries both costs as named readings."
        ),
    ),
    OptionSpec(
        name="turn_limit",
        default=30,
        minimum=6,
        maximum=200,
        doc=(
            "Turns per player before the duel is called (ours: the rulebook's only end is six Bullets "
            "on a GUNSLINGER, and two players out of cards with nothing in the Alley could never end). "
            "Then the GUNSLINGER with fewer Bullets wins; equal is a draw."
        ),
    ),
)

SPEC = GameSpec(
    key="ragnguns",
    name="Rag'n'Guns",
    version="1.0.0",
    min_players=2,
    max_players=2,
    rulebook="Rag'n'Guns, rules version 0.3",
    options=OPTIONS,
    has_chance=True,  # who starts (when random) and both deck shuffles
    has_hidden_information=True,  # hands, deck orders, face-down TRAPS, lower Hideout cards, deck lists
    has_simultaneous_moves=True,  # both seats bring their deck at once
    needs_deck=True,
)
