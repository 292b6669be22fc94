"""The double-dummy solver against brute force, and the PIMC agent."""

from __future__ import annotations

import gc

import numpy as np
import pytest

from agents import load_agent
from agents.dds import Solver
from smear_env import Game, Phase, Rules, observe, seat_view
from smear_env.actions import PLAY_BASE
from smear_env.cards import ALL_CARDS, GAME_COUNT
from smear_env.game import trick_winner


def brute_force(hands, trick, leader, trump, gc, jack_team, high, low, bid_team, bid):
    """Plain minimax over every legal play, no pruning: team 0 maximises the R14 margin."""
    hands = [set(h) for h in hands]
    jack = trump * 8 + 4

    def legal(seat, trick):
        hand = hands[seat]
        if not trick:
            return sorted(hand)
        led = trick[0][1] >> 3
        if any(c >> 3 == led for c in hand):
            return sorted(c for c in hand if c >> 3 in (led, trump))
        return sorted(hand)

    def leaf(gc, jack_team):
        hp = [0, 0]
        for team in (high, low, jack_team):
            if team >= 0:
                hp[team] += 1
        if gc[0] != gc[1]:
            hp[int(gc[1] > gc[0])] += 1
        d = list(hp)
        if bid and hp[bid_team] < bid:
            d[bid_team] = -bid
        return d[0] - d[1]

    def value(trick, leader, gc, jack_team):
        if not trick and not any(hands):
            return leaf(gc, jack_team)
        seat = (leader + len(trick)) % 4
        results = []
        for card in legal(seat, trick):
            hands[seat].remove(card)
            plays = [*trick, (seat, card)]
            if len(plays) == 4:
                winner = trick_winner(plays, trump)
                new_gc = list(gc)
                new_gc[winner & 1] += sum(GAME_COUNT[c] for _, c in plays)
                new_jack = winner & 1 if any(c == jack for _, c in plays) else jack_team
                results.append(value([], winner, new_gc, new_jack))
            else:
                results.append(value(plays, leader, gc, jack_team))
            hands[seat].add(card)
        return max(results) if seat % 2 == 0 else min(results)

    seat = (leader + len(trick)) % 4
    out = {}
    plays = [((leader + i) % 4, c) for i, c in enumerate(trick)]
    for card in legal(seat, plays):
        hands[seat].remove(card)
        nxt = [*plays, (seat, card)]
        if len(nxt) == 4:
            winner = trick_winner(nxt, trump)
            new_gc = list(gc)
            new_gc[winner & 1] += sum(GAME_COUNT[c] for _, c in nxt)
            new_jack = winner & 1 if any(c == jack for _, c in nxt) else jack_team
            out[card] = value([], winner, new_gc, new_jack)
        else:
            out[card] = value(nxt, leader, gc, jack_team)
        hands[seat].add(card)
    return out


def random_ending(rng, tricks_left, in_trick):
    deck = rng.permutation(32).tolist()
    hands = [deck[i * tricks_left : (i + 1) * tricks_left] for i in range(4)]
    leader = int(rng.integers(4))
    trick = []
    for i in range(in_trick):
        seat = (leader + i) % 4
        trick.append(hands[seat].pop())
    return hands, trick, leader


@pytest.mark.parametrize("tricks_left, in_trick", [(1, 0), (2, 0), (2, 2), (3, 0), (3, 1), (3, 3)])
def test_solver_matches_brute_force_on_small_endings(tricks_left, in_trick):
    rng = np.random.default_rng(tricks_left * 10 + in_trick)
    solver = Solver()
    for _ in range(25):
        hands, trick, leader = random_ending(rng, tricks_left, in_trick)
        trump = int(rng.integers(4))
        gc = (int(rng.integers(0, 30)), int(rng.integers(0, 30)))
        high, low, jack_team = (int(rng.integers(-1, 2)) for _ in range(3))
        bid_team, bid = int(rng.integers(2)), int(rng.choice([0, 2, 3, 4]))
        expected = brute_force(hands, trick, leader, trump, gc, jack_team, high, low, bid_team, bid)
        masks = [sum(1 << c for c in h) for h in hands]
        values = solver.card_values(masks, trick, leader, trump, gc, jack_team, high, low, bid_team, bid, False)
        got = {c: int(values[c]) for c in range(32) if values[c] > -9999}
        assert got == expected


