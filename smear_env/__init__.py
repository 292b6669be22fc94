"""smear-rl: Four Point Northeastern Wisconsin Smear for reinforcement-learning research.

``smear_env.env()`` is the PettingZoo AEC env ``smear_v0``; :class:`Game` the rules
engine; :func:`seat_view` what a seat may know; ``smear_env.records`` hand records.
"""

from .actions import NUM_ACTIONS, action_name, action_table, parse_action
from .cards import ALL_CARDS, card_str, parse_card
from .game import Game, IllegalActionError, Phase
from .observer import OBS_DIM, STATE_DIM, encode, layout_table, observe, state
from .records import RecordError, check_records, read_records, write_records
from .render import render_table
from .rules import Rules
from .smear_v0 import env, raw_env
from .vector import SmearVectorEnv
from .view import DealSampler, SeatView, TrickView, sample_game, seat_view

__version__ = "0.3.0"
"""The kit's version, its one place: the package metadata, every command's ``--version``, run folders,
checkpoints and arena JSON take it from here."""

__all__ = [
    "__version__",
    "ALL_CARDS",
    "DealSampler",
    "Game",
    "IllegalActionError",
    "NUM_ACTIONS",
    "OBS_DIM",
    "Phase",
    "RecordError",
    "Rules",
    "STATE_DIM",
    "SeatView",
    "SmearVectorEnv",
    "TrickView",
    "action_name",
    "action_table",
    "card_str",
    "check_records",
    "encode",
    "env",
    "layout_table",
    "observe",
    "parse_action",
    "parse_card",
    "raw_env",
    "read_records",
    "render_table",
    "sample_game",
    "seat_view",
    "state",
    "write_records",
]
