"""Scripted scenarios, one or more per rule of docs/rules.md, named after the rule id."""

from __future__ import annotations

import numpy as np
import pytest
from scenarios import MIXED, MIXED_KITTY, SUITED, SUITED_KITTY, act, deal, legal_names, mixed_hand, play_tricks, suited_hand

from smear_env import ALL_CARDS, Game, IllegalActionError, Phase, Rules, parse_card
from smear_env.game import score_hand


def test_r1_deck_has_32_cards_seven_to_ace():
    assert len(set(ALL_CARDS)) == 32
    assert {c[0] for c in ALL_CARDS} == set("789TJQKA")
    for bad in ("6H", "JX", "J", "10H", "jh"):
        with pytest.raises(ValueError, match="bad card"):
            parse_card(bad)


def test_r2_teams_sit_opposite_and_play_goes_clockwise():
    game = deal(SUITED, SUITED_KITTY, dealer=3)
    assert game.to_act == 0
    act(game, "pass")
    assert game.to_act == 1
    act(game, "pass")
    assert game.to_act == 2
    game = mixed_hand()
    # Seat 0 (team 0) and seat 2 (team 0) share High, Jack and Game.
    assert game.records[-1]["points"] == {"high": 0, "low": 1, "jack": 0, "game": 0}


def test_r3_first_dealer_drawn_from_seed_and_deal_passes_left():
    dealers = {Game(Rules(), seed).dealer for seed in range(40)}
    assert dealers == {0, 1, 2, 3}
    assert Game(Rules(), 7).dealer == Game(Rules(), 7).dealer
    game = suited_hand(2, dealer=0)
    assert game.dealer == 1  # scored hand: the deal passes left


def test_r3_r7_all_pass_redeal_by_same_dealer():
    game = deal(SUITED, SUITED_KITTY, dealer=2)
    act(game, "pass", "pass", "pass", "pass")
    assert game.dealer == 2 and game.hand_index == 1 and game.phase == Phase.BID
    record = game.records[-1]
    assert record["redeal"] is True and record["bidder"] is None and record["tricks"] is None
    assert record["score_after"] == [0, 0]
    assert game.to_act == 3  # left of the same dealer


def test_r4_deal_six_cards_each_and_eight_in_kitty():
    game = Game(Rules(), 5)
    assert [len(h) for h in game.holding] == [6, 6, 6, 6]
    assert len(game.kitty) == 8
    assert sorted(c for h in game.holding for c in h) == sorted(set(range(32)) - set(game.kitty))


@pytest.mark.parametrize("k", [0, 1, 2, 3])
def test_r5_r8_bidder_picks_up_kitty_size_cards(k):
    game = deal(SUITED, SUITED_KITTY, dealer=3, rules=Rules(kitty_size=k))
    act(game, "bid 2", "pass", "pass", "pass")
    assert game.phase == Phase.TRUMP
    assert len(game.holding[0]) == 6 + k
    assert game.picked_up == [parse_card(c) for c in SUITED_KITTY.split()[:k]]
    act(game, "trump H")
    assert game.phase == (Phase.PLAY if k == 0 else Phase.DISCARD)


def test_r6_each_bid_must_be_higher_and_one_turn_each():
    game = deal(SUITED, SUITED_KITTY, dealer=3)
    assert legal_names(game) == {"pass", "bid 2", "bid 3", "bid 4"}
    act(game, "bid 3")
    assert legal_names(game) == {"pass", "bid 4"}
    with pytest.raises(IllegalActionError, match="seat 1"):
        act(game, "bid 2")
    act(game, "pass", "pass", "pass")  # the dealer's turn ends the bidding
    assert game.bids == [(0, 3), (1, 0), (2, 0), (3, 0)]
    assert game.bidder == 0 and game.high_bid == 3 and game.phase == Phase.TRUMP


def test_r7_bid_of_4_ends_bidding_early():
    game = deal(SUITED, SUITED_KITTY, dealer=3)
    act(game, "pass", "bid 4")
    assert game.bids == [(0, 0), (1, 4)]  # seats 2 and 3 get no turn
    assert game.phase == Phase.TRUMP and game.bidder == 1


