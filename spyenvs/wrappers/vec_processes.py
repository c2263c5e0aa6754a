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
process. The opponents' own random streams (tie-breaks, sampled snapshots) are each
shard's: reseeded from the shard's seed at reset, and a policy that reaches a worker
later (:meth:`set_opponents`) from the shard's seed and its key. A run with another
number of processes is therefore a different (but reproducible) run.

Workers are forked (the games, the opponents and the prior are inherited, nothing is
pickled at start), so the env must be made before torch starts its threads;
:meth:`set_opponents` sends a policy to the workers the first time it appears and its
key after that, and both sides forget policies that left the pool. Where the platform
cannot fork safely (Windows, macOS), all games run in the trainer's process. Each
worker runs torch with one thread and ends when the trainer's end of its pipe closes
(also when the trainer is killed). A worker's error, or its death, reaches the trainer
as a one-line ``RuntimeError``; the env is then broken and only :meth:`close` is left.

Needs stable-baselines3 (the ``train`` extra), as ``VecSelfPlayEnv`` does.
"""

from __future__ import annotations

import multiprocessing as mp
import pickle
import sys
from typing import Any, Sequence

import numpy as np

from .vec_selfplay import VecEnv, VecSelfPlayEnv, _VecEnvMethods

#: seconds close() waits for a worker's answer, then for it to exit
_CLOSE_WAIT_S = 5.0
#: what the trainer reads from its own shard: the games' description, the same in every shard
_SHARED_DESCRIPTION = ("env_id", "config", "roles", "kinds", "learner_kinds", "learner_seats", "learner_groups",
                       "seat_kind", "role_dims", "opponent_dims", "opponent_classes", "obs_size", "privileged_seats",
                       "privileged_dims", "prior_dims", "max_decisions", "auto_play_forced", "mix_opponents")


def shard_sizes(num_envs: int, processes: int) -> list[int]:
    """Games per shard: as even as can be, the first shards one larger."""
    base, extra = divmod(int(num_envs), int(processes))
    return [base + (k < extra) for k in range(int(processes))]


def can_fork() -> bool:
    """Whether worker processes may be forked here (macOS lists fork, but forking a
    process that has loaded its system frameworks is unsafe there)."""
    return "fork" in mp.get_all_start_methods() and sys.platform != "darwin"


def _entry_parts(item: Any) -> tuple[Any, tuple]:
    """A pool entry as (policy, its weight and name as given: the rest of its tuple)."""
    return (item[0], tuple(item[1:])) if isinstance(item, tuple) else (item, ())


def _numbered(entries: Sequence[Any]) -> dict[int, tuple[int, Any]]:
    """The pool's policies by object: id -> (key, policy), keys in order of first use
    (the trainer and its forked workers number the first pool alike)."""
    keys: dict[int, tuple[int, Any]] = {}
    for item in entries:
        policy = _entry_parts(item)[0]
        keys.setdefault(id(policy), (len(keys), policy))
    return keys


def _reseed_policies(policies: Sequence[Any], stream: np.random.SeedSequence) -> None:
    for policy in policies:
        if hasattr(policy, "reseed"):
            policy.reseed(int(stream.spawn(1)[0].generate_state(1)[0]))


def _worker(conn, trainer_ends, game, config, opponents, size, seed, options, obs_raw, masks_raw, start, width,
            num_envs, num_actions) -> None:
    """A shard's loop in its worker process: one message in, one answer out."""
    for end in trainer_ends:  # inherited by the fork: held here, they would keep the pipes open for ever
        end.close()
    torch = sys.modules.get("torch")
    if torch is not None:  # a forked child: its own single thread, never the parent's pool
        torch.set_num_threads(1)
    # streams of this worker's own: numpy's global one, and (no seed given) the inherited
    # opponents' and prior's, which a reset reseeds only when seeded
    np.random.seed()
    stream = np.random.SeedSequence(None if seed is None else [int(seed), 1])
    try:
        known = {key: policy for key, policy in _numbered(opponents).values()}
        if seed is None:
            _reseed_policies(list(known.values()) + [options.get("prior")], stream)
        env = VecSelfPlayEnv(game, config, opponents, num_envs=size, seed=seed, **options)
        obs = np.frombuffer(obs_raw, np.float32).reshape(2, num_envs, width)
        masks = np.frombuffer(masks_raw, np.bool_).reshape(num_envs, num_actions)
        env.share_buffers([obs[0, start:start + size], obs[1, start:start + size]], masks[start:start + size])
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
                entries = pickle.loads(arg)
                new = [policy for _, policy, _ in entries if policy is not None]
                _reseed_policies(new, stream)
                for key, policy, _ in entries:
                    if policy is not None:
                        known[key] = policy
                live = {key for key, _, _ in entries}
                known = {key: policy for key, policy in known.items() if key in live}
                env.set_opponents([(known[key],) + weight_and_name if weight_and_name else known[key]
                                   for key, _, weight_and_name in entries])
                conn.send(("ok", None))
            elif what == "stats":
                conn.send(("ok", dict(env.stats)))
            elif what == "close":
                conn.send(("ok", None))
                return
            else:  # pragma: no cover - the parent sends only the messages above
                raise ValueError(f"unknown message {what!r}")
    except (KeyboardInterrupt, EOFError):  # Ctrl-C reaches the whole group; EOF: the trainer has gone
        return
    except BaseException as exc:  # noqa: BLE001 - every failure goes back as one line
        first = str(exc).strip().splitlines()[:1]
        try:
            conn.send(("error", f"{type(exc).__name__}: {first[0] if first else ''}".rstrip(": ")))
        except (BrokenPipeError, OSError):
            pass


