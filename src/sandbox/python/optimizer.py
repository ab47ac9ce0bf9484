"""The `suggest` job: optuna as a stateless sampler for an optimisation's next trials.

Imported by sandbox_runtime.py in the zygote, before any fork: once the audit hook is installed
a child may not import from /sandbox (nor optuna's lazy submodules from anywhere it has not
loaded yet), so everything a suggestion needs is loaded and warmed here.

No strategy code runs in this op. The job keeps no study between calls: each request carries the
space, the sampler, the direction and every trial so far, and the child rebuilds the study in
memory, asks n times and answers the n parameter sets.

Request (no payload):
  {"op": "suggest", "space": {name: distribution}, "sampler": "grid" | "random" | "tpe",
   "seed": int, "direction": "maximize" | "minimize", "n": int,
   "history": [{"params": {name: value}, "state": "complete" | "failed" | "running", "value"?: float}]}
  distribution: {"type": "int", "low", "high", "step"?, "log"?}
              | {"type": "float", "low", "high", "step"?, "log"?}
              | {"type": "categorical", "choices": [scalar, ...]}
  grid: every parameter categorical, its choices the grid's axis (Node enumerates them). "running"
  trials were asked before and are not finished: grid and TPE do not suggest them again.
Response header:
  {"params": [{name: value}, ...]}: n sets, fewer for a grid with fewer points left ("exhausted").

Seeds: the sampler's seed is derived from the request's seed and the number of trials told, so a
rebuilt study does not repeat the previous batch, and the same history gives the same batch.

Cost (optuna 3.1, pure Python): TPE grows faster than linearly with the trials told (each ask scores
its candidates against every trial, per parameter); Node caps TPE's trials (MAX_TPE_TRIALS).
"""
import math
import warnings

import optuna
from optuna.distributions import CategoricalDistribution, FloatDistribution, IntDistribution
from optuna.trial import TrialState, create_trial

optuna.logging.set_verbosity(optuna.logging.WARNING)
optuna.logging.disable_default_handler()

# Guards against a request that skipped Node's checks (src/optimize/search-space.ts has the
# user-facing limits): optuna's GridSampler lists every grid point in memory.
MAX_GRID_POINTS = 1_000_000
MAX_ASK = 1_000
MAX_HISTORY = 100_000
STATES = {"complete": TrialState.COMPLETE, "failed": TrialState.FAIL, "running": TrialState.RUNNING}


def distribution(name, d):
    kind = d.get("type")
    if kind == "int":
        return IntDistribution(int(d["low"]), int(d["high"]), log=bool(d.get("log", False)), step=int(d.get("step") or 1))
    if kind == "float":
        step = d.get("step")
        return FloatDistribution(float(d["low"]), float(d["high"]), log=bool(d.get("log", False)), step=None if step is None else float(step))
    if kind == "categorical":
        return CategoricalDistribution(list(d["choices"]))
    raise ValueError(f"parameter {name}: unknown distribution type {kind!r}")


def derived_seed(seed, told):
    return (int(seed) * 1_000_003 + told) % (2**32)


def make_sampler(kind, seed, space):
    if kind == "random":
        return optuna.samplers.RandomSampler(seed=seed)
    if kind == "tpe":
        return optuna.samplers.TPESampler(seed=seed)
    if kind == "grid":
        axes = {}
        points = 1
        for name, dist in space.items():
            if not isinstance(dist, CategoricalDistribution):
                raise ValueError(f"grid: parameter {name} must be categorical (the grid's axis)")
            axes[name] = list(dist.choices)
            points *= len(axes[name])
        if points > MAX_GRID_POINTS:
            raise ValueError(f"grid of {points} points is over {MAX_GRID_POINTS}")
        return optuna.samplers.GridSampler(axes, seed=seed)
    raise ValueError(f"unknown sampler {kind!r}")