def test_r7v_stick_the_dealer_must_bid():
    game = deal(SUITED, SUITED_KITTY, dealer=3, rules=Rules(stick_the_dealer=True))
    act(game, "pass", "pass", "pass")
    assert legal_names(game) == {"bid 2", "bid 3", "bid 4"}
    with pytest.raises(IllegalActionError):
        act(game, "pass")
    # Without the variant the dealer may pass.
    game = deal(SUITED, SUITED_KITTY, dealer=3)
    act(game, "pass", "pass", "pass")
    assert "pass" in legal_names(game)
    # When someone already bid, the stuck dealer may pass.
    game = deal(SUITED, SUITED_KITTY, dealer=3, rules=Rules(stick_the_dealer=True))
    act(game, "bid 2", "pass", "pass")
    assert "pass" in legal_names(game)


def test_r8_unpicked_kitty_counts_for_nobody():
    # Deal A in spades: the 7 of spades stays in the kitty, so Low goes to nobody.
    game = suited_hand(2)
    assert game.records[-1]["points"]["low"] is None
    assert game.records[-1]["game_count"] == [0, 80]


def test_r9_trump_must_be_held_and_led_first():
    game = deal(MIXED, MIXED_KITTY, dealer=3, rules=Rules(kitty_size=0))
    act(game, "bid 2", "pass", "pass", "pass")
    assert legal_names(game) == {"trump H", "trump S"}  # the suits seat 0 holds
    act(game, "trump S")
    assert legal_names(game) == {"AS", "KS"}  # the first lead is a trump


def test_r10_discard_down_to_six_and_no_trump_unless_more_than_six():
    game = deal(SUITED, SUITED_KITTY, dealer=3, rules=Rules(kitty_size=3))
    act(game, "bid 2", "pass", "pass", "pass", "trump S")
    # Seat 0 holds six hearts plus 8H 7H 8S: one trump (8S) only, so it may not be discarded.
    assert "discard 8S" not in legal_names(game)
    act(game, "discard 9H", "discard 8H", "discard 7H")
    assert game.phase == Phase.PLAY and len(game.holding[0]) == 6


def test_r10_trump_discard_allowed_with_more_than_six_trumps():
    game = deal(SUITED, SUITED_KITTY, dealer=3, rules=Rules(kitty_size=3))
    act(game, "bid 2", "pass", "pass", "pass", "trump H")
    # Eight hearts in nine cards: trumps may go while more than six remain.
    assert {"discard 8S", "discard 9H", "discard 8H"} <= legal_names(game)
    act(game, "discard 9H")
    assert "discard 7H" in legal_names(game)  # still seven trumps
    act(game, "discard 8H")
    assert legal_names(game) == {"discard 8S"}  # six trumps left: only the spade may go
    act(game, "discard 8S")
    assert game.phase == Phase.PLAY


def test_r10_discards_count_for_game_but_earn_no_high_low_jack():
    game = deal(SUITED, SUITED_KITTY, dealer=3, rules=Rules(kitty_size=3))
    act(game, "bid 2", "pass", "pass", "pass", "trump H")
    act(game, "discard 7H", "discard 9H", "discard 8S")  # the 7 of trump is discarded
    play_tricks(game, "AH 9S 9D 9C", "KH TS TD TC", "QH JS JD JC", "JH QS QD QC", "TH KS KD KC", "8H AS AD AC")
    record = game.records[-1]
    assert record["discards"] == ["7H", "9H", "8S"]
    assert record["points"] == {"high": 0, "low": None, "jack": 0, "game": 0}
    assert record["hand_points"] == [3, 0]


def test_r11_must_follow_suit_or_trump_and_void_plays_anything():
    game = deal(MIXED, MIXED_KITTY, dealer=3, rules=Rules(kitty_size=0))
    act(game, "bid 2", "pass", "pass", "pass", "trump H")
    act(game, "AH")
    assert legal_names(game) == {"7H"}  # trump led: play a trump if you have one
    act(game, "7H")
    assert legal_names(game) == {"TH", "8H"}
    act(game, "8H", "JH")
    act(game, "AS")  # spade led
    assert legal_names(game) == {"QS", "JS"}  # seat 1 follows spades (it has no trump left)
    act(game, "QS")
    assert legal_names(game) == {"TH", "AD", "KD", "QD", "JD"}  # seat 2: no spade, any card
    act(game, "TH")  # trumping is always allowed
    assert legal_names(game) == {"9S", "TS"}
    with pytest.raises(IllegalActionError, match="legal are"):
        act(game, "AC")


def test_r11_void_inference():
    game = deal(MIXED, MIXED_KITTY, dealer=3, rules=Rules(kitty_size=0))
    act(game, "bid 2", "pass", "pass", "pass", "trump H")
    play_tricks(game, "AH 7H 8H JH", "KH 8C TH 9S")
    # Seat 1 played a club on a heart (trump) lead: it has no hearts; trumping reveals nothing.
    assert game.voids[1][2] is True and game.voids[2] == [False] * 4


