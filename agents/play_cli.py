"""``smear-play``: a person plays one seat in the terminal against agents.

The screen shows only what the person's seat may know (docs/rules.md "Who knows what"): the
table is drawn from its seat view, other seats' moves are announced as the table sees
them (another bidder's discards as a count, never the cards), and each hand ends with
its scoring in words.
"""

from __future__ import annotations

import argparse
import select
import sys
from collections.abc import Callable
from typing import Any

from smear_env import Game, Phase, Rules, action_name, observe, parse_action, seat_view
from smear_env.actions import DISCARD_BASE, MAX_BID, PASS, PLAY_BASE, TRUMP_BASE, bid_action
from smear_env.cards import SUITS, card_str
from smear_env.cli import add_rule_flags, add_version_flag, rules_from_args
from smear_env.game import game_label, game_rng, run_entropy, trick_winner
from smear_env.records import write_records
from smear_env.render import SUIT_NAMES, cards_text, point_rules, render_view

from .base import load_agent

HELP = "Type a move as listed (e.g. 'pass', 'bid 3', 'trump H', 'discard 7C' or just '7C', 'JH'), its number, 'help' or 'quit'."


def explain_hand(record: dict[str, Any], seat: int, rules: Rules | None = None) -> str:
    """The scoring of a finished hand in words, from a hand record, as seat ``seat`` may know it."""
    if record["redeal"]:
        return "Everyone passed: the hand is thrown in and the same dealer deals again."
    mine = seat & 1
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
    bidder_team = record["bidder"] & 1
    verdict = "made its bid" if record["made_bid"] else "was SET and loses its bid"
    lines.append(
        f"  Points taken: your team {hp[mine]}, the other team {hp[1 - mine]}; the bidder's team ({who(bidder_team)}) {verdict}."
    )
    before, after = record["score_before"], record["score_after"]
    lines.append(f"  Score: your team {before[mine]} -> {after[mine]}, the other team {before[1 - mine]} -> {after[1 - mine]}")
    return "\n".join(lines)


def read_line(prompt: str) -> str:
    """``input(prompt)`` that Ctrl-C interrupts at once: the process has other threads (numpy's), and
    a SIGINT the kernel hands to one of them would not wake a main thread blocked in ``read``."""
    print(prompt, end="", flush=True)
    while not select.select([sys.stdin], [], [], 0.2)[0]:
        pass  # signal handlers run between these waits
    line = sys.stdin.readline()
    if not line:
        raise EOFError
    return line.rstrip("\n")


def ask(legal: list[int], read: Callable[[str], str] = read_line) -> int | None:
    """Read a legal move, listing the legal moves once per prompt; re-prompt on anything else.
    A bare card name also names a discard. None when the player quits or input ends."""
    names = [action_name(a) for a in legal]
    while True:
        print("Legal: " + ", ".join(f"{i}) {n}" for i, n in enumerate(names, 1)))
        try:
            text = read("Your move> ").strip()
        except EOFError:
            return None
        if text in ("quit", "exit", "q"):
            return None
        if text in ("help", "?", ""):
            print(HELP)
            continue
        if text.isdigit():
            if 1 <= int(text) <= len(legal):
                return legal[int(text) - 1]
            print(f"There is no move number {text}: choose 1 to {len(legal)}.")
            continue
        try:
            action = parse_action(text)
        except ValueError as e:
            print(f"Not understood: {e}.")
            continue
        if action >= PLAY_BASE and action not in legal and action - PLAY_BASE + DISCARD_BASE in legal:
            action = action - PLAY_BASE + DISCARD_BASE  # a card name while discarding
        if action not in legal:
            print(f"'{action_name(action)}' is not legal now. {HELP}")
            continue
        return action


def announce(game: Game, seat: int, action: int, me: int) -> str:
    """What the table sees of ``seat``'s move, said to ``me`` (called before the move is made)."""
    who = "You" if seat == me else f"Seat {seat}"
    if game.phase == Phase.BID:
        return f"{who}: {action_name(action)}"
    if game.phase == Phase.TRUMP:
        return f"{who} declared trump: {SUIT_NAMES[SUITS[action - TRUMP_BASE]]}"
    if game.phase == Phase.DISCARD:
        # R10 and "Who knows what": only the bidder sees its discards.
        left = len(game.holding[seat]) - 6 - 1
        shown = card_str(action - DISCARD_BASE) if seat == me else "a card face down"
        return f"{who} discarded {shown}" + (f" ({left} more to go)" if left else "")
    return f"{who} played {card_str(action - PLAY_BASE)}"


