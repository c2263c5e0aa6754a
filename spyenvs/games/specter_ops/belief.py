"""The hunters' belief set (rules §6.1): where an agent can be, as a deterministic fold
over the public event log. Cells are bitsets (see board.py).

State per agent: ``hyps`` maps a traitor hypothesis ``j`` (a hunter seat, or -1 when
there is no undisclosed traitor) to a tuple of card branches ``(L, M, stealth)``: the
cells reachable after a consistent path of <= 2 steps (L) or >= 3 steps (M) in her
latest turn, and whether Stealth Field protects her in this hunters' phase. A branch
that becomes empty is dropped (its hypothesis was false); the true cell is never
removed. Events are plain tuples / dicts so the log can be replayed after a
Post-Cognition answer about the past."""

from __future__ import annotations

from . import board as B

OPEN = B.OPEN
BALL = B.BALL
step_bits = B.step_bits

# report kinds
NOTHING, SEEN, LAST_SEEN = 0, 1, 2

#: orthogonal neighbours (Cobra's Ambush roll)
ORTH = [0] * B.N
for _i in range(B.N):
    _r, _c = divmod(_i, B.W)
    _b = 0
    for _dr, _dc in B.DIRS:
        if 0 <= _r + _dr < B.H and 0 <= _c + _dc < B.W:
            _b |= 1 << ((_r + _dr) * B.W + _c + _dc)
    ORTH[_i] = _b & OPEN


def reach_classes(S: int, K: int, allowed: int) -> tuple[int, int]:
    """(L, M): cells reachable from S in exactly k<=2 / 3<=k<=K steps inside allowed."""
    L = cur = S
    M = 0
    for k in range(1, K + 1):
        cur = step_bits(cur) & allowed
        if not cur:
            break
        if k <= 2:
            L |= cur
        else:
            M |= cur
    return L, M


def automaton(S, K, allowed, VIS, kind, c, ESg, gflag):
    """End cells (L, M) of the paths of <= K steps from S that reproduce the report
    (kind, c) and, when ESg is not None, the Gun flag (§6.1 agent turn rule 3)."""
    nv = ~VIS
    gun = ESg is not None
    if kind == NOTHING:
        if gun and gflag:
            return 0, 0
        cur = S & nv
        L, M = cur, 0
        for k in range(1, K + 1):
            cur = step_bits(cur) & allowed & nv
            if not cur:
                break
            if k <= 2:
                L |= cur
            else:
                M |= cur
        return L, M
    if not (VIS >> c) & 1:
        return 0, 0
    cb = 1 << c
    g = ESg if gun else 0
    a0 = S & ~g
    a1 = S & g
    want = 1 if (gun and gflag) else 0
    L = M = 0
    if kind == SEEN:
        for k in range(K + 1):
            if k:
                s0 = step_bits(a0) & allowed
                s1 = step_bits(a1) & allowed
                a0, a1 = s0 & ~g, s1 | (s0 & g)
            hit = (a1 if want else a0) & cb if gun else (a0 | a1) & cb
            if hit:
                if k <= 2:
                    L = cb
                else:
                    M = cb
        return L, M
    # LAST_SEEN: reach c at step i (unconstrained before), then only invisible cells
    b0 = b1 = 0
    for k in range(K + 1):
        if k:
            s0 = step_bits(a0) & allowed
            s1 = step_bits(a1) & allowed
            a0, a1 = s0 & ~g, s1 | (s0 & g)
            b0 = step_bits(b0) & allowed & nv
            b1 = step_bits(b1) & allowed & nv
            end = (b1 if want else b0) if gun else (b0 | b1)
            if k <= 2:
                L |= end
            else:
                M |= end
        if a0 & cb:
            b0 |= cb
        if a1 & cb:
            b1 |= cb
    return L, M


def decoy_ends(S, allowed, d):
    """Decoy branch (§6.1 rule 4): reachable in <= 4 steps with the decoy within 4 of
    the start (decoy before moving) or of the end (after moving)."""
    L1, M1 = reach_classes(S & BALL[4][d], 4, allowed)
    L2, M2 = reach_classes(S, 4, allowed)
    z = BALL[4][d]
    return L1 | (L2 & z), M1 | (M2 & z)


def _sight_of(hs, seat):
    for h in hs:
        if h[0] == seat:
            return h
    return None


