"""Information-set Monte Carlo tree search (single-observer ISMCTS, Cowling, Powley
and Whitehouse 2012) on the bare game's ``clone()`` and ``resample_hidden()``, plain or
guided by a policy and a value.

The agent is bound to a live game object and its seat. It never reads hidden state
directly: every iteration starts from a determinization ``game.resample_hidden(seat,
rng)``, in which everything the seat cannot see has been re-dealt consistently with
what it knows (the conformance leak test checks that contract for every env). So the
search only ever uses the seat's information set; the observation passed to ``act``
is ignored.

The tree is keyed by action sequences from the root; each node keeps visit, reward
and availability counts (a child is *available* in an iteration when its action is
legal in that determinization). Rewards are payoffs from the point of view of the
role that chose the action. The guidance, each part optional:

* **playout** (:data:`PLAYOUTS`): the policy that plays the simulation on from the
  new leaf: ``random`` (uniform, the classic), ``heuristic`` (the game's rule-based
  player, reading each seat's observation of the determinization) or ``pretrained``
  (the shipped network); ``epsilon`` mixes in uniform moves (epsilon-greedy playouts,
  as in Nijssen and Winands' Scotland Yard MCTS).
* **cutoff** and **value** (:data:`VALUES`): after ``cutoff`` playout decisions the
  state is scored by a value function instead of being played to the end:
  ``heuristic`` is the game's evaluation of a determinized state
  (:mod:`spyenvs.agents.evaluations`). The default is sound: no cut-off, the terminal
  payoff (a playout still running after ``rollout_limit`` decisions is scored by the
  value function, or as a draw with ``value="terminal"``).
* **prior** (:data:`PRIORS`): PUCT selection (AlphaZero's rule, with the child's
  availability count for the parent's visits) over the prior of a policy: the
  heuristic's action scores (softmax at ``prior_temperature``) or the pretrained
  actor's masked softmax. Without one, UCB1 with availability counts, untried actions
  first.
* **budget**: ``simulations`` and ``time_limit`` (seconds) per move, whichever comes
  first; ``determinizations=D`` samples D determinizations per move and cycles clones
  of them (a resample costs several clones in the card games), where the default
  (None) samples a fresh one every iteration; ``reuse_tree`` keeps the subtree of the
  move just played when the same seat decides again right after it (its own move is
  all that happened, so nothing hidden is used).

Spec strings (``spyenvs play --vs``, ``spyenvs eval``, the leaderboard) are parsed by
:func:`parse_spec`; ``expert`` is :data:`EXPERT`.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from .policy import BasePolicy

PLAYOUTS = ("random", "heuristic", "pretrained")
VALUES = ("terminal", "heuristic", "search")
#: searches over plans instead of single decisions (``macro=``): ``specter`` is the
#: Specter Ops search over her turn's end cell and each hunter's turn
#: (:mod:`spyenvs.agents.specter_search`)
MACROS = ("none", "specter")
PRIORS = ("none", "heuristic", "pretrained")


class _Node:
    __slots__ = ("children", "visits", "reward", "avail", "prior", "value_sum", "value_visits")

    def __init__(self):
        self.children: dict[int, _Node] = {}
        self.visits = 0
        self.reward = 0.0
        self.avail = 1
        self.prior: dict[int, float] | None = None
        #: the rewards of every simulation through this node's children, each from the
        #: point of view of the role choosing among them (first-play urgency reads it)
        self.value_sum = 0.0
        self.value_visits = 0


class ISMCTS(BasePolicy):
    """An unbound ISMCTS template; ``bind(game, seat)`` returns the playing agent.

    See the module docstring for the options; ``c`` is the exploration constant
    (UCB1's, or PUCT's when a prior is set).
    """

    name = "ismcts"
    #: searches the live game it is bound to, so it is bound per game, never shared
    needs_live_game = True

    def __init__(self, simulations: int = 200, c: float | None = None, rollout_limit: int = 400,
                 time_limit: float | None = None, seed: int | None = None, playout: str = "random",
                 epsilon: float = 0.0, cutoff: int | None = None, value: str = "terminal",
                 prior: str = "none", prior_temperature: float = 1.0, determinizations: int | None = None,
                 reuse_tree: bool = False, name: str | None = None, macro: str = "none", macro_top: int = 8,
                 macro_rounds: int = 1, macro_surge: bool = False, macro_bias: bool = False,
                 macro_reply: bool = False):
        check_options(simulations=simulations, time_limit=time_limit, playout=playout, epsilon=epsilon,
                      cutoff=cutoff, value=value, prior=prior, determinizations=determinizations,
                      rollout_limit=rollout_limit, prior_temperature=prior_temperature, c=c)
        check_macro(macro, macro_top, macro_rounds, playout)
        self.simulations = int(simulations)
        self.c = (1.5 if prior != "none" else 0.7) if c is None else float(c)
        self.rollout_limit = int(rollout_limit)
        self.time_limit = time_limit
        self.playout = playout
        self.epsilon = float(epsilon)
        self.cutoff = cutoff
        self.value = value
        self.prior = prior
        self.prior_temperature = float(prior_temperature)
        self.determinizations = determinizations
        self.reuse_tree = bool(reuse_tree)
        self.macro = macro
        self.macro_top = int(macro_top)
        self.macro_rounds = int(macro_rounds)
        self.macro_surge = bool(macro_surge)
        self.macro_bias = bool(macro_bias)
        self.macro_reply = bool(macro_reply)
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        if name:
            self.name = name

    def bind(self, game: Any, seat: int) -> BasePolicy:
        if self.name == "expert" and not self.__dict__.get("_per_game"):
            return self._expert_for(game)._bind(game, seat)
        return self._bind(game, seat)

    def _bind(self, game: Any, seat: int) -> BasePolicy:
        if self.macro == "specter":
            if game.env_id != "specter_ops_v0":
                raise ValueError(f"ismcts macro=specter plays specter_ops_v0, not {game.env_id}")
            from .specter_search import BoundSpecterSearch
            return BoundSpecterSearch(self, game, seat)
        return BoundISMCTS(self, game, seat)

    def _expert_for(self, game: Any) -> ISMCTS:
        """The game's own expert (``INFO.expert_search``), sharing this template's
        random stream; the default expert where the game names none."""
        spec = getattr(getattr(game, "info", None), "expert_search", None)
        if spec is None:
            return self
        cache = self.__dict__.setdefault("_experts", {})
        expert = cache.get(game.env_id)
        if expert is None:
            expert = cache[game.env_id] = parse_spec(spec, name="expert")
            expert.rng = self.rng
            expert._per_game = True
        return expert

    def act_game(self, game: Any, seat: int) -> int:
        """One move for ``seat`` of ``game`` (searches on resamples, never on ``game``'s
        hidden state)."""
        return self.bind(game, seat).act(None, game.legal_mask())

    def act(self, observation, mask):  # pragma: no cover - a template cannot play
        raise TypeError("ISMCTS needs the game: call bind(game, seat) or act_game(game, seat)")


def check_macro(macro, top, rounds, playout) -> None:
    """One-line ValueErrors for the plan search's options (``macro``, ``top``, ``rounds``)."""
    if macro not in MACROS:
        raise ValueError(f"ismcts macro {macro!r} unknown; allowed: {', '.join(MACROS)}")
    if macro != "none" and playout != "heuristic":
        raise ValueError(f"ismcts macro={macro} plays its simulations with the heuristic: ismcts:SIMS:heuristic:macro={macro}")
    if not isinstance(top, (int, np.integer)) or top < 1:
        raise ValueError(f"ismcts top must be a positive int, got {top!r}")
    if not isinstance(rounds, (int, np.integer)) or rounds < 1:
        raise ValueError(f"ismcts rounds must be a positive int, got {rounds!r}")


