"""Self-play games stepped in several processes: :class:`ProcessVecSelfPlayEnv`, the
:class:`~spyenvs.wrappers.vec_selfplay.VecSelfPlayEnv` of ``num_envs`` games split
into ``processes`` shards. The first shard runs in the trainer's process, each other in
a worker process of its own; all step at once, so the opponents' and the prior's
moves (a heuristic's Python, the bulk of a step in Unrest) use both cores of a
2-core machine while the learner waits for its next rows.

Each shard is a ``VecSelfPlayEnv`` of its games, writing its learner rows and masks
straight into arrays in shared memory (:meth:`VecSelfPlayEnv.share_buffers`): the
learner reads one ``(num_envs, width)`` array as before, and only actions, rewards,
dones and infos go through the pipes. Shard ``k``'s games are the games
``start_k ...`` of the whole vector, seeded as SB3 seeds them (``seed + i`` for game
``i``), so every game deals, rotates seats and draws opponents as it would in one
process; the opponents' own random streams (tie-breaks, sampled snapshots) are
reseeded per shard, so a run with another number of processes is a different (but
reproducible) run.

Workers are forked (the games, the opponents and the prior are inherited, nothing is
pickled at start); :meth:`set_opponents` sends a policy to the workers the first time it
appears and its key after that. Where the platform cannot fork, all games run in the
trainer's process. Each worker runs torch with one thread. A worker's error reaches
the trainer as a one-line ``RuntimeError``.

Needs stable-baselines3 (the ``train`` extra), as ``VecSelfPlayEnv`` does.
"""

from __future__ import annotations

import multiprocessing as mp
import sys
from typing import Any, Sequence

import numpy as np

from .vec_selfplay import VecEnv, VecSelfPlayEnv, _VecEnvMethods


def shard_sizes(num_envs: int, processes: int) -> list[int]:
    """Games per shard: as even as can be, the first shards one larger."""
    base, extra = divmod(int(num_envs), int(processes))
    return [base + (k < extra) for k in range(int(processes))]


def _entry_parts(item: Any) -> tuple[Any, tuple]:
    """A pool entry as (policy, the rest of its tuple)."""
    return (item[0], tuple(item[1:])) if isinstance(item, tuple) else (item, ())


def _keys_of(entries: Sequence[Any]) -> dict[int, tuple[int, Any]]:
    """The pool's policies by object: id -> (key, policy), keys in order of first use
    (the trainer and its forked workers number the first pool alike)."""
    keys: dict[int, tuple[int, Any]] = {}
    for item in entries:
        policy = _entry_parts(item)[0]
        keys.setdefault(id(policy), (len(keys), policy))
    return keys


def _worker(conn, game, config, opponents, size, seed, options, obs_raw, masks_raw, start, width, num_envs,
            num_actions) -> None:
    """A shard's loop in its worker process: one message in, one answer out."""
    torch = sys.modules.get("torch")
    if torch is not None:  # a forked child: its own single thread, never the parent's pool
        torch.set_num_threads(1)
    try:
        env = VecSelfPlayEnv(game, config, opponents, num_envs=size, seed=seed, **options)
        obs = np.frombuffer(obs_raw, np.float32).reshape(2, num_envs, width)
        masks = np.frombuffer(masks_raw, np.bool_).reshape(num_envs, num_actions)
        env.share_buffers([obs[0, start:start + size], obs[1, start:start + size]], masks[start:start + size])
        known = {key: policy for key, policy in _keys_of(opponents).values()}
        while True:
            what, arg = conn.recv()
            if what == "step":
                env.step_async(arg)
                _, rewards, dones, infos = env.step_wait()
                conn.send(("ok", (rewards, dones, infos)))
            elif what == "reset":
                env.reset()
                conn.send(("ok", None))
            elif what == "seed":
                conn.send(("ok", env.seed(arg)))
            elif what == "set_opponents":
                entries = []
                for key, policy, rest in arg:
                    if policy is not None:
                        known[key] = policy
                    entries.append((known[key],) + rest if rest else known[key])
                env.set_opponents(entries)
                conn.send(("ok", None))
            elif what == "stats":
                conn.send(("ok", dict(env.stats)))
            elif what == "close":
                conn.send(("ok", None))
                return
            else:  # pragma: no cover - the parent sends only the messages above
                raise ValueError(f"unknown message {what!r}")
    except KeyboardInterrupt:  # Ctrl-C reaches the whole process group; the parent reports it
        return
    except BaseException as exc:  # noqa: BLE001 - every failure goes back as one line
        first = str(exc).strip().splitlines()[:1]
        try:
            conn.send(("error", f"{type(exc).__name__}: {first[0] if first else ''}".rstrip(": ")))
        except (BrokenPipeError, OSError):
            pass


