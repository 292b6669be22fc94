"""The rule settings of a game (R5, R7v, R13v, R15, R15v-a, R15v-b, R16) as one validated object."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from smear_rl.quoting import quoted


@dataclass(frozen=True)
class Rules:
    """Every setting that changes the game. Immutable; validated on creation.

    Defaults are docs/rules.md's: kitty of 3, every variant off, play to 15.
    """

    kitty_size: int = 3
    """R5: how many kitty cards the bidder picks up, 0-3."""
    stick_the_dealer: bool = False
    """R7v: the dealer must bid when the three players before them passed."""
    high_low_in_play: bool = False
    """R13v: High/Low go to the highest/lowest trump played instead of the ace/7."""
    win_only_on_made_bid: bool = False
    """R15v-a: a team wins only at the end of a hand it bid and made."""
    defender_cap: int | None = None
    """R15v-b: a non-bidding team's score after a hand is capped at this value (None: no cap)."""
    target_score: int = 15
    """R15: the score that wins the game."""
    max_hands: int = 50
    """R16: a game that has dealt this many hands (redeals included) without a winner is truncated."""

    def __post_init__(self) -> None:
        def need_int(name: str, low: int, high: int) -> None:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError(f"rule setting {name}={quoted(value)}: must be a whole number from {low} to {high}")
            if not low <= value <= high:
                raise ValueError(f"rule setting {name}={quoted(value)}: allowed values are {low} to {high}")

        need_int("kitty_size", 0, 3)
        need_int("target_score", 1, 1000)
        need_int("max_hands", 1, 1_000_000)
        for name in ("stick_the_dealer", "high_low_in_play", "win_only_on_made_bid"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"rule setting {name}={quoted(getattr(self, name))}: must be true or false")
        if self.defender_cap is not None:
            need_int("defender_cap", 1, 1000)

    @classmethod
    def from_dict(cls, settings: Mapping[str, Any]) -> Rules:
        """Rules from a mapping of settings; an unknown key raises ValueError naming the allowed ones."""
        unknown = sorted(set(settings) - set(cls.field_names()))
        if unknown:
            raise ValueError(f"unknown rule setting(s) {unknown}: allowed are {list(cls.field_names())}")
        return cls(**settings)

    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        """The names of all rule settings."""
        return _FIELD_NAMES

    def to_dict(self) -> dict[str, Any]:
        """The settings as a plain dict (the ``rules`` object of a hand record)."""
        return {name: getattr(self, name) for name in self.field_names()}


_FIELD_NAMES = tuple(f.name for f in dataclasses.fields(Rules))


EPISODES = ("game", "hand")
REWARDS = ("game", "hand", "margin")  # smear_env.core.team_reward computes each


def check_episode_settings(episode: str, reward: str) -> None:
    """Validate the episode and reward choices shared by the env and the batched engine."""
    if episode not in EPISODES:
        raise ValueError(f"episode={episode!r}: allowed are {EPISODES}")
    if reward not in REWARDS:
        raise ValueError(f"reward={reward!r}: allowed are {REWARDS}")
    if episode == "hand" and reward == "game":
        raise ValueError("reward='game' needs episode='game'; with episode='hand' use reward='hand' or 'margin'")


def rules_of(rules: Rules | None, rule_settings: dict[str, Any]) -> Rules:
    """The rule settings of an env: ``rules`` (a checked :class:`Rules`) or the settings as keywords, not both."""
    if rules is None:
        return Rules.from_dict(rule_settings)
    if not isinstance(rules, Rules):
        raise TypeError(f"rules={rules!r}: a smear_env.Rules (or give the settings as keywords, kitty_size=2, ...)")
    if rule_settings:
        raise ValueError(f"give rules= or the rule settings as keywords ({', '.join(sorted(rule_settings))}), not both")
    return rules
