"""The observation (§6): its layout (``build_layout``, ``static_planes``,
``varying_columns``) and ``encode(game, player)``: board planes over the 32x23 map
plus a vector of public and private facts, built only from what the observer may
know. Hunters are listed egocentrically (the observing hunter first); agents as
main, second."""

from __future__ import annotations

from array import array

import numpy as np

from spyenvs.core import Layout

from . import board as B
from .belief import LAST_SEEN, SEEN
from .data import DECISIONS

PLANES = [
    ("structure", "structures (incl. objectives, compass, title block)"),
    ("road", "road cells"),
    ("escape", "escape points in use"),
    ("objective", "open objective cells the observer knows (1) or candidates (1/6, 4-5p hunters)"),
    ("completed", "completed objectives"),
    ("vehicle", "vehicle token"),
    ("hunter_0", "hunter slot 0 (the observer if a hunter), on the board"),
    ("hunter_1", "hunter slot 1"),
    ("hunter_2", "hunter slot 2"),
    ("hunter_3", "hunter slot 3"),
    ("smoke", "smoke clouds"),
    ("flash", "flash-bang tokens"),
    ("sighting_main", "latest placement of the main agent: 1 seen / 0.5 last seen"),
    ("sighting_second", "latest placement of the second agent (5p)"),
    ("own_position", "the observer's own cell if it is an agent"),
    ("own_path", "cells the observing agent occupied this turn"),
    ("hunter_vision", "union of the hunters' current sight (public)"),
]
BELIEF_PLANES = [
    ("belief_main", "cells where the main agent can be as the hunters know it (§6.1): a hunter's own belief, "
                    "and for the agents the hunters' public one (§6 amendment), in 5p with the traitor undisclosed "
                    "the union over the traitor hypotheses (the union of the loyal hunters' beliefs)"),
    ("belief_second", "the same for the revealed second agent (every viewer)"),
]
ND = len(DECISIONS)
AGENT_FEATS = 5 + 4 + 1 + 1 + 2 + 1 + 8 + 1 + 1 + 10 + 2  # = 36, in the order of the layout text
HUNTER_FEATS = 4 + 8 + 4
PRIVATE_FEATS = 4 + 2 + 8 + 3 + 2 + 1 + 8 + 2


def _planes(game):
    return PLANES + (BELIEF_PLANES if game.config["belief_planes"] else [])


def build_layout(game) -> Layout:
    """The observation layout for ``game``'s config (belief planes or not)."""
    lay = Layout()
    planes = _planes(game)
    lay.add("board", (len(planes), B.H, B.W), 0, 1, "planes: " + "; ".join(f"{n}: {d}" for n, d in planes))
    lay.add("round", 1, 0, 1, "round / 40")
    lay.add("decision", ND, 0, 1, "pending decision one-hot: " + ", ".join(DECISIONS))
    lay.add("me", 5, 0, 1, "observer is: agent, hunter, second agent, the undisclosed traitor (own knowledge), acting now")
    lay.add("traitor_seat", 4, 0, 1, "main agent only: the seat she gave the traitor card")
    lay.add("hunters", (4, HUNTER_FEATS), 0, 1,
            "per hunter slot: character one-hot, in play, riding, stunned, blind, acted, revoked, acting, exposed traitor, sniper N/E/S/W")
    lay.add("vehicle", 1, 0, 1, "vehicle allowance left / 10")
    lay.add("objectives", 5, 0, 1, "completed per section, count / 4")
    lay.add("precog", 1, 0, 1, "Pre-Cognition announced")
    lay.add("agents", (2, AGENT_FEATS), 0, 1,
            "per agent, main then second, each of 36 slots: 0 in play, 1 escaped, 2 active, 3 character known, 4 unknown; "
            "5-8 character one-hot; 9 damage / 8; 10 public now; 11-12 sighting kind seen / last seen; "
            "13 sighting age / 40; 14-21 card uses per type / 2; 22 rotated uses / 4; 23 cards / 5; "
            "24-33 motion sensor answer N, NE, E, SE, S, SW, W, NW, here, no motion; 34-35 Beast senses: not close / close")
    lay.add("private", PRIVATE_FEATS, 0, 1,
            "observer's own agent: character; hp / 8, max hp / 8; charges per card type / 2; stealth, velocity, "
            "decoy used; steps / 6, max steps / 6; card used; pending card; after-move window; moved 3+")
    lay.add("hunter_turn", 3, 0, 1, "acting hunter: spaces moved / 5, walked 5, started in vehicle")
    return lay


