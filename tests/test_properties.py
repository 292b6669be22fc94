"""Properties over thousands of random games with random rule settings."""

from __future__ import annotations

import numpy as np
import pytest

from smear_env import Game, Phase, Rules, check_records, sample_game, seat_view
from smear_env.view import CARD_INDEX


def random_rules(rng: np.random.Generator) -> Rules:
    return Rules(
        kitty_size=int(rng.integers(4)),
        stick_the_dealer=bool(rng.integers(2)),
        high_low_in_play=bool(rng.integers(2)),
        win_only_on_made_bid=bool(rng.integers(2)),
        defender_cap=[None, 15, 10][int(rng.integers(3))],
        max_hands=int(rng.integers(5, 40)),
    )


def assert_cards_partitioned(game: Game) -> None:
    """R1/R4: every card is in exactly one place."""
    played = [c for _, plays, _ in game.tricks for _, c in plays] + [c for _, c in game.trick]
    places = [c for h in game.holding for c in h] + played + game.discards
    rest = game.kitty if game.phase == Phase.BID else game.kitty[game.rules.kitty_size :]
    places += rest
    assert sorted(places) == list(range(32))


def play(seed: int, rules: Rules) -> tuple[Game, list[int]]:
    rng = np.random.default_rng(seed + 10_000)
    game = Game(rules, seed, game_id=f"p{seed}")
    actions = []
    while not game.game_over:
        assert_cards_partitioned(game)
        legal = game.legal_actions()
        assert legal == sorted(set(legal))
        action = legal[rng.integers(len(legal))]
        actions.append(action)
        game.step(action)
    return game, actions


def test_random_games_keep_every_invariant():
    rng = np.random.default_rng(0)
    records = []
    for seed in range(400):
        game, _ = play(seed, random_rules(rng))
        for r in game.records:
            if not r["redeal"]:
                assert sum(r["hand_points"]) <= 4
                assert sum(r["game_count"]) <= 80
                assert r["hand_points"] == [sum(v == t for v in r["points"].values()) for t in (0, 1)]
        assert game.truncated or game.winner is not None
        if game.winner is not None:
            assert max(game.scores) >= game.rules.target_score
        records.extend(game.records)
    assert check_records(records) == len(records) > 2000


def test_games_replay_exactly_from_seed_and_actions():
    rules = Rules(kitty_size=2)
    for seed in range(20):
        game, actions = play(seed, rules)
        replay = Game(rules, seed, game_id=f"p{seed}")
        for a in actions:
            replay.step(a)
        assert replay.records == game.records


@pytest.mark.parametrize("kitty_size", [0, 1, 3])
def test_sampled_games_are_consistent_with_the_view(kitty_size):
    """sample_game keeps everything the seat knows and respects the revealed voids."""
    rng = np.random.default_rng(kitty_size)
    checked = 0
    for seed in range(40):
        game = Game(Rules(kitty_size=kitty_size), seed)
        while not game.game_over and game.hand_index < 2:
            seat = game.to_act
            view = seat_view(game, seat)
            sampled = sample_game(view, rng)
            assert seat_view(sampled, seat) == view
            for s in range(4):
                for c in sampled.holding[s]:
                    assert "CDHS"[c >> 3] not in view.voids[s]
            if sampled.bidder is not None and sampled.phase != Phase.BID and sampled.bidder != seat:
                assert all(c >> 3 != sampled.trump for c in sampled.discards)
            hidden_true = sorted(c for s in range(4) if s != seat for c in game.holding[s])
            hidden_sampled = sorted(c for s in range(4) if s != seat for c in sampled.holding[s])
            assert len(hidden_true) == len(hidden_sampled)
            # The sampled game plays on legally to the end of the hand.
            hand = sampled.hand_index
            while not sampled.game_over and sampled.hand_index == hand:
                legal = sampled.legal_actions()
                sampled.step(legal[rng.integers(len(legal))])
            legal = game.legal_actions()
            game.step(legal[rng.integers(len(legal))])
            checked += 1
    assert checked > 500


def test_sampler_handles_tight_void_constraints():
    """Voids that rejection sampling rarely satisfies still give a consistent deal."""
    rng = np.random.default_rng(5)
    game = Game(Rules(kitty_size=0), 1)
    while game.phase != Phase.PLAY:
        game.step(game.legal_actions()[-1])
    seat = game.to_act
    view = seat_view(game, seat)
    # Pretend two opponents are void in three suits: the hidden cards must go around them.
    voids = list(view.voids)
    others = [s for s in range(4) if s != seat]
    counts = {u: sum(1 for s in others for c in game.holding[s] if c >> 3 == u) for u in range(4)}
    keep = max(counts, key=counts.get)
    import dataclasses

    voids[others[0]] = "".join(u for i, u in enumerate("CDHS") if i != keep)
    tight = dataclasses.replace(view, voids=tuple(voids))
    try:
        sampled = sample_game(tight, rng)
    except ValueError as e:
        assert "no deal is consistent" in str(e)
        return
    assert all(c >> 3 == keep for c in sampled.holding[others[0]])
    assert CARD_INDEX  # used by the view module