def test_r12_trick_winner_function():
    from smear_env.game import trick_winner

    c = parse_card
    hearts = 2
    assert trick_winner([(0, c("AS")), (1, c("7H")), (2, c("KS")), (3, c("QS"))], hearts) == 1  # any trump beats the suit led
    assert trick_winner([(0, c("9S")), (1, c("AD")), (2, c("KS")), (3, c("QS"))], hearts) == 2  # off-suit ace loses
    assert trick_winner([(0, c("8H")), (1, c("7H")), (2, c("JH")), (3, c("AS"))], hearts) == 2  # highest trump
    assert trick_winner([(2, c("TC")), (3, c("9C")), (0, c("AC")), (1, c("8D"))], hearts) == 0


def test_r12_six_tricks_winner_leads_next():
    game = mixed_hand()
    tricks = game.records[-1]["tricks"]
    assert len(tricks) == 6
    for before, after in zip(tricks, tricks[1:], strict=False):
        assert after["leader"] == before["winner"]


def test_r13_high_low_jack_game():
    game = mixed_hand()
    record = game.records[-1]
    # High: team 0 played the ace. Low: team 1 PLAYED the 7 (team 0 won it). Jack: team 0 WON the trick holding it.
    assert record["points"] == {"high": 0, "low": 1, "jack": 0, "game": 0}
    assert record["game_count"] == [69, 0]  # 80 less the kitty's JC and TD
    assert record["hand_points"] == [3, 1]


def test_r13_game_count_tie_awards_nobody():
    c = parse_card
    hearts = 2
    tricks = [
        (0, [(0, c("TH")), (1, c("8H")), (2, c("9H")), (3, c("7S"))], 0),
        (0, [(0, c("7H")), (1, c("TD")), (2, c("9D")), (3, c("8D"))], 1),
    ]
    points, game_count = score_hand(Rules(), hearts, tricks, bidder=0, discards=[])
    assert game_count == [10, 10] and points["game"] is None


def test_r13_point_cards_never_played_award_nobody():
    c = parse_card
    tricks = [(0, [(0, c("KH")), (1, c("8H")), (2, c("9H")), (3, c("AS"))], 0)]
    points, _ = score_hand(Rules(), 2, tricks, bidder=0, discards=[c("AH"), c("JH")])
    assert points["high"] is None and points["low"] is None and points["jack"] is None
    _, game_count = score_hand(Rules(), 2, tricks, bidder=1, discards=[c("AH"), c("JH")])
    assert game_count == [3 + 4, 5]  # discards add to the bidder's team


def test_r13v_high_low_in_play():
    game = suited_hand(2, rules=Rules(kitty_size=0, high_low_in_play=True))
    # Spades AS..9S all played by seat 1: highest and lowest trump played are both team 1's.
    assert game.records[-1]["points"] == {"high": 1, "low": 1, "jack": 1, "game": 1}
    game = mixed_hand(rules=Rules(kitty_size=0, high_low_in_play=True))
    assert game.records[-1]["points"]["low"] == 1  # 7H is still the lowest trump played


def test_r14_made_bid_adds_all_points_taken():
    game = mixed_hand()
    assert game.records[-1]["made_bid"] is True
    assert game.scores == [3, 1]  # bid 2, took 3: adds 3; the defenders add their 1


def test_r14_set_bidder_goes_negative():
    game = suited_hand(4, scores=(2, 1))
    record = game.records[-1]
    assert record["hand_points"] == [0, 3] and record["made_bid"] is False
    assert game.scores == [2, -3]  # set: 1 - 4


def test_r15_team_reaching_target_wins():
    game = mixed_hand(scores=(12, 0))
    assert game.game_over and game.winner == 0 and game.records[-1]["game_over"] is True


def test_r15_both_over_target_bidder_team_wins():
    game = mixed_hand(scores=(12, 14))
    assert game.scores == [15, 15]
    assert game.winner == 0  # the bidder's team


def test_r15_defenders_can_win_by_default():
    game = mixed_hand(scores=(0, 14))
    assert game.winner == 1


def test_r15v_a_win_only_on_made_bid():
    rules = Rules(kitty_size=0, win_only_on_made_bid=True)
    game = mixed_hand(rules=rules, scores=(0, 14))
    assert game.scores == [3, 15] and game.winner is None and not game.game_over
    game = mixed_hand(rules=rules, scores=(12, 14))
    assert game.winner == 0
    # A set bidder's team cannot win, even over the target.
    game = suited_hand(4, rules=Rules(kitty_size=0, win_only_on_made_bid=True), scores=(20, 14))
    assert game.winner is None


