"""The Game contract for The Agents: config, masks, observation, cloning, hidden-state
resampling (6.1), invariants (10) and text. The rules engine is in ``rules.py``."""

from __future__ import annotations

from typing import Any

import numpy as np

from spyenvs.core import Game, Param

from . import data as D
from . import rules as R
from .observe import Encoder, build_layout
from .render import action_label, render_text

_STATIC = ("N", "nf", "cap", "members", "own", "other_fac", "mindex", "n_mtypes", "n_missions",
           "n_agents", "immediate", "encoder")
_SCALARS = ("next_pool", "start", "active", "turns", "turn_decisions", "barred", "mhg_revealed",
            "over", "truncated", "decision", "decider", "_mask", "bv", "cv", "av", "mv")


#: (board version, card version) pairs whose zone invariants were already checked
_CHECKED: set = set()

#: legal masks by their legal-action tuple (read-only arrays shared by all states)
_MASKS: dict[tuple, np.ndarray] = {}


class TheAgentsGame(R.TheAgentsState, Game):
    """The Agents (Saar Shai, 2013), 2-5 players, rules file ``rules/the_agents.md``."""

    env_id = "the_agents_v0"
    CONFIG = {
        "num_players": Param(2, int, min=2, max=5, doc="number of players"),
        "end_rule": Param("immediate", str, choices=("immediate", "equal_turns"),
                          doc="5.4: win at once at 40 IP (C9), or play out the round (C10)"),
        "start_player": Param("seat0", str, choices=("seat0", "random"), doc="3.1 (C8)"),
        "max_turns": Param(400, int, min=1, optional=True, doc="player-turns before truncation (C38)"),
        "max_decisions_per_turn": Param(1000, int, min=1, optional=True,
                                        doc="decisions in one turn before truncation (C38)"),
        "moral_high_ground": Param(True, bool, doc="C2: include the Moral High Ground missions"),
        "dead_identities_visible": Param(True, bool, doc="C34/C51: show dead cards' types"),
    }
    TEST_CONFIGS = [
        {"num_players": 2},
        {"num_players": 4},
        {"num_players": 5},
        {"num_players": 3, "end_rule": "equal_turns", "start_player": "random"},
        {"num_players": 2, "moral_high_ground": False, "dead_identities_visible": False},
    ]
    BAD_CONFIGS = [
        {"num_players": 1},
        {"num_players": 6},
        {"end_rule": "sudden"},
        {"start_player": 3},
        {"max_turns": 0},
        {"moral_high_ground": "yes"},
        {"bogus": 1},
    ]

    def _setup(self):
        self._setup_tables()
        self.roles = tuple(f"player_{i}" for i in range(self.N))
        self.num_actions = R.NUM_ACTIONS
        self.layout = build_layout(self)
        self.encoder = Encoder(self)

    def _new_game(self):
        self._deal()
        self._set_mask()

    def _set_mask(self):
        key = tuple(self.legal)
        m = _MASKS.get(key)
        if m is None:
            m = np.zeros(R.NUM_ACTIONS, np.int8)
            if key:
                m[list(key)] = 1
            m.flags.writeable = False  # shared between states: never modified
            if len(_MASKS) < 100000:
                _MASKS[key] = m
        self._mask = m

    def _apply(self, action):
        self._apply_action(action)
        self._set_mask()

    # ------------------------------------------------------------- contract
    @property
    def current_player(self):
        return self.decider

    def legal_mask(self):
        return self._mask

    def decision_name(self):
        return "game_over" if self.over else R.DECISIONS[self.decision]

    @property
    def is_over(self):
        return self.over

    def outcome(self):
        if not self.over or self.truncated or not self.winners:
            return [0.0] * self.N
        return [1.0 if q in self.winners else -1.0 for q in range(self.N)]

    def observe(self, player):
        return self.encoder.encode(self, player)

    def action_label(self, a):
        return action_label(self, a)

    def action_label_for(self, a, viewer):
        """Every choice is public except the Tracker's and the Interrogator's pick
        (seen by the executor, and for the Interrogator by its target)."""
        if viewer is None or viewer == self.decider or self.over:
            return self.action_label(a)
        if self.decision == R.D_TRACK or (self.decision == R.D_INT_CARD and viewer != self.stack[-1][7]):
            return f"({self.decision_name()})"
        return self.action_label(a)

    def render_text(self, viewer=None):
        return render_text(self, viewer)

    def render_rgb(self, viewer=None):
        from .render import render_rgb  # the picture code lives in render.py

        return render_rgb(self, viewer)

    # ---------------------------------------------------------------- clone
    def clone(self):
        new = self._clone_into(object.__new__(TheAgentsGame))
        d = new.__dict__
        src = self.__dict__
        for k in _STATIC:
            d[k] = src[k]
        for k in _SCALARS:
            d[k] = src[k]
        new.deck_a = list(self.deck_a)
        new.deck_m = list(self.deck_m)
        new.ret_a = list(self.ret_a)
        new.ret_m = list(self.ret_m)
        new.hand_a = [list(h) for h in self.hand_a]
        new.hand_m = [list(h) for h in self.hand_m]
        new.cnt_a = [list(h) for h in self.cnt_a]
        new.cnt_m = [list(h) for h in self.cnt_m]
        new.na = list(self.na)
        new.fac = [list(r) for r in self.fac]
        new.att = [[list(a), list(b)] for a, b in self.att]
        new.ip = list(self.ip)
        new.transit = [list(e) for e in self.transit]
        new.tag_a = [list(t) for t in self.tag_a]
        new.tag_m = [list(t) for t in self.tag_m]
        new.reached = list(self.reached)
        new.winners = list(self.winners)
        new.stack = [list(fr) for fr in self.stack]
        new.legal = list(self.legal)
        return new

    # ------------------------------------------------------------- hidden
    def hidden_key(self, viewer):
        return (
            tuple(tuple(self.cnt_a[q]) for q in range(self.N) if q != viewer),
            tuple(tuple(self.cnt_m[q]) for q in range(self.N) if q != viewer),
            tuple(c >> 1 for c in self.deck_a),
            tuple(c >> 1 for c in self.deck_m),
        )

    def _redeal(self, v, rng, pools=True):
        """Re-deal, in place, every card hidden from v within its exchangeable pool
        (v's tags), then shuffle both decks; other viewers' tags follow the slots."""
        self.cv = next(R.VERSIONS)
        self.mv = next(R.VERSIONS)
        for cls in ("a", "m"):
            hands = getattr(self, "hand_" + cls)
            tags = getattr(self, "tag_" + cls)
            deck = getattr(self, "deck_" + cls)
            tv = tags[v]
            slots = []  # (zone list, index)
            for q in range(self.N):
                if q != v:
                    h = hands[q]
                    for i, c in enumerate(h):
                        if tv[c] != R.KNOWN:
                            slots.append((h, i))
            for i in range(len(deck)):
                slots.append((deck, i))
            old = [z[i] for z, i in slots]
            new = list(old)
            if pools:
                groups = {}
                for k, c in enumerate(old):
                    groups.setdefault(tv[c], []).append(k)
                for ks in groups.values():
                    if len(ks) > 1:
                        perm = rng.permutation(len(ks))
                        vals = [new[ks[j]] for j in perm]
                        for k, x in zip(ks, vals):
                            new[k] = x
            # deck order is unknown to everyone
            nd = len(deck)
            if nd > 1:
                base = len(slots) - nd
                part = new[base:]
                perm = rng.permutation(nd)
                new[base:] = [part[j] for j in perm]
            for (z, i), x in zip(slots, new):
                z[i] = x
            for w in range(self.N):
                tw = tags[w]
                oldt = [tw[c] for c in old]
                for x, t in zip(new, oldt):
                    tw[x] = t
        for q in range(self.N):
            ca = [0] * D.NUM_AGENT_TYPES
            for c in self.hand_a[q]:
                ca[c >> 1] += 1
            self.cnt_a[q] = ca
            cm = [0] * 10
            for c in self.hand_m[q]:
                cm[c >> 1] += 1
            self.cnt_m[q] = cm

    def resample_hidden(self, viewer, rng):
        """6.1: a clone with everything hidden from ``viewer`` re-dealt. Pools follow
        the viewer's knowledge tags; a deal that would leave the pending decision
        without options (or change the viewer's own options) is redrawn, and after
        20 failures only the decks are reshuffled."""
        want = list(self.legal)
        for attempt in range(21):
            new = self.clone()
            new._redeal(viewer, rng, pools=attempt < 20)
            if not self.over:
                legal = new._legal_now()
                if not legal or (self.decider == viewer and legal != want):
                    continue
                new.legal = legal
                new._set_mask()
            break
        new.rng = np.random.default_rng(rng.integers(2**63))
        return new

    # ----------------------------------------------------------- invariants
    def check_invariants(self):
        # zone checks depend only on version stamps: the agent side on (board, agent
        # cards), the mission side on (board, attached, mission cards); each key is
        # checked once (module-level memo, kept out of the state), so free mission
        # operations only re-run the mission side
        key = ("a", self.bv, self.cv)
        if key not in _CHECKED:
            if len(_CHECKED) > 100000:
                _CHECKED.clear()
            self._check_agent_zones()
            _CHECKED.add(key)
        key = ("m", self.bv, self.av, self.mv)
        if key not in _CHECKED:
            self._check_mission_zones()
            _CHECKED.add(key)
        self._check_decision()

    def _check_agent_zones(self):
        n, nf = self.N, self.nf
        agents = list(self.deck_a) + list(self.ret_a) + [e[0] for e in self.transit]
        for q in range(n):
            agents += self.hand_a[q]
            assert self.na[q] == len(self.hand_a[q])
            ca = [0] * D.NUM_AGENT_TYPES
            for c in self.hand_a[q]:
                ca[c >> 1] += 1
            assert ca == self.cnt_a[q], "agent hand counts out of sync"
        for fr in self.stack:
            if fr[0] == R.BUILD and fr[3] == R.S_PFA and fr[4] >= 0:
                agents.append(fr[4])
        for f in range(nf):
            row = self.fac[f]
            agents += [c[0] for c in row]
            # 3/4/5: zone typing, caps, orientation
            assert len(row) <= self.cap, "faction over cap"
            for c in row:
                assert D.IS_FACTION[c[0] >> 1], "Free Agent in a faction"
                assert c[1] == -1 or c[1] in self.members[f], "bad orientation"
            # 11: arrows
            pa, pb, _, _ = self.arrows(f)
            assert pa + pb <= 2 * max(len(row) - 1, 0)
        # 1/2: conservation, every id exactly once
        assert sorted(agents) == list(range(self.n_agents)), "agent cards not conserved"
        assert len(self.transit) <= 3
        assert sum(1 for e in self.transit if e[0] >> 1 == D.MERCENARY) <= 2
        for e in self.transit:
            assert not D.IS_FACTION[e[0] >> 1]
        for c in self.ret_a:
            assert not D.IS_FACTION[c >> 1], "faction agent in the retired pile"
        # 6: IP
        for x in self.ip:
            assert isinstance(x, int) and x >= 0
        # 8: win rule
        if self.immediate:
            if not self.over:
                assert max(self.ip) < D.WIN_IP
            elif self.winners:
                assert all(self.ip[w] >= D.WIN_IP for w in self.winners)
        # 12: pins and knowledge tags
        for v in range(n):
            ta = self.tag_a[v]
            for c in self.hand_a[v]:
                assert ta[c] == R.KNOWN
            for f in range(nf):
                for c in self.fac[f]:
                    assert ta[c[0]] == R.KNOWN
            for c in self.ret_a:
                assert ta[c] == R.KNOWN
            for c in self.deck_a:
                assert ta[c] != R.KNOWN
        # 7: decks
        if not self.over:
            assert self.deck_a or not self.ret_a

    def _check_mission_zones(self):
        n, nf = self.N, self.nf
        missions = list(self.deck_m) + list(self.ret_m)
        for q in range(n):
            missions += self.hand_m[q]
            cm = [0] * 10
            for c in self.hand_m[q]:
                cm[c >> 1] += 1
            assert cm == self.cnt_m[q], "mission hand counts out of sync"
        for fr in self.stack:
            if fr[0] == R.BUILD and fr[3] == R.S_ATTACH and fr[8] >= 0:
                missions.append(fr[8])
        for f in range(nf):
            for m in (0, 1):
                lst = self.att[f][m]
                missions += lst
                assert len(lst) <= 2
                assert len({c >> 1 for c in lst}) == len(lst), "duplicate mission type on a faction"
                if lst:
                    assert self.fac[f], "mission attached to an empty faction"
        # 1/2: conservation, every id exactly once
        assert sorted(missions) == list(range(self.n_missions)), "mission cards not conserved"
        # 12: pins and knowledge tags
        for v in range(n):
            tm = self.tag_m[v]
            for c in self.hand_m[v]:
                assert tm[c] == R.KNOWN
            for c in self.deck_m:
                assert tm[c] != R.KNOWN
        # 7: decks
        if not self.over:
            assert self.deck_m or not self.ret_m

    def _check_decision(self):
        if self.over:
            return
        assert self.deck_a or not self.ret_a
        assert self.deck_m or not self.ret_m
        # 9: stack
        top = self.stack[-1]
        owner = top[1] if top[0] in (R.CTX, R.END, R.MHG) else top[2]
        assert owner == self.decider
        bonus = [fr for fr in self.stack if fr[0] == R.CTX and fr[3]]
        assert len(bonus) <= 2
        for fr in self.stack:
            if fr[0] == R.CTX:
                assert fr[2] >= 0 and fr[4] <= R.MAX_FREE_OPS
            if fr[0] == R.END:
                assert fr[2] <= R.MAX_FREE_OPS
        if top[0] == R.CTX:
            assert top[2] > 0 and not (self.barred >> top[1]) & 1
            if top[3]:
                assert all(a > R.A_STEP + R.S_MOVE for a in self.legal), "mission op in a bonus context"
        # 10: mask
        assert self.legal, "empty mask"
        assert self.legal == self._legal_now(), "cached mask is stale"
        # the mask array and the cached observation agree with fresh builds (a stale
        # cache entry outlives the step that made it, so every 4th decision suffices)
        if len(self.actions) % 4 == 0:
            assert np.flatnonzero(self._mask).tolist() == sorted(self.legal)
            enc = self.encoder
            # the decider on every other check, otherwise each seat in turn
            k = len(self.actions) // 4
            v = self.decider if k % 2 == 0 else k // 2 % self.N
            fast = enc.encode(self, v)
            assert np.array_equal(fast, enc.encode(self, v, cached=False)), "stale observation cache"

    def config_summary(self) -> dict[str, Any]:
        return dict(self.config)