@pytest.mark.slow
@pytest.mark.parametrize("in_trick", [0, 2])
def test_solver_matches_brute_force_on_four_trick_endings(in_trick):
    """Longer endings (a few seconds of brute force each): the bounds, the table and the move order at depth."""
    rng = np.random.default_rng(40 + in_trick)
    solver = Solver()
    for _ in range(4):
        hands, trick, leader = random_ending(rng, 4, in_trick)
        trump = int(rng.integers(4))
        gc = (int(rng.integers(0, 20)), int(rng.integers(0, 20)))
        bid_team, bid = int(rng.integers(2)), int(rng.choice([0, 2, 3, 4]))
        expected = brute_force(hands, trick, leader, trump, gc, -1, 0, 1, bid_team, bid)
        masks = [sum(1 << c for c in h) for h in hands]
        values = solver.card_values(masks, trick, leader, trump, gc, -1, 0, 1, bid_team, bid, False)
        assert {c: int(values[c]) for c in range(32) if values[c] > -9999} == expected


def test_solver_values_equal_root_cards_alike():
    """The player to act holds D7 and D8 (no card between them in play): one is searched, both get its value."""
    hands = [["7D", "8D", "AH"], ["9D", "KS", "7H"], ["QD", "TS", "8H"], ["JD", "AS", "9H"]]
    hands = [[ALL_CARDS.index(c) for c in h] for h in hands]
    args = (0, 2, (10, 12), -1, 0, 1, 0, 2)  # leader, trump H, game-count, Jack, High, Low, bidder team, bid
    expected = brute_force(hands, [], *args)
    assert expected[ALL_CARDS.index("7D")] == expected[ALL_CARDS.index("8D")]
    values = Solver().card_values([sum(1 << c for c in h) for h in hands], [], args[0], args[1], *args[2:], False)
    assert {c: int(values[c]) for c in range(32) if values[c] > -9999} == expected


def test_solver_keeps_cards_apart_that_a_card_on_the_table_separates():
    """H9 and H7 in one hand are not equivalent once H8 is on the table: H9 overtrumps it."""
    hands = [["KC", "KS"], ["9D", "8H"], ["7H", "9H"], ["QD", "JS"]]
    hands = [[ALL_CARDS.index(c) for c in h] for h in hands]
    args = (3, 2, (23, 27), 0, -1, 1, 1, 0)  # leader, trump H, game-count, Jack, High, Low, bidder team, bid
    expected = brute_force(hands, [], *args)
    assert expected == {ALL_CARDS.index("QD"): 1, ALL_CARDS.index("JS"): 1}
    values = Solver().card_values([sum(1 << c for c in h) for h in hands], [], args[0], args[1], *args[2:], False)
    assert {c: int(values[c]) for c in range(32) if values[c] > -9999} == expected


def test_solver_reusing_its_table_for_a_close_contract_gives_the_same_values():
    """value(reuse=True, guess=...) after a search of the same deal with one card swapped equals a fresh search."""
    rng = np.random.default_rng(7)
    shared, fresh = Solver(), Solver()
    for _ in range(40):
        hands, _, leader = random_ending(rng, 4, 0)
        spare = next(c for c in range(32) if all(c not in h for h in hands))
        trump = int(rng.integers(4))
        args = (
            leader,
            trump,
            (int(rng.integers(0, 20)), int(rng.integers(0, 20))),
            -1,
            -1,
            leader & 1,
            int(rng.choice([0, 2, 3])),
            False,
        )
        first = [sum(1 << c for c in h) for h in hands]
        second = list(first)
        second[leader] = second[leader] & ~(1 << hands[leader][0]) | 1 << spare  # one card swapped
        previous = shared.value(first, *args)
        assert shared.value(second, *args, reuse=True, guess=previous) == fresh.value(second, *args)


def test_solver_respects_first_lead_rule():
    solver = Solver()
    rng = np.random.default_rng(0)
    hands, _, leader = random_ending(rng, 2, 0)
    trump = hands[leader][0] >> 3
    values = solver.card_values([sum(1 << c for c in h) for h in hands], [], leader, trump, (0, 0), -1, -1, -1, 0, 0, True)
    assert {c for c in range(32) if values[c] > -9999} == {c for c in hands[leader] if c >> 3 == trump}


