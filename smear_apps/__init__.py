"""The applications: the commands a person runs (``smear-records``, ``smear-eval``, ``smear-play``) and the
browser table (``smear-web``). The room above the library: each imports what it needs from ``smear_env``,
``smear_nets``, ``agents`` and ``train``, and nothing imports it."""