def check_options(simulations, time_limit, playout, epsilon, cutoff, value, prior, determinizations,
                  rollout_limit, prior_temperature, c) -> None:
    """One-line ValueErrors for options out of range."""
    if not isinstance(simulations, (int, np.integer)) or simulations < 1:
        raise ValueError(f"ismcts simulations must be a positive int, got {simulations!r}")
    if time_limit is not None and not time_limit > 0:
        raise ValueError(f"ismcts time limit must be positive seconds, got {time_limit!r}")
    if playout not in PLAYOUTS:
        raise ValueError(f"ismcts playout {playout!r} unknown; allowed: {', '.join(PLAYOUTS)}")
    if not 0.0 <= epsilon <= 1.0:
        raise ValueError(f"ismcts eps must be in [0, 1], got {epsilon!r}")
    if cutoff is not None and (not isinstance(cutoff, (int, np.integer)) or cutoff < 0):
        raise ValueError(f"ismcts cut must be a non-negative int, got {cutoff!r}")
    if value not in VALUES:
        raise ValueError(f"ismcts value {value!r} unknown; allowed: {', '.join(VALUES)}")
    if cutoff is not None and value == "terminal":
        raise ValueError("ismcts cut=K needs a value to score the cut state (value=heuristic or value=search)")
    if prior not in PRIORS:
        raise ValueError(f"ismcts prior {prior!r} unknown; allowed: {', '.join(PRIORS)}")
    if determinizations is not None and (not isinstance(determinizations, (int, np.integer)) or determinizations < 1):
        raise ValueError(f"ismcts dets must be a positive int, got {determinizations!r}")
    if rollout_limit < 1:
        raise ValueError(f"ismcts rollout limit must be positive, got {rollout_limit!r}")
    if not prior_temperature > 0:
        raise ValueError(f"ismcts prior temperature must be positive, got {prior_temperature!r}")
    if c is not None and not c >= 0:
        raise ValueError(f"ismcts c must be non-negative, got {c!r}")


