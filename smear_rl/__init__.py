"""What the kit's floors share that is none of theirs: which optional parts are installed and what each needs
(:mod:`smear_rl.extras`), and the connection to a Ray cluster that the arena, the trainers and the apps use
(:mod:`smear_rl.cluster`). The lowest floor: it imports nothing of the kit, and Ray only when a cluster is joined."""
