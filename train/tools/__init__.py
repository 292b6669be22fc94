"""The tools built on the trainers, each a command: ``python -m train.tools.exploit`` (a best response to an
agent and its control: ``smear-exploit``), ``train.tools.export`` (a checkpoint slimmed, averaged or joined
for shipping), ``train.tools.ship`` (a finished recipe run checked against the bar a network passes to
ship, and written with its provenance if it passes) and ``train.tools.sweep`` (Ray Tune trials of a trainer). They import the trainers; no
trainer imports them (``tests/test_layers.py``)."""