def apply_turn(hyps, ev, known=None):
    """Apply one agent-turn event to every hypothesis (see Game._publish_turn)."""
    out = {}
    obj = ev["obj"]
    hunters = ev["hunters"]
    kind, c = ev["report"]
    gun = ev["gun"]
    allowed = OPEN & ~ev["fig"]
    kc = known.get(ev["turn"]) if known is not None else None
    for j, branches in hyps.items():
        S = 0
        for L, M, _st in branches:
            S |= L | M
        if obj >= 0:
            S &= BALL[2 if ev["bj"] else 1][obj]
        S &= ev["pre_mask"]
        if not S:
            continue
        if gun is not None and gun[0] == j:
            if ev["gflag"]:
                continue  # a Quick Draw / Sniper Shot proves the Gun is not the traitor
            g = None
        else:
            g = gun
        rep = [h for h in hunters if h[0] != j]
        if ev["rotated"] == 1:
            modes = ((6, False, False), (4, True, True))
        elif ev["rotated"] == 2:
            modes = ((4, False, True),)
        else:
            modes = ((4, False, False),)
        tj = _sight_of(hunters, j) if (j >= 0 and ev["prune"]) else None
        kept = []
        for K, st_path, st_hp in modes:
            VIS = 0
            for _s, pos, sg in rep:
                VIS |= (sg & BALL[2][pos]) if st_path else sg
            ESg = None
            if g is not None:
                ESg = (g[2] & BALL[2][g[1]]) if st_path else g[2]
            L, M = automaton(S, K, allowed, VIS, kind, c, ESg, ev["gflag"])
            if tj is not None and kind != NOTHING:
                es_t = (tj[2] & BALL[2][tj[1]]) if st_path else tj[2]
                if (es_t >> c) & 1:
                    continue  # a real placement in j's sight would have exposed j
            L &= ev["post_mask"]
            M &= ev["post_mask"]
            if kc is not None:
                L &= 1 << kc
                M &= 1 << kc
            if L | M:
                kept.append((L, M, st_hp))
        if ev["decoy"] >= 0:
            L, M = decoy_ends(S, allowed, ev["decoy"])
            L &= ev["post_mask"]
            M &= ev["post_mask"]
            if kc is not None:
                L &= 1 << kc
                M &= 1 << kc
            if L | M:
                kept.append((L, M, False))
        if kept:
            out[j] = tuple(kept)
    return out


def apply_event(hyps, ev, known=None):
    if type(ev) is dict:
        return apply_turn(hyps, ev, known)
    kind = ev[0]
    out = {}
    if kind == "check":
        # ("check", seat, pos, sight, seen_cell, hunters, prune)
        _, seat, pos, sg, seen, hs, prune = ev
        for j, branches in hyps.items():
            if seen >= 0:
                if j == seat:
                    continue
                b = 1 << seen
                tj = _sight_of(hs, j) if (prune and j >= 0) else None
                nb = []
                for L, M, st in branches:
                    if tj is not None:
                        es_t = (tj[2] & BALL[2][tj[1]]) if st else tj[2]
                        if (es_t >> seen) & 1:
                            continue
                    if (L | M) & b:
                        nb.append((L & b, M & b, st))
            else:
                if j == seat:
                    out[j] = branches
                    continue
                nb = []
                for L, M, st in branches:
                    es = (sg & BALL[2][pos]) if st else sg
                    L &= ~es
                    M &= ~es
                    if L | M:
                        nb.append((L, M, st))
            if nb:
                out[j] = tuple(nb)
        return out
    if kind == "keep":
        # ("keep", mask, killed_seat): intersect with mask; hypothesis killed_seat dies
        _, mask, killed = ev
        for j, branches in hyps.items():
            if j == killed:
                continue
            nb = [(L & mask, M & mask, st) for L, M, st in branches if (L | M) & mask]
            if nb:
                out[j] = tuple(nb)
        return out
    if kind == "sensor":
        _, v, d = ev
        cone = B.sensor_cone(v, d) if d >= 0 else 0
        for j, branches in hyps.items():
            nb = []
            for L, M, st in branches:
                if d < 0:
                    M = 0
                else:
                    L, M = 0, M & cone
                if L | M:
                    nb.append((L, M, st))
            if nb:
                out[j] = tuple(nb)
        return out
    if kind == "prune":
        # ("prune", cell, hunters): hypotheses whose traitor saw the cell die
        _, c, hs = ev
        for j, branches in hyps.items():
            h = _sight_of(hs, j) if j >= 0 else None
            if h is not None and (h[2] >> c) & 1:
                continue
            out[j] = branches
        return out
    if kind == "expose":
        t = ev[1]
        return {-1: hyps[t]} if t in hyps else {}
    raise ValueError(kind)


class Belief:
    """Belief of the hunters about one agent: hypotheses, event log and per-turn
    snapshots for Post-Cognition replays and resampling."""

    __slots__ = ("hyps", "log", "snaps", "known")

    def __init__(self, start: int, hyp_keys):
        self.hyps = {j: (((1 << start), 0, False),) for j in hyp_keys}
        self.log: list = []
        #: snaps[t] = (log index of turn t's event, hyps before it)
        self.snaps: dict[int, tuple[int, dict]] = {}
        self.known: dict[int, int] = {}

    def copy(self) -> "Belief":
        new = object.__new__(Belief)
        new.hyps = self.hyps
        new.log = list(self.log)
        new.snaps = dict(self.snaps)
        new.known = dict(self.known)
        return new

    def add(self, ev) -> None:
        if type(ev) is dict:
            self.snaps[ev["turn"]] = (len(self.log), self.hyps)
        self.log.append(ev)
        self.hyps = apply_event(self.hyps, ev, self.known)

    def replay_from(self, turn: int) -> None:
        idx, hyps = self.snaps[turn]
        for ev in self.log[idx:]:
            if type(ev) is dict:
                self.snaps[ev["turn"]] = (idx, hyps)
            hyps = apply_event(hyps, ev, self.known)
            idx += 1
        self.hyps = hyps

    def learn_position(self, turn: int, c: int) -> None:
        """Post-Cognition: the agent stood on c after her turn ``turn``."""
        if turn not in self.snaps:
            return
        self.known[turn] = c
        self.replay_from(turn)

    def union(self, keys=None) -> int:
        u = 0
        for j, branches in self.hyps.items():
            if keys is None or j in keys:
                for L, M, _ in branches:
                    u |= L | M
        return u
