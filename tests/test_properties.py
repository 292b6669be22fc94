"""Properties over thousands of random games with random rule settings."""

from __future__ import annotations

import numpy as np
import pytest

from smear_env import Game, Phase, Rules, check_records, sample_game, seat_view
from smear_env.view import DealSampler


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


def _tightly_constrained_view(seed: int = 1):
    """A view of a non-bidder after three tricks in which every other seat is declared void in each
    suit it truly lacks: the tightest constraints the true deal still meets."""
    import dataclasses

    game = Game(Rules(), seed)
    while game.phase != Phase.PLAY or len(game.tricks) < 3 or game.to_act == game.bidder:
        legal = game.legal_actions()
        game.step(legal[0] if game.phase != Phase.BID else legal[-1])
    seat = game.to_act
    view = seat_view(game, seat)
    voids = tuple(
        "".join(u for i, u in enumerate("CDHS") if s != seat and not any(c >> 3 == i for c in game.holding[s])) for s in range(4)
    )
    return game, dataclasses.replace(view, voids=voids)


def test_sampler_meets_tight_void_constraints():
    """Every sampled deal respects voids declared for every suit a seat lacks."""
    game, view = _tightly_constrained_view()
    assert sum(len(v) for v in view.voids) >= 3
    rng = np.random.default_rng(5)
    sampler = DealSampler(view)
    for _ in range(200):
        sampled = sampler.game(rng)
        for s in range(4):
            assert all("CDHS"[c >> 3] not in view.voids[s] for c in sampled.holding[s])
            assert len(sampled.holding[s]) == len(game.holding[s])
        assert all(c >> 3 != sampled.trump for c in sampled.discards)


def test_sampler_rejects_a_view_no_deal_meets():
    import dataclasses

    _, view = _tightly_constrained_view()
    other = (view.seat + 1) % 4
    voids = tuple("CDHS" if s == other else v for s, v in enumerate(view.voids))
    with pytest.raises(ValueError, match="no deal is consistent"):
        sample_game(dataclasses.replace(view, voids=voids), np.random.default_rng(0))


def test_sampler_is_uniform():
    """Card-by-place frequencies of DealSampler match plain rejection sampling (uniform by construction)."""
    _, view = _tightly_constrained_view(seed=4)
    sampler = DealSampler(view)
    rng = np.random.default_rng(11)
    places = [*sampler.others, "discards", "kitty"]
    capacity = sampler.capacity
    allowed = sampler.allowed

    def rejection() -> list[list[int]]:
        while True:
            order = [sampler.pool[i] for i in rng.permutation(len(sampler.pool))]
            out, start = [], 0
            for cap in capacity:
                out.append(order[start : start + cap])
                start += cap
            if all(allowed[j][c >> 3] for j, cards in enumerate(out) for c in cards):
                return out

    n = 3000
    freq = np.zeros((2, len(places), 32))
    for k, draw in enumerate((lambda: sampler.deal(rng), rejection)):
        for _ in range(n):
            for j, cards in enumerate(draw()):
                freq[k, j, cards] += 1
    freq /= n
    # Two independent estimates of each probability: their difference has sd <= sqrt(2 * 0.25 / n).
    assert np.abs(freq[0] - freq[1]).max() < 4.5 * np.sqrt(0.5 / n)
    assert freq[0].sum(axis=1).tolist() == list(capacity)


def test_weighted_sampler_meets_the_constraints():
    """Deals drawn with weights (a learned model's) are still exactly consistent with the view."""
    rng = np.random.default_rng(8)
    for seed in (1, 2, 3):
        game, view = _tightly_constrained_view(seed)
        sampler = DealSampler(view, weights=rng.random((32, 4)) + 0.05)
        for _ in range(100):
            places = sampler.deal(rng)
            assert [len(p) for p in places] == sampler.capacity
            assert sorted(c for p in places for c in p) == sorted(sampler.pool)
            for j, cards in enumerate(places):
                assert all(sampler.allowed[j][c >> 3] for c in cards)
            sampled = sampler.game(rng)
            assert all(not (sampled.voids[s][c >> 3]) for s in range(4) if s != view.seat for c in sampled.holding[s])


