"""``train.sweep`` is :mod:`train.tools.sweep` (the tools apart from the trainers): this name still imports it and runs
it as a command, with a warning, for one release."""

from smear_rl.moved import moved

moved("train.sweep", "train.tools.sweep", run=__name__ == "__main__")
