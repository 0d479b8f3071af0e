"""What the SBEED page and its runs share: the MDPs offered, the eta values and their colours,
the timeline's line, and the MDP cache."""

from __future__ import annotations

from dynamics import sbeed
from views.framework import DOTTED, MPL_DOTTED, axis
from views.framework.cache import results_cache

MDPS = ("risky choice (4 states)", "FrozenLake 4x4, slippery", "FrozenLake 4x4, not slippery",
        "Garnet")
ETAS = ("0", "0.25", "0.5", "0.75", "1")
ETA_COLORS = {"0": "#d62728", "0.25": "#ff7f0e", "0.5": "#bcbd22", "0.75": "#17becf",
              "1": "#1f77b4"}
STAR_COLOR = "#222222"
ACTION_NAMES = {"FrozenLake": ("←", "↓", "→", "↑"), "risky": ("safe", "risky")}
#: Replay buffer of the page's sampled runs (segments): the dual is solved on it every 5 updates.
PAGE_BUFFER = 5000
STATE_DIMS = (axis("rank", "state (sorted by V*)"), axis("V", "value"))
#: The timeline's line at iteration t on the per-iteration panels.
NOW = dict(color="gray", bokeh=dict(line_width=1.5, **DOTTED), mpl=dict(linewidth=1, **MPL_DOTTED))




@results_cache
def make_mdp(name: str, n_states: int, n_actions: int, branching: int, seed: int) -> sbeed.MDP:
    if name.startswith("risky"):
        return sbeed.risky_choice()
    if name.startswith("FrozenLake"):
        return sbeed.frozen_lake(slippery="not" not in name)
    return sbeed.garnet(n_states, n_actions, min(branching, n_states), seed=seed)
