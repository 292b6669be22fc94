"""Self-play trainers for smear-rl: Deep Monte-Carlo (``train.dmc``) and PPO (``train.ppo``)."""
