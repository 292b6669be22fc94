"""``smear_env.extras`` is :mod:`smear_rl.extras` (what each optional part needs is no rule of the game): this
name still imports it, with a warning, for one release; its ``command()`` is ``smear_apps.command.command``."""

from smear_rl.moved import moved

moved("smear_env.extras", "smear_rl.extras")
