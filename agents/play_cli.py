"""``smear-play``: a person plays one seat in the terminal against agents."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from smear_env import Game, action_name, observe, parse_action, render_table, seat_view
from smear_env.cli import add_rule_flags, rules_from_args
from smear_env.game import game_label, game_rng

from .base import load_agent

HELP = "Type a move as listed (e.g. 'pass', 'bid 3', 'trump H', 'discard 7C', 'JH'), its number, 'help' or 'quit'."
CATEGORY_TEXT = {
    "high": "High (ace of trump, or highest trump played)",
    "low": "Low (7 of trump, or lowest trump played)",
    "jack": "Jack (won the trick holding the jack of trump)",
    "game": "Game (more game-count in won cards)",
}


def explain_hand(record: dict[str, Any], seat: int) -> str:
    """The scoring of a finished hand in words, from a hand record."""
    if record["redeal"]:
        return "Everyone passed: the hand is thrown in and the same dealer deals again."
    mine = seat & 1

    def who(team):
        return "nobody" if team is None else ("your team" if team == mine else "the other team")

    lines = [f"Hand over. Seat {record['bidder']} bid {record['bid']} in {record['trump']}."]
    for category, team in record["points"].items():
        lines.append(f"  {CATEGORY_TEXT[category]}: {who(team)}")
    gc = record["game_count"]
    lines.append(
        f"  Game-count: your team {gc[mine]}, the other team {gc[1 - mine]} (the bidder's discards count for the bidder)"
    )
    hp = record["hand_points"]
    bidder_team = record["bidder"] & 1
    verdict = "made" if record["made_bid"] else "was SET and loses its bid"
    lines.append(
        f"  Points taken: your team {hp[mine]}, the other team {hp[1 - mine]}; the bidder's team ({who(bidder_team)}) {verdict}."
    )
    before, after = record["score_before"], record["score_after"]
    lines.append(f"  Score: your team {before[mine]} -> {after[mine]}, the other team {before[1 - mine]} -> {after[1 - mine]}")
    return "\n".join(lines)


def ask(legal: list[int], read=input) -> int | None:
    """Read a legal move; re-prompt on anything else. None when the player quits or input ends."""
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
        if action not in legal:
            print(f"'{action_name(action)}' is not legal now. {HELP}")
            continue
        return action


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="smear-play", description="Play Smear in the terminal against agents.")
    parser.add_argument("--seat", type=int, default=0, choices=range(4), help="your seat (0-3; your partner sits opposite)")
    parser.add_argument("--partner", default="heuristic", help="your partner's agent spec (default heuristic)")
    parser.add_argument("--opponents", default="heuristic", help="the opponents' agent spec (default heuristic)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the deals (default: random)")
    add_rule_flags(parser)
    args = parser.parse_args(argv)
    try:
        rules = rules_from_args(args)
        partner, opponents = load_agent(args.partner), load_agent(args.opponents)
    except ValueError as e:
        parser.error(str(e))
    me = args.seat
    agents = {(me + 2) % 4: partner, (me + 1) % 4: opponents, (me + 3) % 4: opponents}
    import numpy as np

    entropy = int(np.random.SeedSequence(args.seed).entropy)
    game = Game(rules, game_rng(entropy, 0, 0), game_id=game_label(entropy, 0, 0))
    for s, agent in agents.items():
        agent.seed([entropy % 2**63, s])
    print(f"You are seat {me} (team {me & 1}); your partner is seat {(me + 2) % 4}. First to {rules.target_score} wins. {HELP}")
    hands_seen = 0
    while not game.game_over:
        if len(game.records) > hands_seen:
            for record in game.records[hands_seen:]:
                print(explain_hand(record, me) + "\n")
            hands_seen = len(game.records)
        seat = game.to_act
        if seat == me:
            print("\n" + render_table(game, me))
            action = ask(game.legal_actions())
            if action is None:
                print("Goodbye.")
                return 0
        else:
            action = agents[seat].act(observe(game, seat), game.action_mask(), seat_view(game, seat))
            print(f"seat {seat}: {action_name(action)}")
        game.step(action)
    for record in game.records[hands_seen:]:
        print(explain_hand(record, me) + "\n")
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