def static_planes(game, lay) -> np.ndarray:
    """An observation of ``lay`` holding only the map planes that never change:
    structures, roads and the escape points in use (4-5 players add the extra ones)."""
    n = game.config["num_players"]
    escape_bits = B.bits(B.ESCAPES + (B.ESCAPE_EXTRA if n >= 4 else []))
    static = np.zeros(lay.size, np.float32)
    board = static[lay.blocks["board"].slice].reshape(len(_planes(game)), B.N)
    board[0] = B.to_plane(B.STRUCT)
    board[1] = B.to_plane(B.ROAD)
    board[2] = B.to_plane(escape_bits)
    return static


#: board planes and the cells where each can ever be set (the rest is constant)
_PLANE_CELLS = {
    "objective": "objectives", "completed": "objectives", "vehicle": "road", "smoke": "all",
    "flash": "walkable", "sighting_main": "walkable", "sighting_second": "walkable", "own_position": "walkable",
    "own_path": "walkable", "hunter_vision": "walkable", "belief_main": "walkable", "belief_second": "walkable",
    "hunter_0": "walkable", "hunter_1": "walkable", "hunter_2": "walkable", "hunter_3": "walkable",
}


def varying_columns(layout, num_hunters: int, second_agent: bool) -> np.ndarray:
    """The observation entries that can change (see ``Game.varying_inputs``): no static
    map plane (structure, road, escape), no plane of an absent hunter slot or second
    agent, and on the other planes only the cells the plane can mark: tokens, sightings,
    sight and beliefs stand on walkable (non-structure) cells, the vehicle on roads,
    objectives on objective cells; smoke clouds may cover any cell. Every vector entry
    counts as varying."""
    board = layout.blocks["board"]
    planes = PLANES + BELIEF_PLANES
    names = [nm for nm, _ in planes][: board.shape[0]]
    walkable = ~B.to_plane(B.STRUCT).astype(bool)
    cells = {"all": np.ones(B.N, bool), "walkable": walkable, "road": B.to_plane(B.ROAD).astype(bool),
             "objectives": np.isin(np.arange(B.N), [c for s in B.OBJECTIVES for c in s])}
    absent = {f"hunter_{k}" for k in range(num_hunters, 4)}
    if not second_agent:
        absent |= {"sighting_second", "belief_second"}
    keep = []
    for j, nm in enumerate(names):
        where = _PLANE_CELLS.get(nm)
        if where is None or nm in absent:
            continue
        keep.append(board.start + j * B.N + np.flatnonzero(cells[where]))
    keep += [np.arange(board.start), np.arange(board.start + board.size, layout.size)]
    return np.sort(np.concatenate(keep)).astype(np.int64)


_CAND: dict[tuple, array] = {}
_SIXTH = np.float32(1 / 6)
#: unpacked dense planes by bitset (vision and beliefs repeat across viewers and steps)
_PLANES: dict[int, np.ndarray] = {}
_KIND = {"agent": 0, "hunter": 1, "second": 2}


def _candidates(completed):
    """Flat indices of the candidate cells of the sections not yet completed (4-5p hunters)."""
    idx = _CAND.get(completed)
    if idx is None:
        idx = _CAND[completed] = array(
            "q", [3 * B.N + o for s in range(4) if s not in completed for o in B.OBJECTIVES[s]])
    return idx


