"""What the kit's floors share that is none of theirs: which optional parts are installed and what each needs
(:mod:`smear_rl.extras`), the connection to a Ray cluster that the arena, the trainers and the apps use
(:mod:`smear_rl.cluster`), how every command reads its command line (:mod:`smear_rl.cmdline`), and which
commit of the kit made a run (:mod:`smear_rl.provenance`). The lowest floor: it imports nothing of the
kit, and Ray only when a cluster is joined."""