def after_move(game: Game, seat: int, action: int, me: int) -> list[str]:
    """What the table learns from ``seat``'s move beyond the move itself: a trick won, a kitty
    picked up (called before the move is made)."""
    lines = []
    if game.phase == Phase.PLAY and len(game.trick) == 3:
        plays = [*game.trick, (seat, action - PLAY_BASE)]
        assert game.trump is not None
        winner = trick_winner(plays, game.trump)
        who = "you" if winner == me else f"seat {winner}"
        team = "your team" if winner & 1 == me & 1 else "the other team"
        lines.append(f"Trick {len(game.tricks) + 1} won by {who} with {card_str(dict(plays)[winner])} ({team}).")
    ends_bidding = game.phase == Phase.BID and (seat == game.dealer or action == bid_action(MAX_BID))
    if ends_bidding and (action != PASS or game.bidder is not None):
        bidder = seat if action != PASS else game.bidder
        k = game.rules.kitty_size
        if bidder == me:
            picked = cards_text([card_str(c) for c in game.kitty[:k]])
            lines.append(f"You are the bidder; you pick up from the kitty: {picked}")
        else:
            lines.append(f"Seat {bidder} is the bidder and picks up {k} kitty card(s) face down.")
    return lines


def play(
    rules: Rules, me: int, agents: dict[int, Any], seed: int | None, read: Callable[[str], str] = read_line
) -> tuple[Game, bool]:
    """One game with a person in seat ``me``; returns the game and whether it was played to the end."""
    entropy = run_entropy(seed)
    game = Game(rules, game_rng(entropy, 0, 0), game_id=game_label(entropy, 0, 0))
    for s, agent in agents.items():
        agent.seed([entropy % 2**63, s])
    print(f"You are seat {me} (team {me & 1}); your partner is seat {(me + 2) % 4}. First to {rules.target_score} wins. {HELP}")
    hands_seen = -1
    while not game.game_over:
        if game.hand_index != hands_seen:
            hands_seen = game.hand_index
            print(f"\n=== Hand {game.hand_index}: seat {game.dealer} deals ===")
        seat = game.to_act
        if seat == me:
            print("\n" + render_view(seat_view(game, me), legal=False))
            action = ask(game.legal_actions(), read)
            if action is None:
                return game, False
        else:
            action = int(agents[seat].act(observe(game, seat), game.action_mask(), seat_view(game, seat)))
        print(announce(game, seat, action, me))
        learnt = after_move(game, seat, action, me)
        records = len(game.records)
        game.step(action)
        for line in learnt:
            print(line)
        for record in game.records[records:]:
            print(explain_hand(record, me, rules))
    return game, True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="smear-play", description="Play Smear in the terminal against agents.")
    add_version_flag(parser)
    parser.add_argument("--seat", type=int, default=0, choices=range(4), help="your seat (0-3; your partner sits opposite)")
    parser.add_argument("--partner", default="heuristic", help="your partner's agent spec (default heuristic)")
    parser.add_argument("--opponents", default="heuristic", help="the opponents' agent spec (default heuristic)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the deals (default: random)")
    parser.add_argument("--records", metavar="FILE.jsonl", help="write the game's hand records here when it ends")
    add_rule_flags(parser)
    args = parser.parse_args(argv)
    try:
        rules = rules_from_args(args)
        partner, opponents = load_agent(args.partner), load_agent(args.opponents)
        partner.check_rules(rules)
        opponents.check_rules(rules)
    except ValueError as e:
        parser.error(str(e))
    me = args.seat
    agents = {(me + 2) % 4: partner, (me + 1) % 4: opponents, (me + 3) % 4: opponents}
    try:
        game, finished = play(rules, me, agents, args.seed)
    except KeyboardInterrupt:
        print("\nGoodbye.")
        return 130
    if args.records:
        write_records(game.records, args.records)
    if not finished:
        print("Goodbye.")
        return 0
    if game.truncated:
        print(f"The game was stopped after {rules.max_hands} hands without a winner (R16).")
    else:
        print(
            "You win!" if game.winner == me & 1 else "You lose.",
            f"Final score: your team {game.scores[me & 1]}, the other team {game.scores[1 - (me & 1)]}.",
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
