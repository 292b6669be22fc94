"""``smear-play``: a person plays one seat in the terminal against agents.

The screen shows only what the person's seat may know (docs/rules.md "Who knows what"): the
table is drawn from its seat view, other seats' moves are announced as the table sees
them (another bidder's discards as a count, never the cards), and each hand ends with
its scoring in words.
"""

from __future__ import annotations

import select
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from tyro.conf import arg

from agents import load_agent
from smear_env import Game, Rules, action_name, observe, parse_action, seat_view
from smear_env.actions import DISCARD_BASE, PLAY_BASE
from smear_env.game import game_label, game_rng, run_entropy, team_of
from smear_env.records import write_records
from smear_env.render import after_move, announce, explain_hand, render_view
from smear_rl.cmdline import Flat
from smear_rl.extras import MissingExtraError

from .command import cli, command, refuse

HELP = "Type a move as listed (e.g. 'pass', 'bid 3', 'trump H', 'discard 7C' or just '7C', 'JH'), its number, 'help' or 'quit'."


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


def shows_faces() -> bool:
    """Whether this terminal can print the suits' signs: the moves are then told as the web table tells them
    (10\u2665, Q\u2663: ``smear_env.render.card_face``); the table drawn for typing keeps the codes (TH, QC)."""
    try:
        "\u2663\u2666\u2665\u2660".encode(sys.stdout.encoding or "ascii")
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def play(
    rules: Rules, me: int, agents: dict[int, Any], seed: int | None, read: Callable[[str], str] = read_line
) -> tuple[Game, bool]:
    """One game with a person in seat ``me``; returns the game and whether it was played to the end."""
    entropy = run_entropy(seed)
    game = Game(rules, game_rng(entropy, 0, 0), game_id=game_label(entropy, 0, 0))
    for s, agent in agents.items():
        agent.seed([entropy % 2**63, s])
    print(
        f"You are seat {me} (team {team_of(me)}); your partner is seat {(me + 2) % 4}. First to {rules.target_score} wins. {HELP}"
    )
    hands_seen = -1
    faces = shows_faces()
    while not game.game_over:
        if game.hand_index != hands_seen:
            hands_seen = game.hand_index
            print(f"\n=== Hand {game.hand_index + 1}: seat {game.dealer} deals ===")  # from 1, for people
        seat = game.to_act
        if seat == me:
            print("\n" + render_view(seat_view(game, me), legal=False))
            action = ask(game.legal_actions(), read)
            if action is None:
                return game, False
        else:
            action = int(agents[seat].act(observe(game, seat), game.action_mask(), seat_view(game, seat)))
        print(announce(game, seat, action, me, faces=faces))
        learnt = after_move(game, seat, action, me, faces=faces)
        records = len(game.records)
        game.step(action)
        for line in learnt:
            print(line)
        for record in game.records[records:]:
            print(explain_hand(record, me, rules))
    return game, True


@dataclass
class Config:
    """Who ``smear-play``'s person plays with and against, and under which rules."""

    seat: Literal[0, 1, 2, 3] = 0
    """your seat (your partner sits opposite)"""
    partner: str = "heuristic"
    """your partner's agent spec"""
    opponents: str = "heuristic"
    """the opponents' agent spec"""
    seed: int | None = None
    """seed of the deals (none: random)"""
    records: Annotated[str | None, arg(metavar="FILE.jsonl")] = None
    """write the game's hand records here when it ends"""
    rules: Flat[Rules] = field(default_factory=Rules)
    """the rule settings of the game"""


@command("smear-play")
def main(argv: list[str] | None = None) -> int:
    config = cli(Config, argv, "Play Smear in the terminal against agents.", "smear-play")
    rules = config.rules
    try:
        partner, opponents = load_agent(config.partner), load_agent(config.opponents)
        partner.check_rules(rules)
        opponents.check_rules(rules)
    except MissingExtraError:
        raise  # one line (the command's), not the usage
    except ValueError as e:
        refuse("smear-play", str(e))
    me = config.seat
    agents = {(me + 2) % 4: partner, (me + 1) % 4: opponents, (me + 3) % 4: opponents}
    try:
        game, finished = play(rules, me, agents, config.seed)
    except KeyboardInterrupt:
        print("\nGoodbye.")
        return 130
    if config.records:
        write_records(game.records, config.records)
    if not finished:
        print("Goodbye.")
        return 0
    if game.truncated:
        print(f"The game was stopped after {rules.max_hands} hands without a winner (R16).")
    else:
        print(
            "You win!" if game.winner == team_of(me) else "You lose.",
            f"Final score: your team {game.scores[team_of(me)]}, the other team {game.scores[1 - team_of(me)]}.",
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
