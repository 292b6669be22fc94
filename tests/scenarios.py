"""Scripted deals for the rule tests: hands written as card names, actions as short names."""

from __future__ import annotations

from smear_env import Game, Rules, parse_action, parse_card

# Deal A: every seat holds the top six of one suit; the kitty holds the 8s and 7s.
SUITED = ["AH KH QH JH TH 9H", "AS KS QS JS TS 9S", "AD KD QD JD TD 9D", "AC KC QC JC TC 9C"]
SUITED_KITTY = "8H 7H 8S 7S 8D 7D 8C 7C"

# Deal B: mixed; seat 0 is strong in hearts (see test_rules.py for the scripted hand).
MIXED = ["AH KH QH 9H AS KS", "7H JS QS 8C 9C TC", "TH 8H AD KD QD JD", "JH 9S TS AC KC QC"]
MIXED_KITTY = "JC 7C 9D 8D 7D TD 7S 8S"


def deal(hands: list[str], kitty: str, dealer: int = 3, rules: Rules | None = None, scores=(0, 0), hand_index: int = 0) -> Game:
    """A game at the start of the given deal."""
    return Game.at_hand(
        rules or Rules(),
        dealer,
        [[parse_card(c) for c in h.split()] for h in hands],
        [parse_card(c) for c in kitty.split()],
        scores,
        hand_index,
        rng=0,
    )


def act(game: Game, *names: str) -> None:
    """Take actions given by short names ("bid 2", "pass", "trump H", "discard 8S", "AH")."""
    for name in names:
        game.step(parse_action(name))


def legal_names(game: Game) -> set[str]:
    """The legal actions as short names."""
    from smear_env import action_name

    return {action_name(a) for a in game.legal_actions()}


def play_tricks(game: Game, *tricks: str) -> None:
    """Play tricks given as four cards each, in play order."""
    for trick in tricks:
        act(game, *trick.split())


def mixed_hand(rules: Rules | None = None, scores=(0, 0)) -> Game:
    """Deal B played out: seat 0 bids 2 in hearts with no kitty; team 0 takes High, Jack, Game; team 1 Low."""
    rules = rules or Rules(kitty_size=0)
    game = deal(MIXED, MIXED_KITTY, dealer=3, rules=rules, scores=scores)
    act(game, "bid 2", "pass", "pass", "pass", "trump H")
    play_tricks(
        game,
        "AH 7H 8H JH",  # seat 1 must trump with its only heart, the 7: Low to team 1; seat 3's jack is captured
        "KH 8C TH 9S",
        "AS QS JD TS",
        "KS JS QD AC",  # seat 3 shows it has no spades and no hearts
        "QH 9C KD KC",
        "9H TC AD QC",
    )
    return game


def suited_hand(bid: int, rules: Rules | None = None, scores=(0, 0), dealer: int = 0) -> Game:
    """Deal A with seat 1 (spades) bidding ``bid`` in spades, no kitty: team 1 takes High, Jack, Game (3); Low is in the kitty."""
    rules = rules or Rules(kitty_size=0)
    game = deal(SUITED, SUITED_KITTY, dealer=dealer, rules=rules, scores=scores)
    assert game.to_act == 1
    act(game, f"bid {bid}")
    if bid < 4:
        act(game, "pass", "pass", "pass")
    act(game, "trump S")
    play_tricks(game, "AS 9D 9C 9H", "KS TD TC TH", "QS JD JC JH", "JS QD QC QH", "TS KD KC KH", "9S AD AC AH")
    return game