#: the observation cache: ONE buffer holding the public part last written, for any viewer
#: (a single buffer stays in the CPU caches between steps; one per viewer did not):
#: [public version, viewer, buffer, ones, value indices, values, dense bitsets, completed
#: sections behind the objective candidates written (None: none), per viewer and agent
#: (belief hyps object, traitor undisclosed, its union as that viewer sees it), the
#: viewer's own sparse cells; ones / value indices / values are the shared part's]
_VER, _VIEWER, _BUF, _ONES, _VI, _VV, _DENSE, _CANDKEY, _BELMEMO, _VONES = range(10)


def encode(game, p):
    """The observation of role p: the public part plus the observer's private overlay.
    The public part is updated in place in one buffer when the public state or the
    viewer changes (see Game._pubver): the indices written last time are cleared and
    the new ones set, and a dense plane is unpacked only when its bitset changed."""
    c = game._obs_cache.get(0)
    if c is None:
        c = game._obs_cache[0] = [-1, -1, game._static.copy(), array("q"), array("q"), array("f"), [0, 0, 0],
                                  None, {}, array("q")]
    if c[_VER] != game._pubver or c[_VIEWER] != p:
        _public(game, p, c)
        c[_VER] = game._pubver
        c[_VIEWER] = p
    obs = c[_BUF].copy()
    _private(game, p, obs)
    return obs


def _common(game):
    """The viewer-independent sparse part (ones, value indices, values) and the
    hunters' joint sight, built once per public version and shared by all viewers
    (several hunters vote in a row without any public change, H0)."""
    hit = game._obs_common
    if hit is not None and hit[0] == game._pubver:
        return hit
    N = B.N
    ones = array("q")  # flat indices set to 1 (array: no list conversion at the end)
    vi = array("q")  # flat indices with other values
    vv = array("f")
    one = ones.append
    via = vi.append
    vva = vv.append
    for s in game.completed:
        one(4 * N + game._h_obj[s])
    one(5 * N + game.vpos)
    vision = 0
    if game.round > 0:
        # game._sight inlined (hot): blind hunters see nothing
        hin, blind, riding, hpos, sniper, smoke = (game.hin, game.blind, game.riding, game.hpos, game.sniper,
                                                   game.smoke_bits)
        sight = B.sight
        for s in range(game.nh):
            if hin[s] and not blind[s]:
                vision |= sight(game.vpos if riding[s] else hpos[s], smoke, sniper[s])
    if game.smoke_bits:
        cells = _SMOKE.get(game.smoke_bits)
        if cells is None:
            if len(_SMOKE) > 4096:
                _SMOKE.clear()
            cells = _SMOKE[game.smoke_bits] = array("q", [10 * N + c for c in B.cells_of(game.smoke_bits)])
        ones.extend(cells)
    for t in game.flash:
        one(11 * N + t)
    for a in range(2):
        pa = game.pa[a]
        if pa.sight_cell >= 0:
            if pa.sight_kind == SEEN:
                one((12 + a) * N + pa.sight_cell)
            else:
                via((12 + a) * N + pa.sight_cell)
                vva(0.5)
    st = game._starts
    via(st["round"])
    vva(game.round / 40)
    via(st["vehicle"])
    vva((10 - game.vused) / 10)
    o = st["objectives"]
    for s in game.completed:
        one(o + s)
    via(o + 4)
    vva(len(game.completed) / 4)
    if game.precog:
        one(st["precog"])
    o = st["agents"]
    rnd = game.round
    for a in range(2):
        pa = game.pa[a]
        if not pa.active:
            continue
        # the agent's features change rarely: memoised on everything they are built from
        key = (o, a, pa.in_play, pa.escaped, pa.char_known, pa.damage, pa.public_now, pa.sight_kind,
               pa.sight_cell >= 0, rnd - pa.sight_round, *pa.uses, len(pa.rotated), pa.ncards,
               pa.sensor, pa.close)
        part = _AGENT.get(key)
        if part is None:
            if len(_AGENT) > 20000:
                _AGENT.clear()
            part = _AGENT[key] = _agent_part(o + a * AGENT_FEATS, pa, rnd)
        ones.extend(part[0])
        vi.extend(part[1])
        vv.extend(part[2])
    hit = game._obs_common = (game._pubver, ones, vi, vv, vision)
    return hit