@pytest.mark.parametrize(
    "rules", [Rules(), Rules(kitty_size=0, high_low_in_play=True), Rules(kitty_size=1, stick_the_dealer=True)]
)
def test_pimc_plays_legal_moves_through_a_hand(rules):
    pimc = load_agent("pimc:samples=3,seconds=0.05")
    heuristic = load_agent("heuristic")
    game = Game(rules, 4)
    pimc.seed(1)
    while not game.game_over and game.hand_index < 2:
        seat = game.to_act
        agent = pimc if seat % 2 == 0 else heuristic
        action = agent.act(observe(game, seat), game.action_mask(), seat_view(game, seat))
        assert action in game.legal_actions()
        game.step(action)
    assert pimc.deals_solved > 0


def test_pimc_does_not_give_count_to_a_trick_it_cannot_win():
    """Seat 3, out of hearts, cannot beat the king of trump: it throws the 9 of spades, not a ten or an ace."""
    from scenarios import MIXED, MIXED_KITTY, act, deal

    from smear_env import action_name

    game = deal(MIXED, MIXED_KITTY, dealer=3, rules=Rules(kitty_size=0))
    act(game, "bid 2", "pass", "pass", "pass", "trump H", "AH", "7H", "8H", "JH", "KH", "8C", "TH")
    assert {action_name(a) for a in game.legal_actions()} == {"9S", "TS", "AC", "KC", "QC"}
    pimc = load_agent("pimc:samples=10")
    pimc.seed(0)
    action = pimc.act(observe(game, 3), game.action_mask(), seat_view(game, 3))
    assert action_name(action) == "9S"


def test_pimc_pauses_the_garbage_collector_only_while_it_decides():
    pimc = load_agent("pimc:samples=2,seconds=0.05")
    game = Game(Rules(), 0)
    seat = game.to_act
    observation, mask, view = observe(game, seat), game.action_mask(), seat_view(game, seat)
    try:
        for enabled in (True, False):
            (gc.enable if enabled else gc.disable)()
            pimc.act(observation, mask, view)
            assert gc.isenabled() == enabled
    finally:
        gc.enable()


SOLVER_SETTINGS = [
    {},
    {"kitty_size": 0, "high_low_in_play": True},
    {"kitty_size": 1, "stick_the_dealer": True},
    {"kitty_size": 2, "defender_cap": 12, "target_score": 13},
    {"kitty_size": 3, "win_only_on_made_bid": True, "defender_cap": 15, "high_low_in_play": True},
]


@pytest.mark.parametrize("settings", SOLVER_SETTINGS, ids=lambda s: ",".join(f"{k}={v}" for k, v in s.items()) or "default")
def test_solver_principal_lines_score_what_the_engine_scores(settings):
    """The solver against the engine, not against a second copy of the rules: from random positions
    (open cards, every rule setting), play a card of the solver's best value for the side to act
    until the hand ends, through the reference engine; the engine's score change (team 0's minus
    team 1's) equals the solver's value of the position, and every card on the line keeps it."""
    from agents.pimc import PIMCAgent

    pimc = PIMCAgent()
    rules = Rules(**settings)
    rng = np.random.default_rng(len(settings))
    checked = capped = 0
    for seed in range(12):
        game = Game(rules, seed)
        # Random play to a random point of a hand's trick play; scores carried from earlier hands.
        while not game.game_over:
            legal = game.legal_actions()
            game.step(legal[rng.integers(len(legal))])
            if game.phase == Phase.PLAY and rng.random() < 0.06:
                break
        if game.game_over:
            continue
        line = game.copy()
        if rules.defender_cap is not None:  # scores near the cap, so that R15v-b binds on some lines
            line.scores = [int(x) for x in rng.integers(rules.defender_cap - 3, rules.defender_cap + 1, size=2)]
        hands, before = line.hand_index, list(line.scores)
        expected = None
        while line.hand_index == hands and not line.game_over:
            pimc._public = None  # a new position: what its deals share is computed again
            values = pimc._play_values(line)
            legal = [c for c in range(32) if values[c] > -9999]
            assert sorted(PLAY_BASE + c for c in legal) == line.legal_actions()
            best = (max if line.to_act % 2 == 0 else min)(int(values[c]) for c in legal)
            if expected is None:
                expected = best
            assert best == expected  # the value of the line does not change along it
            line.step(PLAY_BASE + next(c for c in legal if values[c] == best))
        record = line.records[-1]
        assert record["score_before"] == before and not record["redeal"]
        change = [a - b for a, b in zip(record["score_after"], record["score_before"], strict=True)]
        assert change[0] - change[1] == expected, (seed, record["points"], record["score_before"])
        checked += 1
        capped += rules.defender_cap is not None and max(record["score_after"]) == rules.defender_cap
    assert checked >= 6
    assert capped or rules.defender_cap is None
