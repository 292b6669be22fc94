"""The command-line flags the kit's commands share: ``--version`` and the rule settings.

Every command of the kit is an ``argparse`` program that takes these from here, so that a flag is
spelled, checked and described the same way everywhere.
"""

from __future__ import annotations

import argparse

from . import __version__
from .rules import Rules


def add_version_flag(parser: argparse.ArgumentParser) -> None:
    """``--version``: the command's name and the kit's version (``smear-eval 0.2.0``), as every command of the kit prints it."""
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}", help="print the kit's version and exit")


def add_rule_flags(parser: argparse.ArgumentParser) -> None:
    """The command-line flags of every rule setting (shared by the kit's commands)."""
    defaults = Rules()
    group = parser.add_argument_group("rule settings (docs/rules.md)")
    group.add_argument(
        "--kitty-size", type=int, default=defaults.kitty_size, choices=range(4), help="R5: cards the bidder picks up (0-3)"
    )
    group.add_argument("--stick-the-dealer", action="store_true", help="R7v: the dealer must bid after three passes")
    group.add_argument("--high-low-in-play", action="store_true", help="R13v: High/Low to the highest/lowest trump played")
    group.add_argument("--win-only-on-made-bid", action="store_true", help="R15v-a: a team wins only on a bid it made")
    group.add_argument(
        "--defender-cap", type=int, default=None, metavar="N", help="R15v-b: cap the defenders' score at N (the seeds use 15)"
    )
    group.add_argument("--target-score", type=int, default=defaults.target_score, metavar="N", help="R15: score that wins (15)")
    group.add_argument(
        "--max-hands",
        type=int,
        default=defaults.max_hands,
        metavar="N",
        help=f"R16: truncate a game after N dealt hands ({defaults.max_hands})",
    )


def rules_from_args(args: argparse.Namespace) -> Rules:
    """The Rules given by :func:`add_rule_flags`' flags (validated)."""
    return Rules(
        kitty_size=args.kitty_size,
        stick_the_dealer=args.stick_the_dealer,
        high_low_in_play=args.high_low_in_play,
        win_only_on_made_bid=args.win_only_on_made_bid,
        defender_cap=args.defender_cap,
        target_score=args.target_score,
        max_hands=args.max_hands,
    )