#: the agents' feature cells by everything they are built from (see _common)
_AGENT: dict[tuple, tuple] = {}


def _agent_part(base, pa, rnd):
    """One agent's public features: (flat indices set to 1, value indices, values)."""
    ones = array("q")
    vi = array("q")
    vv = array("f")
    one = ones.append
    via = vi.append
    vva = vv.append
    if pa.in_play:
        one(base)
    if pa.escaped:
        one(base + 1)
    one(base + 2)
    if pa.char_known >= 0:
        one(base + 3)
        one(base + 5 + pa.char_known)
    else:
        one(base + 4)
    if pa.damage:
        via(base + 9)
        vva(min(pa.damage / 8, 1.0))
    if pa.public_now:
        one(base + 10)
    if pa.sight_kind == SEEN:
        one(base + 11)
    elif pa.sight_kind == LAST_SEEN:
        one(base + 12)
    if pa.sight_cell >= 0:
        via(base + 13)
        vva(min((rnd - pa.sight_round) / 40, 1.0))
    uses = pa.uses
    for t in range(8):
        if uses[t]:
            via(base + 14 + t)
            vva(min(uses[t] / 2, 1.0))
    via(base + 22)
    vva(min(len(pa.rotated) / 4, 1.0))
    via(base + 23)
    vva(pa.ncards / 5)
    if pa.sensor >= 0:
        one(base + 24 + pa.sensor)
    if pa.close >= 0:
        one(base + 34 + pa.close)
    return ones, vi, vv


#: the hunters' flag cells by everything they are built from (see _public)
_HUNTERS: dict[tuple, array] = {}
_SMOKE: dict[int, array] = {}


def _hunters_part(o, slots, hchar, hin, riding, stunned, blind, acted, revoked, sniper, exposed_seat):
    """Flat indices of the hunters' flags set to 1, slot by slot (egocentric slots)."""
    ones = array("q")
    one = ones.append
    for k, s in enumerate(slots):
        base = o + k * 16
        if hchar[s] >= 0:
            one(base + hchar[s])
        if hin[s]:
            one(base + 4)
            if riding[s]:
                one(base + 5)
        if stunned[s]:
            one(base + 6)
        if blind[s]:
            one(base + 7)
        if acted[s]:
            one(base + 8)
        if revoked[s]:
            one(base + 9)
        if exposed_seat == s:
            one(base + 11)
        if sniper[s] >= 0:
            one(base + 12 + sniper[s])
    return ones


