"""``python -m train.chances`` is ``python -m train.chance_table``: the command that solves a table of win chances
has a name apart from the table itself (``agents.chances``). This name still imports and runs it, with a warning,
for one release."""

from smear_rl.moved import moved

moved("train.chances", "train.chance_table", run=__name__ == "__main__")
