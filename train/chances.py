"""``python -m train.chances`` is now ``python -m train.chance_table``: the command that solves a table of win
chances has a name apart from the table itself (``agents.chances``). This name still runs it, with a warning."""

import sys
import warnings

from .chance_table import Config, hand_outcomes, main, solve

__all__ = ["Config", "hand_outcomes", "main", "solve"]
warnings.warn("train.chances is train.chance_table (python -m train.chance_table)", DeprecationWarning, stacklevel=2)

if __name__ == "__main__":
    print("python -m train.chances: now python -m train.chance_table (this name will go)", file=sys.stderr)
    sys.exit(main())