def _public(game, p, cache):
    """The shared part (_common) plus what depends on the viewer: egocentric hunter
    slots, role flags, objectives the viewer knows, belief planes. Sparse cells and
    flags are set by index, the dense planes (vision, beliefs) unpacked from bitsets.
    Writes into the viewer's cached buffer."""
    nplanes = game.layout.blocks["board"].shape[0]
    N = B.N
    kind = game._viewer_kind(p)
    nh = game.nh
    traitor_undisclosed = game._h_traitor >= 0 and not game.exposed
    me_seat = p - 1 if kind == "hunter" else -1
    slots = [(me_seat + k) % nh for k in range(nh)] if me_seat >= 0 else list(range(nh))
    obs = cache[_BUF]
    _, c_ones, c_vi, c_vv, vision = _common(game)
    ones = array("q")  # the viewer's own sparse cells (disjoint from the shared ones)
    one = ones.append
    # objectives the viewer knows
    hidden_objectives = game.big and kind != "agent"
    if not hidden_objectives:
        for s in range(4):
            if s not in game.completed:
                one(3 * N + game._h_obj[s])
    started = game.round > 0
    for k, s in enumerate(slots):
        if game.hin[s] and not game.riding[s] and game.hpos[s] >= 0:
            one((6 + k) * N + game.hpos[s])
    dense = [vision, 0, 0]
    if nplanes > 17 and started:
        # every viewer sees the hunters' belief about each agent, the agents included
        # (§6 amendment: it is public); only a hunter folds in what he knows of the traitor
        for a in range(2):
            bel = game.bel[a]
            if bel is None or not game.pa[a].in_play:
                continue
            hyps = bel.hyps
            memos = cache[_BELMEMO].get(p)
            if memos is None:
                memos = cache[_BELMEMO][p] = [None, None]
            memo = memos[a]
            if memo is not None and memo[0] is hyps and memo[1] == traitor_undisclosed:
                u = memo[2]  # the belief has not changed since this viewer's last build
            else:
                keys = None
                if a == 0 and traitor_undisclosed and kind == "hunter":
                    if me_seat == game._h_traitor:
                        keys = (me_seat,)
                    else:
                        keys = tuple(j for j in hyps if j != me_seat)
                u = bel.union(keys)
                memos[a] = (hyps, traitor_undisclosed, u)
            tr = game.tr
            if a == 0 and game.cur == 0 and tr is not None and not tr["done"]:
                u &= tr["pre_mask"]  # her turn's placement before moving, not yet in the belief
            dense[1 + a] = u
    prev = cache[_DENSE]
    for k in range(3 if nplanes > 17 else 1):
        b = dense[k]
        if b == prev[k]:
            continue
        d = b ^ prev[k]
        if d.bit_count() <= 12:
            # a few cells changed: set them one by one (cheaper than unpacking the plane)
            mv = memoryview(obs)
            o = (16 + k) * N
            while d:
                low = d & -d
                mv[o + low.bit_length() - 1] = 1.0 if b & low else 0.0
                d ^= low
            prev[k] = b
        else:
            plane = _PLANES.get(b)
            if plane is None:
                if len(_PLANES) > 4096:
                    _PLANES.clear()
                plane = _PLANES[b] = B.to_plane(b)
            o = (16 + k) * N
            obs[o:o + N] = plane
            prev[k] = b
    # ---------------------------------------------------------------- vectors
    st = game._starts
    o = st["me"]
    one(o + _KIND[kind])
    if kind == "hunter" and traitor_undisclosed and me_seat == game._h_traitor:
        one(o + 3)
    if kind == "agent" and game._h_traitor >= 0:
        one(st["traitor_seat"] + game._h_traitor)
    o = st["hunters"]
    hchar, hin, riding, stunned, blind, acted, revoked, sniper = (
        game.hchar, game.hin, game.riding, game.stunned, game.blind, game.acted, game.revoked, game.sniper)
    exposed_seat = game._h_traitor if game.exposed else -1
    # the hunters' flags change a few times a round: memoised on all they are built from
    key = (o, nh, me_seat, exposed_seat, *hchar, *hin, *riding, *stunned, *blind, *acted, *revoked, *sniper)
    part = _HUNTERS.get(key)
    if part is None:
        if len(_HUNTERS) > 20000:
            _HUNTERS.clear()
        part = _HUNTERS[key] = _hunters_part(o, slots, hchar, hin, riding, stunned, blind, acted, revoked,
                                             sniper, exposed_seat)
    ones.extend(part)
    # the candidate cells (1/6 each, plane 3) change only with the completed sections and
    # the viewer's kind: written like a dense plane (old ones cleared before the sparse
    # cells, new ones set after them: an agent's known objectives share plane 3)
    cand_key = tuple(game.completed) if hidden_objectives else None
    if cand_key != cache[_CANDKEY] and cache[_CANDKEY] is not None:
        obs[np.frombuffer(_candidates(cache[_CANDKEY]), np.int64)] = 0.0
    # clear what the last build wrote, then write this one (sparse blocks never
    # overlap the static or dense planes); the shared and the viewer's cells are disjoint
    # and compared apart: the shared ones often repeat from step to step
    if c_ones != cache[_ONES] or c_vi != cache[_VI] or c_vv != cache[_VV]:
        if cache[_ONES]:
            obs[np.frombuffer(cache[_ONES], np.int64)] = 0.0
        if cache[_VI]:
            obs[np.frombuffer(cache[_VI], np.int64)] = 0.0
        if c_ones:
            obs[np.frombuffer(c_ones, np.int64)] = 1.0
        if c_vi:
            obs[np.frombuffer(c_vi, np.int64)] = np.frombuffer(c_vv, np.float32)
        cache[_ONES], cache[_VI], cache[_VV] = c_ones, c_vi, c_vv
    if ones != cache[_VONES]:
        if cache[_VONES]:
            obs[np.frombuffer(cache[_VONES], np.int64)] = 0.0
        if ones:
            obs[np.frombuffer(ones, np.int64)] = 1.0
        cache[_VONES] = ones
    if cand_key != cache[_CANDKEY]:
        if cand_key is not None:
            obs[np.frombuffer(_candidates(cand_key), np.int64)] = _SIXTH
        cache[_CANDKEY] = cand_key


