"""The arena: head-to-head matches in the duplicate format, their results, and leagues with ratings.

Duplicate format: deal set ``d`` is one game seed; it is played twice, once with A's
partnership in seats 0 and 2 and once with A in seats 1 and 3. The deals of a game
depend only on its seed (never on the play), so both games see the same cards hand
by hand, and pairing their results cancels most of the card luck.

* :mod:`agents.arena.games`: the games of deal sets, played in lockstep (``play_deal_sets``).
* :mod:`agents.arena.match`: a whole match, in local processes or on Ray (``run_match``).
* :mod:`agents.arena.results`: what a match gives (``MatchResult``, ``pool_matches``, ``format_summary``).
* :mod:`agents.arena.ratings`: leagues (``league_ratings``, ``fit_elo``, ``plot_ratings``).
* ``agents.arena.on_ray``: the deal sets as Ray tasks (imports Ray; nothing else here does).
"""

from .games import CATEGORIES, DealSetResult, play_deal_set, play_deal_sets
from .match import run_match
from .ratings import fit_elo, league_ratings, plot_ratings
from .results import MatchResult, format_summary, pool_matches, short_labels

__all__ = [
    "CATEGORIES",
    "DealSetResult",
    "MatchResult",
    "fit_elo",
    "format_summary",
    "league_ratings",
    "play_deal_set",
    "play_deal_sets",
    "plot_ratings",
    "pool_matches",
    "run_match",
    "short_labels",
]
