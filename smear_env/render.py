"""A readable text table of a game: hands, bids, trump, the trick in progress, scores."""

from __future__ import annotations

from .actions import action_name
from .cards import ALL_CARDS, SUITS
from .game import Game, Phase

SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}


def _hand_text(cards: list[int]) -> str:
    by_suit = []
    for u in range(4):
        ranks = "".join(ALL_CARDS[c][0] for c in sorted((c for c in cards if c >> 3 == u), reverse=True))
        if ranks:
            by_suit.append(f"{SUITS[u]}:{ranks}")
    return " ".join(by_suit) or "-"


def render_table(game: Game, seat: int | None = None) -> str:
    """The table as text; with ``seat`` only that seat's hand is shown (the others as counts)."""
    lines = [
        f"Game {game.game_id}  hand {game.hand_index}  dealer: seat {game.dealer}  "
        f"scores: team 0 (seats 0+2) {game.scores[0]}, team 1 (seats 1+3) {game.scores[1]}  "
        f"(to {game.rules.target_score}, kitty {game.rules.kitty_size})"
    ]
    bids = ", ".join(f"seat {s}: {'pass' if b == 0 else b}" for s, b in game.bids) or "none yet"
    lines.append(f"Bids: {bids}")
    if game.bidder is not None and game.phase != Phase.BID:
        trump = SUIT_NAMES[SUITS[game.trump]] if game.trump is not None else "not declared yet"
        lines.append(f"Bidder: seat {game.bidder} bid {game.high_bid}; trump: {trump}")
    for s in range(4):
        marks = []
        if s == game.dealer:
            marks.append("dealer")
        if s == game.to_act and game.phase != Phase.GAME_OVER:
            marks.append("to act")
        shown = _hand_text(game.holding[s]) if seat is None or seat == s else f"{len(game.holding[s])} cards"
        lines.append(f"  seat {s} (team {s & 1}){' [' + ', '.join(marks) + ']' if marks else ''}: {shown}")
    if game.tricks:
        won = [sum(1 for t in game.tricks if t[2] & 1 == team) for team in (0, 1)]
        lines.append(f"Tricks: {len(game.tricks)} played, team 0 won {won[0]}, team 1 won {won[1]}")
    if game.trick:
        lines.append("Trick: " + ", ".join(f"seat {s} {ALL_CARDS[c]}" for s, c in game.trick))
    if game.phase == Phase.GAME_OVER:
        lines.append("Game over: " + ("truncated (R16)" if game.truncated else f"team {game.winner} wins"))
    elif seat is None or seat == game.to_act:
        lines.append("Legal: " + ", ".join(action_name(a) for a in game.legal_actions()))
    return "\n".join(lines)
