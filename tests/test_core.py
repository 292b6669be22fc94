"""The fast core (smear_env.core) against the reference engine (smear_env.game), rule by rule,
over random games under every rule setting."""

from __future__ import annotations

import numpy as np
import pytest

from smear_env import Game, Phase, Rules
from smear_env.actions import BID_BASE, DISCARD_BASE, MIN_BID, PASS, PLAY_BASE, TRUMP_BASE
from smear_env.core import (
    beats,
    bid_choices,
    bidding_over,
    discard_choices,
    game_team,
    hand_points,
    high_low_cards,
    play_choices,
    settle,
    shows_void,
    team_reward,
    trump_choices,
    winning_place,
)
from smear_env.game import shows_void as engine_shows_void
from smear_env.game import tally, trick_winner
from smear_env.rules import REWARDS

SETTINGS = [
    {},
    {"kitty_size": 0},
    {"kitty_size": 1, "stick_the_dealer": True},
    {"kitty_size": 2, "high_low_in_play": True},
    {"kitty_size": 3, "win_only_on_made_bid": True, "defender_cap": 15},
    {"kitty_size": 3, "defender_cap": 10, "target_score": 7, "high_low_in_play": True},
]
IDS = [",".join(f"{k}={v}" for k, v in s.items()) or "default" for s in SETTINGS]


def mask(cards) -> int:
    return sum(1 << c for c in cards)


def bits(word: int, base: int) -> list[int]:
    return [base + k for k in range(32) if word >> k & 1]


def random_games(settings: dict, seeds: range):
    """Every position of random games: (game before the action, the action)."""
    rng = np.random.default_rng(len(settings))
    for seed in seeds:
        game = Game(Rules(**settings), seed)
        while not game.game_over:
            legal = game.legal_actions()
            action = legal[rng.integers(len(legal))]
            yield game, action
            game.step(action)


def core_choices(game: Game) -> list[int]:
    """The legal actions of the player to act, as the fast core gives them."""
    hand = mask(game.holding[game.to_act])
    if game.phase == Phase.BID:
        stuck = game.rules.stick_the_dealer and game.to_act == game.dealer and game.high_bid == 0
        return bits(bid_choices(game.high_bid, stuck), PASS)
    if game.phase == Phase.TRUMP:
        return bits(trump_choices(hand), TRUMP_BASE)
    if game.phase == Phase.DISCARD:
        return bits(discard_choices(hand, game.trump), DISCARD_BASE)
    led = game.trick[0][1] if game.trick else -1
    return bits(play_choices(hand, led, game.trump, not game.tricks and not game.trick), PLAY_BASE)


@pytest.mark.parametrize("settings", SETTINGS, ids=IDS)
def test_r6_r7v_r9_r10_r11_legal_actions_equal_the_engines(settings):
    checked = 0
    for game, action in random_games(settings, range(6)):
        assert core_choices(game) == game.legal_actions(), (game.phase, game.to_act)
        if game.phase == Phase.BID:
            # R7: the core ends the bidding where the engine does.
            bid = 0 if action == PASS else action - BID_BASE + MIN_BID
            hand, seat = game.hand_index, game.to_act
            after = game.copy()
            after.step(action)
            assert bidding_over(seat, game.dealer, bid) == (after.phase != Phase.BID or after.hand_index != hand)
        checked += 1
    assert checked > 500


def test_r11_r12_tricks_equal_the_engines():
    rng = np.random.default_rng(0)
    for _ in range(3000):
        cards = rng.permutation(32)[:4].tolist()
        trump = int(rng.integers(4))
        leader = int(rng.integers(4))
        plays = [((leader + i) % 4, c) for i, c in enumerate(cards)]
        _, place = winning_place(np.array(cards), 0, 4, trump)
        assert (leader + place) % 4 == trick_winner(plays, trump)
        assert bool(beats(cards[1], cards[0], trump)) == (trick_winner(plays[:2], trump) == plays[1][0])
        assert bool(shows_void(cards[0], cards[1], trump)) == engine_shows_void(cards[0], cards[1], trump)


@pytest.mark.parametrize("settings", SETTINGS, ids=IDS)
def test_r13_r14_r15_scoring_equals_the_engines(settings):
    rules = Rules(**settings)
    scored = 0
    for seed in range(25):
        game = Game(rules, seed)
        rng = np.random.default_rng(seed)
        while not game.game_over:
            before = len(game.records)
            legal = game.legal_actions()
            game.step(legal[rng.integers(len(legal))])
            for record in game.records[before:]:
                if record["redeal"]:
                    continue
                trump = "CDHS".index(record["trump"])
                tricks = [(t["leader"], [(s, _card(c)) for s, c in t["plays"]], t["winner"]) for t in record["tricks"]]
                played = mask(c for _, plays, _ in tricks for _, c in plays)
                high, low = high_low_cards(played, trump, rules.high_low_in_play)
                owner = {c: s for _, plays, _ in tricks for s, c in plays}
                points = record["points"]
                assert (owner[high] & 1 if high >= 0 else None) == points["high"]
                assert (owner[low] & 1 if low >= 0 else None) == points["low"]
                count = record["game_count"]
                assert game_team(*count) == (-1 if points["game"] is None else points["game"])
                assert list(tally(rules, trump, tricks, (), record["bidder"], [_card(c) for c in record["discards"]])) == [
                    points,
                    count,
                ]
                teams = [-1 if points[k] is None else points[k] for k in ("high", "low", "jack", "game")]
                taken = hand_points(*teams)
                assert list(taken) == record["hand_points"]
                cap = -1 if rules.defender_cap is None else rules.defender_cap
                new0, new1, made, winner = settle(
                    *record["score_before"], record["bidder"] & 1, record["bid"], *taken, cap, rules.target_score,
                    rules.win_only_on_made_bid,
                )  # fmt: skip
                assert [new0, new1] == record["score_after"] and bool(made) == record["made_bid"]
                assert (None if winner < 0 else winner) == record["winner"]
                change = [a - b for a, b in zip(record["score_after"], record["score_before"], strict=True)]
                outcome = 0 if record["winner"] is None else (1 if record["winner"] == 0 else -1)
                assert team_reward(REWARDS.index("margin"), change[0], change[1], outcome) == change[0] - change[1]
                scored += 1
    assert scored > 100


def _card(name: str) -> int:
    from smear_env import parse_card

    return parse_card(name)
