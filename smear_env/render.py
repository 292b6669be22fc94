"""A readable text table of a game: hands, bids, trump, the trick in progress, the running tally, scores.

:func:`render_view` draws what one seat may know (its :class:`SeatView`), so a person
playing that seat sees nothing the rules hide from it. :func:`render_table` draws a game
for a spectator (every hand) or, given a seat, that seat's view.
"""

from __future__ import annotations

from .actions import action_name
from .cards import SUITS, card_str, parse_card
from .game import Game, Phase, tally
from .rules import Rules
from .view import SeatView, seat_view

SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}


def cards_text(cards: list[str] | tuple[str, ...]) -> str:
    """Card names by suit, high to low (``AH JH 7H | KS 9S``); ``-`` for none."""
    ranked = sorted(cards, key=lambda name: (SUITS.index(name[1]), -parse_card(name)))
    groups = [" ".join(c for c in ranked if c[1] == suit) for suit in SUITS]
    return " | ".join(g for g in groups if g) or "-"


def point_rules(rules: Rules) -> dict[str, str]:
    """What earns each of the four points under these rules (R13, R13v), in words."""
    if rules.high_low_in_play:
        high, low = "the highest trump played", "the lowest trump played"
    else:
        high, low = "the ace of trump", "the 7 of trump"
    return {
        "high": f"High ({high}, to the team that played it)",
        "low": f"Low ({low}, to the team that played it)",
        "jack": "Jack (to the team that won the trick holding the jack of trump)",
        "game": "Game (more game-count in won cards: A=4 K=3 Q=2 J=1 10=10)",
    }


def render_view(view: SeatView, legal: bool = True, spectator: Game | None = None) -> str:
    """The table as seat ``view.seat`` may see it: its own hand, the other hands as card counts.

    ``spectator`` (the game itself) draws a spectator's table instead: every hand, and the
    bidder's pick-up and discards; ``legal`` adds the legal moves when it is this seat's turn.
    """
    me = None if spectator is not None else view.seat
    you = "" if me is None else f"you are seat {me} (team {me & 1})  "
    lines = [
        f"Game: {you}hand {view.hand_index}  dealer: seat {view.dealer}  "
        f"scores: team 0 (seats 0+2) {view.scores[0]}, team 1 (seats 1+3) {view.scores[1]}  "
        f"(to {view.rules.target_score}, kitty {view.rules.kitty_size})"
    ]
    lines.append("Bids: " + (", ".join(f"seat {s}: {'pass' if b == 0 else b}" for s, b in view.bids) or "none yet"))
    if view.bidder is not None and view.phase != Phase.BID:
        trump = SUIT_NAMES[view.trump] if view.trump is not None else "not declared yet"
        lines.append(f"Bidder: seat {view.bidder} bid {view.bid}; trump: {trump}")
        if spectator is not None and view.rules.kitty_size:
            picked, discarded = ([card_str(c) for c in cards] for cards in (spectator.picked_up, spectator.discards))
            lines.append(f"  seat {view.bidder} picked up {cards_text(picked)}; discarded {cards_text(discarded)}")
        elif view.picked_up is not None:
            lines.append(f"  you picked up {cards_text(view.picked_up)}; you discarded {cards_text(view.discards or ())}")
        elif view.num_discards:
            lines.append(f"  seat {view.bidder} discarded {view.num_discards} card(s) face down")
    for s in range(4):
        marks = ["you"] if s == me else []
        if s == view.dealer:
            marks.append("dealer")
        if s == view.to_act and view.phase != Phase.GAME_OVER:
            marks.append("to act")
        if spectator is not None:
            shown = cards_text([card_str(c) for c in spectator.holding[s]])
        else:
            shown = cards_text(view.hand) if s == me else f"{view.hand_sizes[s]} card{'' if view.hand_sizes[s] == 1 else 's'}"
        lines.append(f"  seat {s} (team {s & 1}){' [' + ', '.join(marks) + ']' if marks else ''}: {shown}")
    if view.trump is not None and (view.tricks or view.trick):
        lines.append(tally_text(view, me))
    if view.trick:
        lines.append("Trick: " + ", ".join(f"seat {s} {c}" for s, c in view.trick))
    if view.phase == Phase.GAME_OVER:
        lines.append("Game over")
    elif legal and view.legal_actions:
        lines.append("Legal: " + ", ".join(action_name(a) for a in view.legal_actions))
    return "\n".join(lines)


def view_tally(view: SeatView) -> tuple[list[int], dict[str, int | None], list[int]]:
    """The hand so far as a seat sees it (trump declared): tricks won by team, the team that has taken
    High, Low and Jack (None: nobody yet), and the game-count in each team's won tricks (R13)."""
    assert view.trump is not None
    tricks = [(t.leader, [(s, parse_card(c)) for s, c in t.plays], t.winner) for t in view.tricks]
    points, game_count = tally(view.rules, SUITS.index(view.trump), tricks, [(s, parse_card(c)) for s, c in view.trick])
    won = [sum(1 for t in view.tricks if t.winner & 1 == team) for team in (0, 1)]
    return won, points, list(game_count)


def tally_text(view: SeatView, me: int | None = None) -> str:
    """The hand so far: tricks won, who has taken High, Low and Jack, the game-count in won tricks
    (from ``me``'s side, or by team when None)."""

    def side(team: int | None) -> str:
        if team is None:
            return "nobody yet"
        return f"team {team}" if me is None else ("us" if team == me & 1 else "them")

    def pair(values: list[int]) -> str:
        if me is None:
            return f"team 0 {values[0]}, team 1 {values[1]}"
        return f"us {values[me & 1]}, them {values[1 - (me & 1)]}"

    won, points, game_count = view_tally(view)
    return (
        f"Tally: tricks {pair(won)}; High {side(points['high'])}, Low {side(points['low'])}, "
        f"Jack {side(points['jack'])}; game-count in won tricks {pair(game_count)}"
    )


def render_table(game: Game, seat: int | None = None, legal: bool = True) -> str:
    """The table as text: with ``seat``, only what that seat may know (:func:`render_view`);
    without, a spectator's table showing every hand."""
    if seat is not None:
        return render_view(seat_view(game, seat), legal)
    return render_view(seat_view(game, game.to_act), legal, spectator=game)
