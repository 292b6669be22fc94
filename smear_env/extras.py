"""``smear_env.extras`` is :mod:`smear_rl.extras` (what each optional part needs is no rule of the game): this
name still imports it, with a warning, for one release; its ``command()`` is ``apps.command.command``."""

import warnings

from smear_rl.extras import EXTRAS, MissingExtraError, installed, missing, need

__all__ = ["EXTRAS", "MissingExtraError", "installed", "missing", "need"]
warnings.warn("smear_env.extras is smear_rl.extras", DeprecationWarning, stacklevel=2)
