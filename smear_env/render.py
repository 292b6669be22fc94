"""A readable text table of a game: hands, bids, trump, the trick in progress, the running tally, scores.

:func:`render_view` draws what one seat may know (its :class:`SeatView`), so a person
playing that seat sees nothing the rules hide from it. :func:`render_table` draws a game
for a spectator (every hand) or, given a seat, that seat's view. :func:`announce`,
:func:`after_move` and :func:`explain_hand` tell a person's seat the moves and the scoring in
words (the terminal and the browser table), :func:`describe_hand` sums up a hand record in a line.
"""

from __future__ import annotations

from typing import Any

from .actions import DISCARD_BASE, MAX_BID, PASS, PLAY_BASE, TRUMP_BASE, action_name, bid_action
from .cards import SUITS, card_str, parse_card
from .game import Game, Phase, Tally, tally, team_of, trick_winner
from .rules import Rules
from .view import SeatView, seat_view

SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
SUIT_SIGNS = {"C": "\u2663", "D": "\u2666", "H": "\u2665", "S": "\u2660"}


def card_face(name: str) -> str:
    """A card as its face shows it, for people: ``TH`` -> ``10\u2665``, ``QC`` -> ``Q\u2663``."""
    return ("10" if name[0] == "T" else name[0]) + SUIT_SIGNS[name[1]]


def action_words(action: int) -> str:
    """An action as a person reads it (the web table's messages): ``action_name`` with its card as the face shows
    it and its suit by name (``discard 10\u2665``, ``Q\u2663``, ``trump hearts``); ``action_name`` stays the machine's."""
    name = action_name(action)
    if name.startswith("trump "):
        return "trump " + SUIT_NAMES[name[-1]]
    head, _, last = name.rpartition(" ")
    if len(last) == 2 and last[1] in SUIT_SIGNS:
        return (head + " " if head else "") + card_face(last)
    return name