class BoundSearch(BasePolicy):
    """A search playing ``seat`` of the live ``game`` with the options of ``spec`` (an
    :class:`ISMCTS` template, whose random stream it shares)."""

    def __init__(self, spec: ISMCTS, game: Any, seat: int):
        self.spec = spec
        self.name = spec.name
        self.game = game
        self.seat = seat
        self.rng = spec.rng
        #: iterations run by the last search (bench --search reads it; 0: no search)
        self.last_iterations = 0
        #: the share of the root's visits per action at the last move (a one-hot where
        #: the move was played without a search): expert iteration's cloning targets
        self.last_visits: np.ndarray | None = None

    def _determinizations(self, game: Any):
        """One determinization of ``game`` from the seat's view per simulation, within
        the budget (``simulations``, ``time``): a fresh ``resample_hidden`` each, or
        with ``dets=D`` clones of D cycled; :attr:`last_iterations` counts them."""
        spec, seat, rng = self.spec, self.seat, self.rng
        deadline = None if spec.time_limit is None else time.monotonic() + spec.time_limit
        pool: list[Any] = []
        dets = spec.determinizations
        self.last_iterations = 0
        for it in range(spec.simulations):
            if deadline is not None and it > 0 and time.monotonic() > deadline:
                return
            if dets is None:
                d = game.resample_hidden(seat, rng)
            else:
                if len(pool) < dets:
                    pool.append(game.resample_hidden(seat, rng))
                d = pool[it % len(pool)].clone()
            self.last_iterations = it + 1
            yield d

    def _check_turn(self) -> None:
        game = self.game
        if game.is_over or game.current_player != self.seat:
            raise ValueError(f"{type(self).__name__} bound to seat {self.seat} asked to act out of turn")