def grid_ids(sampler):
    """The grid point's index as GridSampler numbers them (sorted names, product order)."""
    return {tuple(point): i for i, point in enumerate(sampler._all_grids)}


def rebuild(header):
    space = {name: distribution(name, d) for name, d in header["space"].items()}
    if not space:
        raise ValueError("the search space is empty")
    history = header.get("history") or []
    if len(history) > MAX_HISTORY:
        raise ValueError(f"history of {len(history)} trials is over {MAX_HISTORY}")
    told = sum(1 for t in history if t.get("state") != "running")
    kind = header["sampler"]
    sampler = make_sampler(kind, derived_seed(header.get("seed", 0), told), space)
    direction = header.get("direction", "maximize")
    if direction not in ("maximize", "minimize"):
        raise ValueError(f"unknown direction {direction!r}")
    study = optuna.create_study(storage=optuna.storages.InMemoryStorage(), sampler=sampler, direction=direction)
    ids = grid_ids(sampler) if kind == "grid" else None
    # RandomSampler never reads the trials: only their count (the seed) matters, and adding
    # thousands to the study would cost more than the draws.
    for t in history if kind != "random" else ():
        params = t["params"]
        if set(params) != set(space):
            raise ValueError(f"a trial's parameters {sorted(params)} are not the space's {sorted(space)}")
        state = STATES[t["state"]]
        value = t.get("value") if state == TrialState.COMPLETE else None
        if state == TrialState.COMPLETE and (not isinstance(value, (int, float)) or not math.isfinite(value)):
            raise ValueError("a complete trial needs a finite value (tell a failure as failed)")
        system_attrs = {}
        if ids is not None:
            key = tuple(params[name] for name in sampler._param_names)
            if key not in ids:
                raise ValueError(f"a trial's parameters {params} are not a point of the grid")
            system_attrs = {"grid_id": ids[key], "search_space": sampler._search_space}
        study.add_trial(create_trial(state=state, value=value, params=params, distributions=space, system_attrs=system_attrs))
    return study, space, sampler


def unvisited(study, sampler):
    taken = {t.system_attrs["grid_id"] for t in study.get_trials(deepcopy=False) if "grid_id" in t.system_attrs}
    return len(sampler._all_grids) - len(taken)


def suggest(header):
    n = int(header["n"])
    if not 1 <= n <= MAX_ASK:
        raise ValueError(f"n must be between 1 and {MAX_ASK}")
    study, space, sampler = rebuild(header)
    if header["sampler"] == "grid":
        n = min(n, unvisited(study, sampler))
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # optuna's ExperimentalWarning and the like: not the user's to read
        for _ in range(n):
            out.append(study.ask(space).params)
    return out


def run_suggest(_namespace, header, _payload):
    return {"params": suggest(header)}, b""


def warm_up():
    """One small TPE and grid suggestion in the zygote: optuna's lazy imports and first-call caches
    (scipy's, numpy's) then come with every fork, where the audit hook would refuse loading them."""
    space = {"x": {"type": "float", "low": 0, "high": 1}, "k": {"type": "int", "low": 1, "high": 9, "step": 2},
             "c": {"type": "categorical", "choices": [0, 1, 2]}, "l": {"type": "float", "low": 0.01, "high": 1, "log": True}}
    history = [{"params": p, "state": "complete", "value": float(i)} for i, p in
               enumerate(suggest({"space": space, "sampler": "random", "seed": 1, "n": 12}))]
    history.append({"params": history[0]["params"], "state": "failed"})
    suggest({"space": space, "sampler": "tpe", "seed": 1, "n": 2, "history": history})
    grid = {"a": {"type": "categorical", "choices": [1, 2]}, "b": {"type": "categorical", "choices": [0.5, None]}}
    suggest({"space": grid, "sampler": "grid", "seed": 1, "n": 3,
             "history": [{"params": {"a": 1, "b": 0.5}, "state": "complete", "value": 1.0}]})