class ProcessVecSelfPlayEnv(_VecEnvMethods, VecEnv):
    """``num_envs`` self-play games in ``processes`` processes (module docstring);
    the other arguments are :class:`VecSelfPlayEnv`'s, and every game plays as there.
    ``processes`` says how many processes step the games (1 where it cannot fork)."""

    def __init__(self, game: Any, config: dict | None = None, opponents: Sequence[Any] = (), num_envs: int = 32,
                 processes: int = 2, seed: int | None = None, **options: Any):
        processes, num_envs = int(processes), int(num_envs)
        if not 1 <= processes <= num_envs:
            raise ValueError(f"processes must be between 1 and num_envs ({num_envs}), got {processes}")
        if processes > 1 and not can_fork():
            print("spyenvs: this platform cannot fork safely; all games run in the trainer's process", file=sys.stderr)
            processes = 1
        opponents = list(opponents)
        sizes = shard_sizes(num_envs, processes)
        self.processes = processes
        self.starts = [sum(sizes[:k]) for k in range(processes)]
        self.own_shard = VecSelfPlayEnv(game, config, opponents, num_envs=sizes[0], seed=seed, **options)
        self.render_mode = None
        super().__init__(num_envs, self.own_shard.observation_space, self.own_shard.action_space)
        width = self.own_shard.observation_space.shape[0]
        num_actions = int(self.own_shard.action_space.n)
        ctx = mp.get_context("fork") if processes > 1 else None
        obs_raw = ctx.RawArray("b", 2 * num_envs * width * 4) if ctx else bytearray(2 * num_envs * width * 4)
        masks_raw = ctx.RawArray("b", num_envs * num_actions) if ctx else bytearray(num_envs * num_actions)
        self._obs = np.frombuffer(obs_raw, np.float32).reshape(2, num_envs, width)
        self._masks = np.frombuffer(masks_raw, np.bool_).reshape(num_envs, num_actions)
        self._masks[:] = True
        n0 = sizes[0]
        self.own_shard.share_buffers([self._obs[0, :n0], self._obs[1, :n0]], self._masks[:n0])
        self._flip = 0  # in step with every shard's alternating buffers
        # the policies the workers hold, by object (kept alive here, so an id stays its own)
        self._sent_policies = _numbered(opponents)
        self._next_key = len(self._sent_policies)
        self._conns: list[Any] = []
        self._procs: list[Any] = []
        self._actions: np.ndarray | None = None
        self._closed = False
        self._broken: str | None = None  # a worker's failure: the env is then closed, not stepped
        try:
            for k in range(1, processes):
                parent, child = ctx.Pipe()
                shard_seed = None if seed is None else int(seed) + self.starts[k]
                proc = ctx.Process(target=_worker, daemon=True, name=f"spyenvs-vec-{k}",
                                   args=(child, self._conns + [parent], game, config, opponents, sizes[k], shard_seed,
                                         options, obs_raw, masks_raw, self.starts[k], width, num_envs, num_actions))
                proc.start()
                child.close()
                self._conns.append(parent)
                self._procs.append(proc)
        except BaseException:
            self.close()
            raise

    def __getattr__(self, name: str) -> Any:
        # the games' description, the same in every shard, read from this process's
        if name in _SHARED_DESCRIPTION:
            return getattr(self.own_shard, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        raise ValueError(f"ProcessVecSelfPlayEnv cannot set {attr_name!r}: its games live in other processes")

    # --------------------------------------------------------------- pipes
    def _fail(self, k: int, why: str) -> RuntimeError:
        self._broken = f"vec env worker {k + 1}: {why}"
        return RuntimeError(self._broken)

    def _ask(self, k: int, timeout: float | None = None) -> Any:
        """Worker ``k``'s answer (a one-line RuntimeError where it failed or died)."""
        conn = self._conns[k]
        try:
            if timeout is not None and not conn.poll(timeout):
                raise self._fail(k, f"no answer in {timeout:g} s")
            status, payload = conn.recv()
        except (EOFError, OSError):
            raise self._fail(k, f"died (exit code {self._procs[k].exitcode})") from None
        if status == "error":
            raise self._fail(k, payload)
        return payload

    def _send(self, k: int, message: tuple) -> None:
        try:
            self._conns[k].send(message)
        except (BrokenPipeError, OSError):  # gone: its last words, where it left any, say why
            if self._conns[k].poll(0):
                self._ask(k)
            raise self._fail(k, f"died (exit code {self._procs[k].exitcode})") from None

    def _ask_all(self, message: tuple | None = None, timeout: float | None = None) -> list[Any]:
        """Send ``message`` (if any) to every worker, then every answer, in order. Every
        worker's answer is read even when one fails, so the pipes stay in step; the
        first failure is raised after."""
        if self._broken:
            raise RuntimeError(self._broken)
        if message is not None:
            for k in range(len(self._conns)):
                self._send(k, message)
        answers, failure = [], None
        for k in range(len(self._conns)):
            try:
                answers.append(self._ask(k, timeout))
            except RuntimeError as exc:
                failure = failure or exc
        if failure is not None:
            raise failure
        return answers

    # ------------------------------------------------------------ the pool
    def set_opponents(self, entries: Sequence[Any]) -> None:
        """Every shard's pool (:meth:`VecSelfPlayEnv.set_opponents`)."""
        entries = list(entries)
        sent, next_key, message = {}, self._next_key, []
        for item in entries:
            policy, weight_and_name = _entry_parts(item)
            known = self._sent_policies.get(id(policy)) or sent.get(id(policy))
            if known is None:
                known = sent[id(policy)] = (next_key, policy)
                next_key += 1
                message.append((known[0], policy, weight_and_name))
            else:
                message.append((known[0], None, weight_and_name))
        try:  # before anything changes: a policy that cannot be sent leaves the pools as they were
            payload = pickle.dumps(message) if self._conns else b""
        except Exception as exc:  # noqa: BLE001 - pickling fails in many ways; one line for all
            raise ValueError(f"an opponent cannot be sent to the env's worker processes: {exc}") from None
        self.own_shard.set_opponents(entries)
        live = {id(_entry_parts(item)[0]) for item in entries}
        self._sent_policies = {i: kp for i, kp in {**self._sent_policies, **sent}.items() if i in live}
        self._next_key = next_key
        if self._conns:
            self._ask_all(("set_opponents", payload))

    def pool_names(self) -> list[str]:
        return self.own_shard.pool_names()

    def row_layout(self) -> dict[str, int]:
        return self.own_shard.row_layout()

    @property
    def stats(self) -> dict[str, int]:
        """Every shard's counts, summed (after :meth:`close`, as they were then)."""
        if self._closed:
            return dict(self._closing_stats)
        return self._summed_stats()

    def _summed_stats(self, timeout: float | None = None) -> dict[str, int]:
        total = dict(self.own_shard.stats)
        for counts in self._ask_all(("stats", None), timeout):
            for name, n in counts.items():
                total[name] = total.get(name, 0) + n
        return total

    # --------------------------------------------------------------- VecEnv
    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        if seed is None:  # drawn here, so that the shards' games get distinct seeds
            seed = int(np.random.randint(0, 2**32 - 1, dtype=np.uint32))
        seeds = list(self.own_shard.seed(seed))
        if self._broken:
            raise RuntimeError(self._broken)
        for k, start in enumerate(self.starts[1:]):
            self._send(k, ("seed", int(seed) + start))
        for answer in self._ask_all():
            seeds += list(answer)
        return seeds

    def reset(self):
        if self._broken:
            raise RuntimeError(self._broken)
        for k in range(len(self._conns)):
            self._send(k, ("reset", None))
        self._finish_with_workers(self.own_shard.reset)
        self._flip ^= 1
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return self._obs[self._flip]

    def step_async(self, actions: np.ndarray) -> None:
        if self._broken:
            raise RuntimeError(self._broken)
        actions = np.asarray(actions).reshape(self.num_envs)
        ends = self.starts[1:] + [self.num_envs]
        for k in range(len(self._conns)):
            self._send(k, ("step", actions[ends[k]:ends[k + 1]]))
        self.own_shard.step_async(actions[:ends[0]])
        self._actions = actions

    def step_wait(self):
        if self._actions is None:
            raise RuntimeError("step_wait() without step_async()")
        self._actions = None
        (_, rewards, dones, infos), answers = self._finish_with_workers(self.own_shard.step_wait)
        rewards, dones, infos = [rewards], [dones], list(infos)
        for r, d, i in answers:
            rewards.append(r)
            dones.append(d)
            infos.extend(i)
        self._flip ^= 1
        return self._obs[self._flip], np.concatenate(rewards), np.concatenate(dones), infos

    def _finish_with_workers(self, own_part):
        """``own_part()`` while the workers do theirs, then their answers. If this
        process's part fails, the workers' answers are still read (the pipes stay in
        step) and the env is broken."""
        try:
            own = own_part()
        except BaseException:
            try:
                self._ask_all()
            except RuntimeError:
                pass
            self._broken = self._broken or "the trainer's own games failed"
            raise
        return own, self._ask_all()

    def close(self) -> None:
        if self._closed:
            return
        try:
            self._closing_stats = self._summed_stats(timeout=_CLOSE_WAIT_S)
        except RuntimeError:  # a worker failed (now or before): the counts this process kept
            self._closing_stats = dict(self.own_shard.stats)
        self._closed = True
        for conn in self._conns:
            try:
                conn.send(("close", None))
            except (BrokenPipeError, OSError):
                pass
        for proc in self._procs:
            proc.join(timeout=_CLOSE_WAIT_S)
            if proc.is_alive():
                proc.terminate()
                proc.join(timeout=_CLOSE_WAIT_S)
        for conn in self._conns:
            conn.close()
        self.own_shard.close()