class BoundISMCTS(BoundSearch):
    """ISMCTS playing ``seat`` of the live ``game``."""

    def __init__(self, spec: ISMCTS, game: Any, seat: int):
        super().__init__(spec, game, seat)
        n = game.num_players
        self._playout = [_policy_for(spec.playout, game, s, spec.seed) for s in range(n)] \
            if spec.playout != "random" else None
        self._prior = [_policy_for(spec.prior, game, s, spec.seed) for s in range(n)] \
            if spec.prior != "none" else None
        self._value = None
        if spec.value != "terminal":
            from .evaluations import state_value_for
            self._value = state_value_for(game, spec.value)
        self._kept: tuple[_Node, Any, int, int] | None = None  # (subtree, game seed, actions, action)

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        self._check_turn()
        game = self.game
        legal = np.flatnonzero(mask)
        if legal.size == 1:
            self._kept = None
            return self._chosen(int(legal[0]), mask.size)
        return self.search(game)

    def _chosen(self, action: int, n_actions: int, visits: dict[int, int] | None = None) -> int:
        """``action``, recording :attr:`last_visits` (a one-hot without ``visits``)."""
        share = np.zeros(n_actions, np.float32)
        total = sum(visits.values()) if visits else 0
        if total > 0:
            for a, v in visits.items():
                share[a] = v / total
        else:
            share[action] = 1.0
        self.last_visits = share
        return action

    def _root(self, game: Any) -> _Node:
        kept, self._kept = self._kept, None
        if kept is not None and self.spec.reuse_tree:
            node, seed, length, action = kept
            if game.seed == seed and len(game.actions) == length + 1 and game.actions[-1] == action:
                return node
        return _Node()

    def _winning_move(self, game: Any) -> int | None:
        """A move that ends the game at once with ``seat`` among the winners in every
        one of a few determinizations (a win in one, which a prior or playouts that
        never try it would miss), or None."""
        seat, rng = self.seat, self.rng
        candidates = None
        for _ in range(_WIN_CHECKS):
            d = game.resample_hidden(seat, rng)
            mask = d.legal_mask()
            tried = mask.nonzero()[0].tolist() if candidates is None else [a for a in candidates if mask[a]]
            candidates = [a for a in tried if _wins_at_once(d, a, seat)]
            if not candidates:
                return None
        return candidates[0]

    def search(self, game: Any) -> int:
        spec = self.spec
        win = self._winning_move(game)
        n_actions = game.num_actions
        if win is not None:
            self._kept = None
            self.last_iterations = 0
            return self._chosen(int(win), n_actions)
        root = self._root(game)
        for d in self._determinizations(game):
            self._iterate(root, d)
        # only what is legal here: a reused subtree grew in worlds whose chance events
        # (a draw after our own move) differ from this one, so it may hold moves we lack
        legal = game.legal_mask()
        playable = [(a, node) for a, node in root.children.items() if legal[a]]
        if not playable:
            self._kept = None
            return self._chosen(int(np.flatnonzero(legal)[0]), n_actions)
        best_a, best = max(playable, key=lambda kv: (kv[1].visits, kv[1].reward))
        if spec.reuse_tree:
            self._kept = (best, game.seed, len(game.actions), int(best_a))
        return self._chosen(int(best_a), n_actions, {int(a): node.visits for a, node in playable})

    # ------------------------------------------------------------ one iteration
    def _iterate(self, root: _Node, d: Any) -> None:
        node = root
        path: list[tuple[_Node, int]] = []  # (child, role that chose it)
        while not d.is_over:
            mask = d.legal_mask()
            legal = mask.nonzero()[0].tolist()
            mover = d.current_player
            children = node.children
            for a in legal:
                ch = children.get(a)
                if ch is not None:
                    ch.avail += 1
            if self._prior is not None:
                a, new = self._select_puct(node, d, mover, mask, legal)
            else:
                a, new = self._select_ucb(node, legal)
            child = children.get(a)
            if child is None:
                child = children[a] = _Node()
            d.step(a)
            path.append((child, mover))
            node = child
            if new:
                break
        outcome = self._playout_value(d)
        parent = root
        for node, mover in path:
            node.visits += 1
            node.reward += outcome[mover]
            parent.value_sum += outcome[mover]
            parent.value_visits += 1
            parent = node

    def _select_ucb(self, node: _Node, legal: list[int]) -> tuple[int, bool]:
        children = node.children
        untried = [a for a in legal if a not in children]
        if untried:
            return untried[int(self.rng.integers(len(untried)))], True
        c = self.spec.c
        best_a, best_v = legal[0], -math.inf
        for a in legal:
            ch = children[a]
            v = ch.reward / ch.visits + c * math.sqrt(math.log(ch.avail) / ch.visits)
            if v > best_v:
                best_a, best_v = a, v
        return best_a, False

    def _select_puct(self, node: _Node, d: Any, mover: int, mask: np.ndarray, legal: list[int]) -> tuple[int, bool]:
        prior = node.prior
        if prior is None or any(a not in prior for a in legal):
            prior = self._fill_prior(node, d, mover, mask)
        children = node.children
        c = self.spec.c
        # first-play urgency: an unvisited move is valued at what this node has earned
        # its mover so far (0 before any), so a prior's favourite keeps its lead unless
        # its own results fall below that
        fpu = node.value_sum / node.value_visits if node.value_visits else 0.0
        best_a, best_v = legal[0], -math.inf
        for a in legal:
            ch = children.get(a)
            if ch is None or ch.visits == 0:
                v = fpu + c * prior[a] * math.sqrt(ch.avail if ch is not None else 1)
            else:
                v = ch.reward / ch.visits + c * prior[a] * math.sqrt(ch.avail) / (1 + ch.visits)
            if v > best_v:
                best_a, best_v = a, v
        ch = children.get(best_a)
        return best_a, ch is None or ch.visits == 0

    def _fill_prior(self, node: _Node, d: Any, mover: int, mask: np.ndarray) -> dict[int, float]:
        """The prior over this determinization's legal actions, merged into the node's
        (actions first seen in an earlier determinization keep their value)."""
        z = self._prior_logits(self._prior[mover], d.observe(mover), mask)
        legal = np.flatnonzero(mask)
        zl = z[legal] / self.spec.prior_temperature
        zl = np.where(np.isfinite(zl), zl, -1e9)
        p = np.exp(zl - zl.max())
        p /= p.sum()
        fresh = dict(zip(legal.tolist(), p.tolist()))
        if node.prior is not None:
            fresh.update(node.prior)
        node.prior = fresh
        return fresh

    @staticmethod
    def _prior_logits(policy: Any, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        # a network's logits, else a heuristic's scores (every BasePolicy has an
        # action_scores, which raises TypeError unless the policy scores actions)
        logits = getattr(policy, "action_logits", None)
        if logits is not None:
            return np.asarray(logits(obs, mask), np.float64)
        return np.asarray(policy.action_scores(obs, mask), np.float64)

    def _playout_value(self, d: Any) -> list[float]:
        spec, rng = self.spec, self.rng
        limit = spec.rollout_limit if spec.cutoff is None else min(spec.cutoff, spec.rollout_limit)
        pols = self._playout
        eps = spec.epsilon
        steps = 0
        while not d.is_over and steps < limit:
            mask = d.legal_mask()
            legal = mask.nonzero()[0]
            if legal.size == 1:
                a = int(legal[0])
            elif pols is None or (eps > 0.0 and rng.random() < eps):
                a = int(legal[rng.integers(legal.size)])
            else:
                seat = d.current_player
                a = int(pols[seat].act(d.observe(seat), mask))
            d.step(a)
            steps += 1
        if d.is_over:
            return d.outcome()
        if self._value is not None:
            return self._value(d)
        return [0.0] * d.num_players


#: determinizations that must all agree before a move is played as a win in one
_WIN_CHECKS = 4


def _wins_at_once(d: Any, action: int, seat: int) -> bool:
    """Whether ``action`` ends determinization ``d`` with ``seat`` among the winners."""
    after = d.clone()
    after.step(action)
    if not after.is_over:
        return False
    outcome = after.outcome()
    return outcome[seat] > 0 and outcome[seat] >= max(outcome)


def _policy_for(kind: str, game: Any, seat: int, seed: int | None):
    """A playout or prior policy for ``seat``, bound once to the live game (only its
    layout, config and role are read; the policy then plays any determinization)."""
    if kind == "heuristic":
        from .heuristics import HeuristicPolicy
        return HeuristicPolicy(seed).bind(game, seat)
    from .pretrained import PretrainedPolicy
    return PretrainedPolicy(seed).bind(game, seat)


# ------------------------------------------------------------------ specs
#: ``expert`` where a game names no search of its own (``INFO.expert_search``): the
#: heuristic's scores as PUCT priors, short random playouts scored by the game's state
#: evaluation, at most a second a move (measurements: docs/results/search.md)
EXPERT = "ismcts:200:random:prior=heuristic:temp=4:cut=10:value=heuristic:dets=32:time=1.0:reuse=1"

_KEYS = {"eps": "epsilon", "cut": "cutoff", "value": "value", "prior": "prior", "c": "c", "time": "time_limit",
         "dets": "determinizations", "reuse": "reuse_tree", "temp": "prior_temperature", "limit": "rollout_limit",
         "macro": "macro", "top": "macro_top", "rounds": "macro_rounds", "surge": "macro_surge", "bias": "macro_bias",
         "reply": "macro_reply"}
_INTS = {"cutoff", "determinizations", "rollout_limit", "macro_top", "macro_rounds"}
_FLOATS = {"epsilon", "c", "time_limit", "prior_temperature"}
GRAMMAR = ("ismcts[:SIMS[:PLAYOUT]][:KEY=VALUE ...], PLAYOUT in random|heuristic|pretrained, KEY in "
           + ", ".join(_KEYS))


def parse_spec(spec: str, seed: int | None = None, name: str | None = None) -> ISMCTS:
    """The ISMCTS a spec string names: ``ismcts``, ``ismcts:SIMS``,
    ``ismcts:SIMS:PLAYOUT`` and ``KEY=VALUE`` options after them (``eps``, ``cut``,
    ``value``, ``prior``, ``c``, ``time``, ``dets``, ``reuse``, ``temp``, ``limit``),
    or ``expert``: :data:`EXPERT`, which becomes the game's own
    ``INFO.expert_search`` when it binds to a game that names one. A bad spec raises
    a one-line ValueError."""
    name = name or spec
    if spec == "expert":
        spec = EXPERT
    parts = spec.split(":")
    if parts[0] != "ismcts":
        raise ValueError(f"not an ismcts spec: {spec!r}; expected {GRAMMAR}")
    kwargs: dict[str, Any] = {}
    positional = [p for p in parts[1:] if "=" not in p]
    options = [p for p in parts[1:] if "=" in p]
    if parts[1:len(positional) + 1] != positional:
        raise ValueError(f"{spec!r}: SIMS and PLAYOUT come before the KEY=VALUE options; expected {GRAMMAR}")
    if len(positional) > 2:
        raise ValueError(f"{spec!r}: too many fields; expected {GRAMMAR}")
    if positional:
        try:
            kwargs["simulations"] = int(positional[0])
        except ValueError:
            raise ValueError(f"ismcts:SIMS expects an int, got {spec!r}") from None
    if len(positional) == 2:
        kwargs["playout"] = positional[1]
    for opt in options:
        key, _, raw = opt.partition("=")
        if key not in _KEYS:
            raise ValueError(f"{spec!r}: unknown option {key!r}; allowed: {', '.join(_KEYS)}")
        field = _KEYS[key]
        try:
            if field in _INTS:
                kwargs[field] = int(raw)
            elif field in _FLOATS:
                kwargs[field] = float(raw)
            elif field in ("reuse_tree", "macro_surge", "macro_bias", "macro_reply"):
                if raw not in ("0", "1"):
                    raise ValueError
                kwargs[field] = raw == "1"
            else:
                kwargs[field] = raw
        except ValueError:
            raise ValueError(f"{spec!r}: bad value for {key}: {raw!r}") from None
    return ISMCTS(seed=seed, name=name, **kwargs)
