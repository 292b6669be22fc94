"""The built-in trainer configs: ``python -m train.dmc --config dmc_quick`` finds ``dmc_quick.yaml`` here (installed as
``train.configs``)."""