def test_r15v_b_defender_cap():
    game = mixed_hand(rules=Rules(kitty_size=0, defender_cap=10), scores=(0, 10))
    assert game.scores == [3, 10]  # the defenders' 11 is capped at 10
    game = mixed_hand(rules=Rules(kitty_size=0, defender_cap=10), scores=(9, 0))
    assert game.scores == [12, 1]  # the bidder's team is not capped


def test_r16_length_guard_truncates():
    game = deal(SUITED, SUITED_KITTY, dealer=3, rules=Rules(max_hands=2))
    act(game, "pass", "pass", "pass", "pass")
    assert not game.game_over
    act(game, "pass", "pass", "pass", "pass")
    assert game.game_over and game.truncated and game.winner is None


def test_illegal_action_leaves_game_unchanged():
    game = deal(SUITED, SUITED_KITTY, dealer=3)
    before = game.copy().__dict__.copy()
    for bad in (72, -1, "bid 2", 3.5, None, 44):
        with pytest.raises(IllegalActionError, match="seat 0 cannot take action"):
            game.step(bad)
    assert game.bids == before["bids"] and game.phase == Phase.BID and game.to_act == 0


def test_rules_validation_names_the_setting():
    with pytest.raises(ValueError, match="kitty_size=5.*0 to 3"):
        Rules(kitty_size=5)
    with pytest.raises(ValueError, match="unknown rule setting.*kitty"):
        Rules.from_dict({"kitty": 3})
    with pytest.raises(ValueError, match="stick_the_dealer"):
        Rules(stick_the_dealer=1)
    with pytest.raises(ValueError, match="kitty_size"):
        Rules(kitty_size=True)
    with pytest.raises(ValueError, match="defender_cap"):
        Rules(defender_cap="15")
    with pytest.raises(AttributeError):
        Rules().kitty_size = 2  # immutable


def test_copy_is_independent():
    game = Game(Rules(), 3)
    other = game.copy()
    other.step(other.legal_actions()[0])
    assert game.bids == [] and len(other.bids) == 1
    rng = np.random.default_rng(0)
    while not other.game_over and other.hand_index == game.hand_index:
        legal = other.legal_actions()
        other.step(legal[rng.integers(len(legal))])
    assert game.holding != other.holding or game.hand_index != other.hand_index


def test_r11_throwing_off_while_holding_trump_reveals_only_the_suit_led():
    game = deal(MIXED, MIXED_KITTY, dealer=3, rules=Rules(kitty_size=0))
    act(game, "bid 2", "pass", "pass", "pass", "trump H")
    play_tricks(game, "AH 7H 8H JH")
    act(game, "AS", "QS", "JD")  # seat 2 holds TH but, out of spades, may throw a diamond
    assert game.voids[2] == [False, False, False, True]  # void in spades only; it still holds a trump


@pytest.mark.parametrize("rules", [Rules(), Rules(high_low_in_play=True)], ids=["default", "r13v"])
def test_r13_point_details_name_the_cards_the_engine_counted(rules):
    """The summary a person reads (``render.point_details``): each point's side is the record's, High and Low the
    trump played by a seat of that side (the ace and the seven unless R13v), Jack the jack of trump won by that side."""
    from smear_env.records import play_random_games
    from smear_env.render import point_details

    checked = 0
    for record in play_random_games(rules, 6, seed=13):
        if record["redeal"]:
            continue
        rows = {row["point"]: row for row in point_details(record)}
        assert {k: rows[k]["team"] for k in rows} == record["points"]
        played = {card: seat for trick in record["tricks"] for seat, card in trick["plays"]}
        for point, rank in (("high", "A"), ("low", "7")):
            row = rows[point]
            if row["team"] is None:
                assert row["card"] is None
                continue
            assert row["card"][1] == record["trump"] and played[row["card"]] == row["seat"] and row["seat"] % 2 == row["team"]
            if not rules.high_low_in_play:
                assert row["card"][0] == rank
        jack = rows["jack"]
        if jack["team"] is not None:
            winner = next(t["winner"] for t in record["tricks"] if jack["card"] in [c for _, c in t["plays"]])
            assert jack["card"] == "J" + record["trump"] and jack["seat"] == winner and winner % 2 == jack["team"]
        assert rows["game"]["counts"] == record["game_count"]
        checked += 1
    assert checked > 10