def _private(game, p, obs):
    """What only p knows and changes inside the agent's private sub-steps: her
    cell and path, hand and turn state, the pending decision (C58). Few values:
    written one by one through a memoryview (cheaper than numpy fancy indexing)."""
    N = B.N
    st = game._starts
    mv = memoryview(obs)
    actor = game.actor
    kind = game._viewer_kind(p)
    if game.winner is None:
        if actor == p:
            mv[st["decision"] + game.dec] = 1.0  # other seats' sub-steps stay private (C58)
            mv[st["me"] + 4] = 1.0
        s = actor - 1
        if 0 <= s < game.nh and game.hin[s]:  # the acting hunter's slot (public)
            k = (s - p + 1) % game.nh if kind == "hunter" else s
            mv[st["hunters"] + k * 16 + 10] = 1.0
        ht = game.ht
        if ht is not None and actor == ht["seat"] + 1:
            o = st["hunter_turn"]
            mv[o] = min(ht["moved"], 5) / 5
            if ht["walk5"]:
                mv[o + 1] = 1.0
            if ht["rode"]:
                mv[o + 2] = 1.0
    if kind == "hunter":
        return
    own = 0 if kind == "agent" else 1
    if own >= len(game.ag):
        return
    ag = game.ag[own]
    if ag.in_play and game.round > 0:
        mv[14 * N + ag.pos] = 1.0
        o = 15 * N
        for c in ag.path:
            mv[o + c] = 1.0
    base = st["private"]
    if ag.char >= 0:
        mv[base + ag.char] = 1.0
    mv[base + 4] = max(ag.hp, 0) / 8
    mv[base + 5] = ag.maxhp / 8
    mv[base + 17] = ag.steps / 6
    mv[base + 18] = ag.max_steps / 6
    charges = [0] * 8
    for t, ch in ag.hand:
        charges[t] += ch
    for t in range(8):
        if charges[t]:
            mv[base + 6 + t] = min(charges[t] / 2, 1.0)
    for flag, k in ((ag.stealth, 14), (ag.velocity, 15), (ag.holo_used, 16), (ag.card_used, 19),
                    (ag.window, 28), (ag.moved3, 29)):
        if flag:
            mv[base + k] = 1.0
    if ag.pending_card >= 0:
        mv[base + 20 + ag.pending_card] = 1.0