def faces_text(cards: list[str] | tuple[str, ...]) -> str:
    """Card names as faces, by suit, high to low (``A\u2665 J\u2665 7\u2665 K\u2660``); ``none`` for none."""
    ranked = sorted(cards, key=lambda name: (SUITS.index(name[1]), -parse_card(name)))
    return " ".join(card_face(c) for c in ranked) or "none"


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
    you = "" if me is None else f"you are seat {me} (team {team_of(me)})  "
    lines = [
        f"Game: {you}hand {view.hand_index + 1}  dealer: seat {view.dealer}  "  # counted from 1, for people
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
            if s == me and "|" in shown:
                shown += "  (by suit, high to low; | between suits)"
        lines.append(f"  seat {s} (team {team_of(s)}){' [' + ', '.join(marks) + ']' if marks else ''}: {shown}")
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
    won = [sum(1 for t in view.tricks if team_of(t.winner) == team) for team in (0, 1)]
    return won, points, list(game_count)


def tally_text(view: SeatView, me: int | None = None) -> str:
    """The hand so far: tricks won, who has taken High, Low and Jack, the game-count in won tricks
    (from ``me``'s side, or by team when None)."""

    def side(team: int | None) -> str:
        if team is None:
            return "nobody yet"
        return f"team {team}" if me is None else ("us" if team == team_of(me) else "them")

    def pair(values: list[int]) -> str:
        if me is None:
            return f"team 0 {values[0]}, team 1 {values[1]}"
        return f"us {values[team_of(me)]}, them {values[1 - team_of(me)]}"

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


# ---------------------------------------------------------------------- a hand told to a person


def seat_words(seat: int, me: int) -> str:
    """``seat`` as the player in seat ``me`` calls it: "you", "your partner", or the opponent on "your left"
    (who plays after you, R3) or "your right"."""
    return ("you", "your left-hand opponent", "your partner", "your right-hand opponent")[(seat - me) % 4]


def _who(seat: int, me: int, relative: bool) -> str:
    """``seat`` said to ``me``: "you", else by where it sits from ``me`` (``relative``) or by its number."""
    return seat_words(seat, me) if relative or seat == me else f"seat {seat}"


def _capital(words: str) -> str:
    return words[:1].upper() + words[1:]


def announce(game: Game, seat: int, action: int, me: int, faces: bool = False, relative: bool = False) -> str:
    """What the table sees of ``seat``'s move, said to ``me`` (called before the move is made); cards by their
    codes (``TH``, what a terminal player types) or, with ``faces``, as their faces show them (``10\u2665``);
    the other seats by number, or with ``relative`` by where they sit ("Your partner", :func:`seat_words`)."""
    who = _capital(_who(seat, me, relative))
    name = (lambda card: card_face(card_str(card))) if faces else card_str
    if game.phase == Phase.BID:
        return f"{who}: {action_name(action)}"
    if game.phase == Phase.TRUMP:
        return f"{who} declared trump: {SUIT_NAMES[SUITS[action - TRUMP_BASE]]}"
    if game.phase == Phase.DISCARD:
        # R10 and "Who knows what": only the bidder sees its discards.
        left = len(game.holding[seat]) - 6 - 1
        shown = name(action - DISCARD_BASE) if seat == me else "a card face down"
        return f"{who} discarded {shown}" + (f" ({left} more to go)" if left else "")
    return f"{who} played {name(action - PLAY_BASE)}"


def after_move(game: Game, seat: int, action: int, me: int, faces: bool = False, relative: bool = False) -> list[str]:
    """What the table learns from ``seat``'s move beyond the move itself: a trick won, a kitty
    picked up (called before the move is made); ``faces`` and ``relative`` as for :func:`announce`."""
    lines = []
    name = (lambda card: card_face(card_str(card))) if faces else card_str
    many = faces_text if faces else cards_text
    if game.phase == Phase.PLAY and len(game.trick) == 3:
        plays = [*game.trick, (seat, action - PLAY_BASE)]
        assert game.trump is not None
        winner = trick_winner(plays, game.trump)
        who = _who(winner, me, relative)
        team = "your team" if team_of(winner) == team_of(me) else "the other team"
        lines.append(f"Trick {len(game.tricks) + 1} won by {who} with {name(dict(plays)[winner])} ({team}).")
    ends_bidding = game.phase == Phase.BID and (seat == game.dealer or action == bid_action(MAX_BID))
    if ends_bidding and (action != PASS or game.bidder is not None):
        bidder = seat if action != PASS else game.bidder
        assert bidder is not None  # a pass ends the bidding with a bidder only when there is one
        k = game.rules.kitty_size
        if bidder == me:
            picked = many([card_str(c) for c in game.kitty[:k]])
            lines.append(f"You are the bidder; you pick up from the kitty: {picked}")
        else:
            cards = f"{k} kitty card{'' if k == 1 else 's'}"
            lines.append(f"{_capital(_who(bidder, me, relative))} is the bidder and picks up {cards} face down.")
    return lines


def explain_hand(record: dict[str, Any], seat: int, rules: Rules | None = None) -> str:
    """The scoring of a finished hand in words, from a hand record, as seat ``seat`` may know it."""
    if record["redeal"]:
        return "Everyone passed: the hand is thrown in and the same dealer deals again."
    mine = team_of(seat)
    described = point_rules(rules or Rules.from_dict({k: v for k, v in record["rules"].items() if k in Rules.field_names()}))

    def who(team):
        return "nobody" if team is None else ("your team" if team == mine else "the other team")

    lines = [f"Hand over. Seat {record['bidder']} bid {record['bid']} in {SUIT_NAMES[record['trump']]}."]
    for category, team in record["points"].items():
        lines.append(f"  {described[category]}: {who(team)}")
    gc = record["game_count"]
    lines.append(
        f"  Game-count: your team {gc[mine]}, the other team {gc[1 - mine]} (the bidder's discards count for the bidder)"
    )
    hp = record["hand_points"]
    bidder_team = team_of(record["bidder"])
    verdict = "made its bid" if record["made_bid"] else "was SET and loses its bid"
    lines.append(
        f"  Points taken: your team {hp[mine]}, the other team {hp[1 - mine]}; the bidder's team ({who(bidder_team)}) {verdict}."
    )
    before, after = record["score_before"], record["score_after"]
    lines.append(f"  Score: your team {before[mine]} -> {after[mine]}, the other team {before[1 - mine]} -> {after[1 - mine]}")
    return "\n".join(lines)


def point_details(record: dict[str, Any]) -> list[dict[str, Any]]:
    """The four points of a played hand, each with who took it and by which card (the engine's own account,
    :class:`smear_env.game.Tally`): High and Low the card and the seat that played it, Jack the seat that won
    the trick holding it, Game each team's game-count (the bidder's discards included). Rows of ``point``,
    ``team`` (None: nobody), ``seat``, ``card`` (a code, or None) and, for Game, ``counts``."""
    rules = Rules.from_dict({k: v for k, v in record["rules"].items() if k in Rules.field_names()})
    account = Tally(SUITS.index(record["trump"]), rules.high_low_in_play)
    jack: tuple[int, int] | None = None
    for trick in record["tricks"]:
        plays = [(s, parse_card(c)) for s, c in trick["plays"]]
        account.add_trick(plays, trick["winner"])
        if any(c == f"J{record['trump']}" for _, c in trick["plays"]):
            jack = (parse_card(f"J{record['trump']}"), trick["winner"])
    points = record["points"]

    def row(point: str, held: tuple[int, int] | None) -> dict[str, Any]:
        seat = None if held is None else held[1]
        return {"point": point, "team": points[point], "seat": seat, "card": None if held is None else card_str(held[0])}

    return [
        row("high", account.high),
        row("low", account.low),
        row("jack", jack),
        {"point": "game", "team": points["game"], "seat": None, "card": None, "counts": list(record["game_count"])},
    ]


def describe_hand(record: dict[str, Any]) -> str:
    """One line saying what happened in a hand record."""
    head = f"{record['game_id']} hand {record['hand_index']:>3} dealer {record['dealer']}: "
    if record["redeal"]:
        return head + "all passed, redeal"
    points = " ".join(f"{k}:{'-' if v is None else 'T' + str(v)}" for k, v in record["points"].items())
    made = "made" if record["made_bid"] else "SET"
    end = f"  GAME OVER, team {record['winner']} wins" if record["game_over"] else ""
    return (
        head + f"seat {record['bidder']} bid {record['bid']} in {record['trump']}, {made}; {points}; "
        f"score {record['score_before']} -> {record['score_after']}{end}"
    )