class ProcessVecSelfPlayEnv(_VecEnvMethods, VecEnv):
    """``num_envs`` self-play games in ``processes`` processes (module docstring);
    the other arguments are :class:`VecSelfPlayEnv`'s, and every game plays as there."""

    def __init__(self, game: Any, config: dict | None = None, opponents: Sequence[Any] = (), num_envs: int = 32,
                 processes: int = 2, seed: int | None = None, **options: Any):
        processes, num_envs = int(processes), int(num_envs)
        if not 1 <= processes <= num_envs:
            raise ValueError(f"processes must be between 1 and num_envs ({num_envs}), got {processes}")
        if processes > 1 and "fork" not in mp.get_all_start_methods():
            print("spyenvs: this platform cannot fork; all games run in the trainer's process", file=sys.stderr)
            processes = 1
        sizes = shard_sizes(num_envs, processes)
        self.starts = [sum(sizes[:k]) for k in range(processes)]
        self.local = VecSelfPlayEnv(game, config, opponents, num_envs=sizes[0], seed=seed, **options)
        super().__init__(num_envs, self.local.observation_space, self.local.action_space)
        width = self.local.observation_space.shape[0]
        num_actions = int(self.local.action_space.n)
        ctx = mp.get_context("fork") if processes > 1 else None
        obs_raw = ctx.RawArray("b", 2 * num_envs * width * 4) if ctx else bytearray(2 * num_envs * width * 4)
        masks_raw = ctx.RawArray("b", num_envs * num_actions) if ctx else bytearray(num_envs * num_actions)
        self._obs = np.frombuffer(obs_raw, np.float32).reshape(2, num_envs, width)
        self._masks = np.frombuffer(masks_raw, np.bool_).reshape(num_envs, num_actions)
        self._masks[:] = True
        n0 = sizes[0]
        self.local.share_buffers([self._obs[0, :n0], self._obs[1, :n0]], self._masks[:n0])
        self._flip = 0  # in step with every shard's alternating buffers
        # the policies the workers hold, by object (kept alive here, so an id stays its own)
        self._keys = _keys_of(opponents)
        self._conns = []
        self._procs = []
        for k in range(1, processes):
            parent, child = ctx.Pipe()
            shard_seed = None if seed is None else int(seed) + self.starts[k]
            proc = ctx.Process(target=_worker, daemon=True, name=f"spyenvs-vec-{k}",
                               args=(child, game, config, list(opponents), sizes[k], shard_seed, options, obs_raw,
                                     masks_raw, self.starts[k], width, num_envs, num_actions))
            proc.start()
            child.close()
            self._conns.append(parent)
            self._procs.append(proc)
        self._actions: np.ndarray | None = None
        self._closed = False

    def __getattr__(self, name: str) -> Any:
        # the first shard's description of the games (kinds, role_dims, roles, ...)
        if name == "local" or name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.local, name)

    # --------------------------------------------------------------- pipes
    def _ask(self, k: int) -> Any:
        try:
            status, payload = self._conns[k].recv()
        except (EOFError, OSError):
            code = self._procs[k].exitcode
            raise RuntimeError(f"vec env worker {k + 1} died (exit code {code})") from None
        if status == "error":
            raise RuntimeError(f"vec env worker {k + 1}: {payload}")
        return payload

    def _broadcast(self, message: tuple) -> None:
        for conn in self._conns:
            conn.send(message)

    # ------------------------------------------------------------ the pool
    def set_opponents(self, entries: Sequence[Any]) -> None:
        """Every shard's pool (:meth:`VecSelfPlayEnv.set_opponents`)."""
        entries = list(entries)
        self.local.set_opponents(entries)
        message = []
        for item in entries:
            policy, rest = _entry_parts(item)
            known = self._keys.get(id(policy))
            if known is None:
                self._keys[id(policy)] = (len(self._keys), policy)
                message.append((len(self._keys) - 1, policy, rest))
            else:
                message.append((known[0], None, rest))
        self._broadcast(("set_opponents", message))
        for k in range(len(self._conns)):
            self._ask(k)

    def pool_names(self) -> list[str]:
        return self.local.pool_names()

    def row_layout(self) -> dict[str, int]:
        return self.local.row_layout()

    @property
    def stats(self) -> dict[str, int]:
        """Every shard's counts, summed (after :meth:`close`, as they were then)."""
        if self._closed:
            return dict(self._closing_stats)
        total = dict(self.local.stats)
        self._broadcast(("stats", None))
        for k in range(len(self._conns)):
            for name, n in self._ask(k).items():
                total[name] = total.get(name, 0) + n
        return total

    # --------------------------------------------------------------- VecEnv
    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        seeds = list(self.local.seed(seed))
        for k, start in enumerate(self.starts[1:]):
            self._conns[k].send(("seed", None if seed is None else int(seed) + start))
        for k in range(len(self._conns)):
            seeds += list(self._ask(k))
        return seeds

    def reset(self):
        self._broadcast(("reset", None))
        self.local.reset()
        for k in range(len(self._conns)):
            self._ask(k)
        self._flip ^= 1
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return self._obs[self._flip]

    def step_async(self, actions: np.ndarray) -> None:
        actions = np.asarray(actions).reshape(self.num_envs)
        for conn, a, b in zip(self._conns, self.starts[1:], self.starts[2:] + [self.num_envs]):
            conn.send(("step", actions[a:b]))
        self.local.step_async(actions[:self.starts[1] if len(self.starts) > 1 else self.num_envs])
        self._actions = actions

    def step_wait(self):
        if self._actions is None:
            raise RuntimeError("step_wait() without step_async()")
        self._actions = None
        _, rewards, dones, infos = self.local.step_wait()
        rewards, dones, infos = [rewards], [dones], list(infos)
        for k in range(len(self._conns)):
            r, d, i = self._ask(k)
            rewards.append(r)
            dones.append(d)
            infos.extend(i)
        self._flip ^= 1
        return self._obs[self._flip], np.concatenate(rewards), np.concatenate(dones), infos

    def close(self) -> None:
        if self._closed:
            return
        try:
            self._closing_stats = self.stats
        except (RuntimeError, OSError):  # a worker failed: the counts this process kept
            self._closing_stats = dict(self.local.stats)
        self._closed = True
        for conn in self._conns:
            try:
                conn.send(("close", None))
            except (BrokenPipeError, OSError):
                pass
        for proc in self._procs:
            proc.join(timeout=5)
            if proc.is_alive():
                proc.terminate()
        for conn in self._conns:
            conn.close()