def test_weighted_sampler_draws_in_proportion_to_the_weights():
    """Card-by-place frequencies of the weighted draw match an independent estimate of the same
    distribution: uniform deals reweighted by the product of their cards' weights (importance
    sampling); and with equal weights the draw is the uniform sampler's."""
    _, view = _tightly_constrained_view(seed=4)
    rng = np.random.default_rng(12)
    weights = np.exp(rng.normal(scale=0.6, size=(32, 4)))
    weighted, uniform = DealSampler(view, weights=weights), DealSampler(view)
    column = [(s - view.seat) % 4 - 1 for s in uniform.others] + [3, 3]
    n = 6000
    drawn = np.zeros((5, 32))
    for _ in range(n):
        for j, cards in enumerate(weighted.deal(rng)):
            drawn[j, cards] += 1
    drawn /= n
    estimate, total = np.zeros((5, 32)), 0.0
    for _ in range(4 * n):
        places = uniform.deal(rng)
        w = float(np.prod([weights[c, column[j]] for j, cards in enumerate(places) for c in cards]))
        total += w
        for j, cards in enumerate(places):
            estimate[j, cards] += w
    estimate /= total
    assert np.abs(drawn - estimate).max() < 0.05
    assert np.abs(drawn - estimate).mean() < 0.01
    equal = DealSampler(view, weights=np.ones((32, 4)))
    flat = np.zeros((2, 5, 32))
    for k, sampler in enumerate((equal, uniform)):
        for _ in range(3000):
            for j, cards in enumerate(sampler.deal(rng)):
                flat[k, j, cards] += 1
    flat /= 3000
    assert np.abs(flat[0] - flat[1]).max() < 4.5 * np.sqrt(0.5 / 3000)


def test_weighted_sampler_rejects_weights_that_allow_no_deal():
    _, view = _tightly_constrained_view(seed=4)
    with pytest.raises(ValueError, match=r"\[32, 4\] array"):
        DealSampler(view, weights=np.ones((32, 3)))
    zero = np.ones((32, 4))
    zero[:, :3] = 0.0  # nothing may lie in another hand
    with pytest.raises(ValueError, match="weight 0"):
        DealSampler(view, weights=zero)


@pytest.mark.parametrize("seed", range(8))
def test_r1_relabelled_suits_play_the_same_hand(seed):
    """R1: no rule names a suit, so a deal with its suits relabelled plays the same hand, and
    ``smear_env.symmetry`` relabels the observation and the action table as the engine does."""
    from smear_env import encode
    from smear_env.symmetry import ACTION_INDEX, OBS_INDEX, SUIT_PERMUTATIONS, relabel_action, relabel_card

    rng = np.random.default_rng(seed)
    rules = random_rules(rng)
    p = int(rng.integers(1, len(SUIT_PERMUTATIONS)))
    perm = SUIT_PERMUTATIONS[p]
    game = Game(rules, seed, stop_after_hand=True, scores=(int(rng.integers(12)), int(rng.integers(12))))
    twin = Game(rules, seed, dealer=game.dealer, scores=game.scores, stop_after_hand=True,
                deal=([[relabel_card(c, perm) for c in h] for h in game.dealt], [relabel_card(c, perm) for c in game.kitty]))  # fmt: skip
    while not game.game_over:
        for seat in range(4):
            assert np.array_equal(encode(seat_view(game, seat))[OBS_INDEX[p]], encode(seat_view(twin, seat)))
        assert np.array_equal(game.action_mask()[ACTION_INDEX[p]], twin.action_mask())
        legal = game.legal_actions()
        action = legal[rng.integers(len(legal))]
        game.step(action)
        twin.step(relabel_action(action, perm))
    assert twin.game_over and twin.scores == game.scores and twin.winner == game.winner
