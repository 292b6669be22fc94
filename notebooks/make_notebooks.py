"""Write the notebooks from the cells below (stored without outputs; tests execute them).

Run: ``python notebooks/make_notebooks.py``.
"""

from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

HERE = Path(__file__).parent

QUICKSTART = [
    new_markdown_cell(
        "# smear-rl quickstart\n\nFour Point Northeastern Wisconsin Smear as a PettingZoo environment: create it, "
        "look at a hand, the observation layout and the action mask, and play a hand."
    ),
    new_code_cell(
        "import numpy as np\nimport smear_env\n\nenv = smear_env.env(render_mode='ansi', kitty_size=3)\nenv.reset(seed=7)\nprint(env.render())"
    ),
    new_markdown_cell(
        "## The observation\nOne flat float32 vector per seat, encoded only from what that seat may know. Its layout, printed by the code:"
    ),
    new_code_cell("print(smear_env.layout_table())"),
    new_code_cell(
        "agent = env.agent_selection\nobs = env.observe(agent)\nprint(agent, obs['observation'].shape, obs['observation'].dtype)\n"
        "print('legal now:', [smear_env.action_name(a) for a in np.flatnonzero(obs['action_mask'])])"
    ),
    new_markdown_cell("## The action table\n72 fixed actions: pass, bids, trump, discards, card play."),
    new_code_cell(
        "print('\\n'.join(smear_env.action_table().splitlines()[:10]))\nprint('...')\nprint(smear_env.action_name(60), smear_env.parse_action('JH'))"
    ),
    new_markdown_cell("## Play one hand with random legal actions"),
    new_code_cell(
        "env = smear_env.env(render_mode='ansi', episode='hand', reward='margin')\nenv.reset(seed=3)\nrng = np.random.default_rng(0)\n"
        "for agent in env.agent_iter():\n    obs, reward, terminated, truncated, info = env.last()\n"
        "    action = None if terminated or truncated else int(rng.choice(np.flatnonzero(obs['action_mask'])))\n"
        "    env.step(action)\nrecord = env.unwrapped.game.records[-1]\n"
        "print({k: record[k] for k in ('bidder', 'bid', 'trump', 'points', 'game_count', 'score_after')})"
    ),
    new_markdown_cell("## What a seat knows\nRule-based and search agents read the seat view, with cards as strings."),
    new_code_cell(
        "game = smear_env.Game(smear_env.Rules(), 5)\nview = smear_env.seat_view(game, game.to_act)\nprint(view.hand, view.legal_actions, view.bids)"
    ),
]

TRAINING = [
    new_markdown_cell(
        "# Train and evaluate\n\nA short Deep Monte-Carlo run on the batched engine, its TensorBoard scalars as a plot, "
        "an arena match in the duplicate format and a small league with ratings. Budgets are tiny so it runs in a minute; "
        "`make train` and `configs/dmc_full.yaml` are the real thing."
    ),
    new_code_cell(
        "import tempfile\nfrom pathlib import Path\nfrom train import dmc\n\nruns_dir = Path(tempfile.mkdtemp())\n"
        "dmc.main(['--config', '../configs/dmc_quick.yaml', '--runs-dir', str(runs_dir), '--run-name', 'notebook',\n"
        "          '--max-seconds', '20', '--num-envs', '64', '--hidden', '64,64', '--warmup', '2000',\n"
        "          '--batch-size', '256', '--eval-games', '10'])"
    ),
    new_markdown_cell("## TensorBoard scalars"),
    new_code_cell(
        "import matplotlib.pyplot as plt\nfrom tensorboard.backend.event_processing.event_accumulator import EventAccumulator\n\n"
        "events = EventAccumulator(str(runs_dir / 'notebook'))\nevents.Reload()\nprint(events.Tags()['scalars'])\n"
        "fig, axes = plt.subplots(1, 2, figsize=(10, 3))\nfor ax, tag in zip(axes, ['charts/agent_steps_per_second', 'losses/q_loss']):\n"
        "    points = events.Scalars(tag) if tag in events.Tags()['scalars'] else []\n"
        "    ax.plot([p.step for p in points], [p.value for p in points])\n    ax.set_title(tag)\nplt.show()"
    ),
    new_markdown_cell(
        "## An arena match\nThe trained network against the heuristic player, each deal set played twice with the partnerships swapped."
    ),
    new_code_cell(
        "from agents.arena import run_match\nfrom agents.eval_cli import format_summary\n\n"
        "checkpoint = runs_dir / 'notebook' / 'checkpoint.pt'\nmatch = run_match(f'neural:{checkpoint}', 'heuristic', games=10, seed=1)\n"
        "print(format_summary(match.summary()))"
    ),
    new_markdown_cell("## A league and its ratings"),
    new_code_cell(
        "import itertools\nfrom IPython.display import Image, display\nfrom agents.arena import league_ratings, plot_ratings\n\n"
        "specs = ['random', 'heuristic', f'neural:{checkpoint}']\n"
        "matches = {(i, j): run_match(specs[i], specs[j], games=6, seed=2) for i, j in itertools.combinations(range(3), 2)}\n"
        "ratings, spread = league_ratings(specs, matches, resamples=50)\nfor s, r, e in zip(specs, ratings, spread):\n"
        "    print(f'{s:<40} {r:7.0f} +- {e:.0f}')\nplot_ratings(['random', 'heuristic', 'neural'], ratings, spread, str(runs_dir / 'league.png'))\n"
        "display(Image(filename=str(runs_dir / 'league.png')))"
    ),
]

for name, cells in (("quickstart.ipynb", QUICKSTART), ("train_and_evaluate.ipynb", TRAINING)):
    notebook = new_notebook(
        cells=cells, metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}
    )
    nbformat.write(notebook, HERE / name)
