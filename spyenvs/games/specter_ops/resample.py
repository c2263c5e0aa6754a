"""Hidden information for one viewer: ``hidden_key(game, viewer)``, what the viewer
may not know, and ``resample_hidden(game, viewer, rng)`` (rules §6.2), a clone in
which all of it is re-dealt consistently with what the viewer knows. The steps work
on the game's rules state (rules.py) and call its rules methods."""

from __future__ import annotations

import numpy as np

from . import board as B
from .belief import ORTH, apply_event
from .data import (
    A1, A2, A3, A4, A5, BLUEJAY, CARD0, CHAR0, CHARGES, COBRA, COPIES, FLASH, H2, H2V, HOLO, I1, I2, NO, ORANGUTAN, PAD, PROPHET, S3, SMOKE, STEALTH, SURGE, TANGLE, VELOCITY, X1, X2, YES, usable_by,
)
from .rules import MOVE_END


def hidden_key(game, viewer):
    kind = game._viewer_kind(viewer)
    rng_state = game.rng.bit_generator.state["state"]["state"] if game.rng is not None else 0
    parts = [rng_state]

    def agent_key(ag):
        return (ag.char, ag.pos, ag.hp, tuple(map(tuple, ag.hand)), tuple(ag.path), ag.steps,
                ag.stealth, ag.velocity, ag.holo, ag.holo_used, tuple(ag.history[-3:]), ag.moved3)

    if kind != "agent":
        parts.append(agent_key(game.ag[0]))
        if game.big:
            parts.append(tuple(game._h_obj))
        if kind == "hunter" and viewer - 1 != game._h_traitor:
            parts.append(game._h_traitor)
    if len(game.ag) > 1 and kind != "second":
        parts.append(agent_key(game.ag[1]))
    return tuple(parts)


def resample_hidden(game, viewer, rng):
    new = game.clone()
    kind = game._viewer_kind(viewer)
    # forced passes delay a decision whose mask may depend on what is re-dealt:
    # re-deal against it, then delay it again (a re-dealt padded turn, _replay_turn,
    # sets up its own passes)
    saved = new.pad_saved if type(new.pad_saved) is tuple else None
    if saved is not None:
        new.dec, new.actor, new.legal, new.mask = saved
    new._replayed = False
    if game.winner is None:
        if kind != "agent" and game.round == 0:
            _resample_setup(new, viewer, rng)
        elif kind != "agent":
            _resample_main(new, viewer, rng)
        if len(game.ag) > 1 and kind != "second":
            _resample_second(new, rng)
        if new.pad_on and not new._replayed:
            if new.dec == I1:
                new._set(I1, new.actor, new._i1_legal())
            elif new.dec == I2:
                new._set(I2, new.actor, new._i2_legal())
            elif new.dec == A5:
                new._set(A5, new.actor, new._a5_legal())
    if saved is not None and not new._replayed:
        new.pad_saved = (new.dec, new.actor, new.legal, new.mask)
        new._set(PAD, new.pad_actor, [NO])
    del new._replayed
    new.rng = np.random.default_rng(int(rng.integers(2**63)))
    return new


# ---- setup phase (before round 1): only the agent's choices and the dice are hidden
def _resample_setup(game, viewer, rng):
    ag = game.ag[0]
    if game.big:
        game._h_obj = [B.OBJECTIVES[s][int(rng.integers(0, 6))] for s in range(4)]
    if ag.char < 0:
        return
    if game._fixed_agent < 0:
        game._set_agent_char(int(rng.integers(0, 4)))
    n = len(ag.hand)
    game._taken = [0] * 8
    ag.hand = []
    for _ in range(n):
        opts = [t for t in range(8) if game._taken[t] < COPIES[t] and usable_by(t, ag.char)]
        game._take_card(0, opts[int(rng.integers(0, len(opts)))])
    if game.dec == S3:
        game._ask_card()


# ---- main agent (§6.2 for a loyal hunter, the traitor or the second agent)
def _resample_main(game, viewer, rng):
    ag = game.ag[0]
    pa = game.pa[0]
    bel = game.bel[0]
    kind = game._viewer_kind(viewer)
    # her turn is under way and not yet published (before its report or escape)
    mid_turn = game.cur == 0 and game.tr is not None and game.round >= 1 and not game.tr["done"]
    # 1. traitor seat (mid-turn: only seats whose branch fits this turn's public
    # pre-move facts, e.g. a card placement not yet folded into the belief)
    if game._h_traitor >= 0 and not game.exposed and kind == "hunter" and viewer - 1 != game._h_traitor:
        opts = [j for j in bel.hyps if j >= 0 and j != viewer - 1
                and (not mid_turn or _mid_turn_cells(game, bel.hyps[j]))]
        game._h_traitor = opts[int(rng.integers(0, len(opts)))]
        if game.dec in (H2, H2V) and game.actor != viewer:
            game._ask_main(game.actor - 1)  # REVEAL belongs to the new traitor's mask
    j = game._h_traitor if (game._h_traitor >= 0 and not game.exposed) else -1
    branches = bel.hyps[j]
    # 2. character (the second agent saw the box at X1/X2, so he knows her cards and character)
    if kind == "second":
        char = ag.char
    elif pa.char_known >= 0:
        char = pa.char_known
    elif game.dec == I1 and game.i1_a == 0 and not game.pad_on:
        char = COBRA
    else:
        opts = [c for c in range(4) if not (len(game.ag) > 1 and game.pa[1].char_known == c)]
        if game._fixed_agent >= 0:
            opts = [game._fixed_agent]
        char = opts[int(rng.integers(0, len(opts)))]
    # 3. position (and card branch)
    if mid_turn:
        cells = B.cells_of(_mid_turn_cells(game, branches))
        x = cells[int(rng.integers(0, len(cells)))]
        stealth_hp = None
        moved3 = ag.moved3
    else:
        cand = 0
        for L, M, _ in branches:
            cand |= L | M
        if game.dec == I1 and game.i1_a == 0 and not game.pad_on:
            cand &= ORTH[game.hpos[game.ht["seat"]]]
        if game.dec == A5 and game.cur == 0 and not game.pad_on:  # unpadded, A5 is asked only in range
            cand &= _objective_zone(game, char)
        cells = B.cells_of(cand)
        x = cells[int(rng.integers(0, len(cells)))]
        opts = [(L, M, st) for L, M, st in branches if ((L | M) >> x) & 1]
        L, M, stealth_hp = opts[int(rng.integers(0, len(opts)))]
        inl, inm = (L >> x) & 1, (M >> x) & 1
        moved3 = bool(inm) if inl != inm else bool(rng.integers(0, 2))
    # 4. objectives (4-5p: hidden from hunters and from the second agent)
    if game.big:
        rng_range = 2 if char == BLUEJAY else 1
        need = game.precog or (game.dec == A5 and game.cur == 0 and not game.pad_on)
        for s in range(4):
            if s not in game.completed:
                game._h_obj[s] = B.OBJECTIVES[s][int(rng.integers(0, 6))]
        if need:
            pairs = [(s, o) for s in range(4) if s not in game.completed for o in B.OBJECTIVES[s]
                     if B.dist(x, o) <= rng_range]
            if pairs:
                s, o = pairs[int(rng.integers(0, len(pairs)))]
                game._h_obj[s] = o
    # 5. hand
    stealth_now = bool(stealth_hp) if stealth_hp is not None else False
    other = game.ag[1].physical() if len(game.ag) > 1 else [0] * 8
    rot_now = -1
    if kind == "second":
        hand, spent = ag.hand, ag.spent
        rot_now = SURGE if ag.max_steps == 6 else STEALTH
    else:
        hand, spent, rot_now = _draw_hand(game, char, pa, rng, stealth_now, mid_turn, other, pa.ncards)
    # write back
    ag.char = char
    base = 6 if char == ORANGUTAN else 4
    if game.config["num_players"] == 4:
        base += 2
    ag.maxhp = base
    ag.hp = max(1, base - pa.damage)
    ag.hand = hand
    ag.spent = spent
    _recount_taken(game)
    ag.holo = -1
    ag.holo_used = False
    ag.moved3 = moved3
    # 6. trajectory: the latest positions, drawn backwards (§6.2 step 6)
    ag.pos = x
    if mid_turn:
        ag.history[-1] = x
        if game.pad_on:
            _replay_turn(game, 0, rng, rot_now)
        else:
            _restart_turn(game, rot_now)
        last = game.round - 1
    else:
        ag.path = [x]
        ag.stealth = stealth_now
        ag.stealth_path = False
        ag.velocity = False
        if len(ag.history) > game.round:
            ag.history[game.round] = x
            last = game.round
        elif game.round in bel.snaps:
            last = game.round  # her turn is published but not yet recorded (A5, I2)
        else:
            ag.history[-1] = x
            last = game.round - 1
    _resample_history(game, rng, j, last, x, classed=not mid_turn)
    if game.dec == I2 and not game.pad_on and (
            (game.i2_ctx == "quickdraw" and game.cur == 0) or (game.i2_ctx == "attack" and game.i2_a == 0)):
        if ag.charges(VELOCITY) == 0:
            _force_card(game, ag, VELOCITY)
        ag.velocity = False


def _mid_turn_cells(game, branches):
    """Bitset of her possible start cells this turn: the branches' cells that fit
    the turn's public facts so far (objective completed, card placement)."""
    tr = game.tr
    S = 0
    for L, M, _ in branches:
        S |= L | M
    if tr["obj"] >= 0:
        S &= B.BALL[2 if tr["bj"] else 1][tr["obj"]]
    return S & tr["pre_mask"]


def _objective_zone(game, char):
    r = 2 if char == BLUEJAY else 1
    z = 0
    for s in range(4):
        if s in game.completed:
            continue
        for o in (B.OBJECTIVES[s] if game.big else [game._h_obj[s]]):
            z |= B.BALL[r][o]
    return z


def _recount_taken(game):
    t = [0] * 8
    for ag in game.ag:
        for k, n in enumerate(ag.physical()):
            t[k] += n
    game._taken = t


def _draw_hand(game, char, pa, rng, stealth_now, mid_turn, other, ncards):
    """Revealed cards as published, one spent card per rotated use, the rest
    drawn uniformly from the physical cards her character may hold (§6.2 step 5).
    ``other`` counts the cards the other agent holds. Returns (hand, spent, the type
    of the card rotated in the current turn or -1)."""
    taken = list(other)
    hand, spent = [], []
    rot_now = -1  # the type of the card rotated this turn, if any
    for t in range(8):
        u = pa.uses[t]
        if not u:
            continue
        if CHARGES[t] == 2:
            taken[t] += 1
            if u < 2:
                hand.append([t, 2 - u])
            else:
                spent.append(t)
        else:
            taken[t] += u
            spent += [t] * u
    for k, (rnd, window) in enumerate(pa.rotated):
        if window == 1:
            t = STEALTH
        elif rnd == game.round and k == len(pa.rotated) - 1 and not mid_turn:
            t = STEALTH if stealth_now else SURGE
        else:
            t = SURGE if rng.integers(0, 2) else STEALTH
        if taken[t] >= COPIES[t]:
            t = STEALTH if t == SURGE else SURGE
        taken[t] += 1
        spent.append(t)
        if rnd == game.round:
            rot_now = t
    while len(hand) + len(spent) < ncards:
        opts = [t for t in range(8) if taken[t] < COPIES[t] and usable_by(t, char) and pa.uses[t] == 0]
        if not opts:
            break
        t = opts[int(rng.integers(0, len(opts)))]
        taken[t] += 1
        hand.append([t, CHARGES[t]])
    return hand, spent, rot_now


def _force_card(game, ag, t):
    generic = [i for i, c in enumerate(ag.hand) if c[0] not in (t,)]
    if generic:
        ag.hand[generic[0]] = [t, CHARGES[t]]
    else:
        ag.hand.append([t, CHARGES[t]])
    _recount_taken(game)


def _reset_turn_counters(ag):
    """A restarted turn's movement state, before any card is applied."""
    ag.steps = 0
    ag.max_steps = 4
    ag.stealth = ag.stealth_path = False
    ag.window = 0
    ag.pending_card = -1


def _apply_spent_card(game, ag, rot_now):
    """The card she spent this turn, as the re-dealt hand has it: Adrenal Surge gives
    6 steps, Stealth Field hides her path."""
    ag.card_used = True
    if game.tr["rotated"] == 1:
        if rot_now == SURGE:
            ag.max_steps = 6
        else:
            ag.stealth = ag.stealth_path = True


def _restart_turn(game, rot_now):
    """Mid-turn resample (unpadded): the turn restarts after its public pre-move part."""
    ag = game.ag[0]
    tr = game.tr
    ag.path = [ag.pos]
    _reset_turn_counters(ag)
    if tr["visible_card"]:
        _apply_spent_card(game, ag, rot_now)
        game._a_ask_step()
    else:
        ag.card_used = False
        s = game._eligible_objective()
        if tr["obj"] < 0 and s >= 0 and game._has_hunter(PROPHET) < 0:
            game._set(A1, ag.role, [NO, YES])
        else:
            game._a_before()


def _replay_turn(game, a, rng, rot_now):
    """Mid-turn resample under pad_agent_turn: agent ``a``'s turn restarts from its
    first slot at her re-dealt start cell, what it published is kept as published
    (A1, a visible card: already applied), and her hidden choices are replayed at
    random, among those that publish nothing, until her segment holds as many
    decisions as the real one; the slot rules (rules.PHASE_START) keep every phase
    in its slots. Without an open segment (her first decision waits behind another
    actor's passes) only that first decision is set up again."""
    ag = game.ag[a]
    tr = game.tr
    seg_open = game.seg_actor == ag.role
    k = game.seg_count if seg_open else 0
    ag.path = [ag.pos]
    ag.steps = 0
    ag.max_steps = 4
    ag.stealth = ag.stealth_path = False
    ag.window = 0
    ag.pending_card = -1
    ag.holo = -1
    ag.velocity = False
    pre_vis = tr["rotated"] == 1 or tr["pre_mask"] != B.ALL
    post_vis = tr["rotated"] == 2 or tr["post_mask"] != B.ALL
    ag.card_used = pre_vis or post_vis or game.xmove
    if tr["rotated"] == 1:
        if rot_now == SURGE:
            ag.max_steps = 6
        else:
            ag.stealth = ag.stealth_path = True
    elif tr["rotated"] == 2:
        ag.stealth = True  # Stealth Field after moving: rotated, published, in force
    if seg_open:
        game._replayed = True
        game.pad_saved = None
        game.pad_left = 0
        game.pad_actor = -1
        game.seg_count = 0
    prophet = game._has_hunter(PROPHET) >= 0
    if game.xmove:
        game.seg_count = min(k, 3)  # X1, X2, X2 were his reveal picks
        game._a_move_start()
    elif a == 0 and not prophet and tr["obj"] >= 0:
        game.seg_count = min(k, 1)  # A1 YES: public and applied
        game._a_before()
    elif a == 0 and not prophet and game._eligible_objective() >= 0:
        game._set(A1, ag.role, [NO, YES])
    else:
        game._a_before()
    if not seg_open:
        return
    game._pad_check()
    while game.seg_count < k:
        game._apply(_replay_choice(game, rng, k))


def _replay_choice(game, rng, k):
    """A random hidden choice for _replay_turn that publishes nothing before slot k."""
    legal = game.legal
    if len(legal) == 1:
        return legal[0]
    dec = game.dec
    if dec == A1:
        return NO  # she did not complete (a completion is public)
    ok = list(legal)
    if dec in (A2, A4):
        ok = [NO] + [c for c in legal if c == CARD0 + HOLO]  # silent
        if game.seg_count + 1 == k:  # a target still to pick publishes nothing yet
            ok += [c for c in legal if c - CARD0 in (FLASH, SMOKE, TANGLE)]
    elif dec == A3 and len(game.completed) >= 3:
        # she did not escape (an escape is public): no move ends on an escape point
        ag = game.ag[game.cur]
        last = ag.steps + 1 >= ag.max_steps or game.seg_count + 1 >= MOVE_END
        esc = game.escape_bits
        ok = [c for c in legal
              if not ((c == NO and (esc >> ag.pos) & 1) or (c != NO and last and (esc >> c) & 1))] or ok
    return ok[int(rng.integers(0, len(ok)))]


def _resample_history(game, rng, j, last, x, classed=False):
    """Redraw her cells after turns last-1 and last-2 backwards from x (her cell
    after turn ``last``) so that each turn's published events lead there."""
    ag = game.ag[0]
    bel = game.bel[0]
    for t in range(last, max(0, last - 2), -1):
        if t not in bel.snaps or t - 1 < 0:
            break
        idx, hyps = bel.snaps[t]
        end = bel.snaps[t + 1][0] if (t + 1) in bel.snaps else len(bel.log)
        prev = 0
        key = j if j in hyps else game._h_traitor
        for L, M, _ in hyps.get(key, ()):
            prev |= L | M
        cells = B.cells_of(prev)
        order = rng.permutation(len(cells))
        chosen = cells[int(order[0])] if cells else x
        for k in order:
            y = cells[int(k)]
            h = {key: (((1 << y), 0, False),)}
            for ev in bel.log[idx:end]:
                h = apply_event(h, ev, bel.known)
                if not h:
                    break
            u = 0
            for L, M, st in h.get(key if key in h else -1, ()):
                if t == last and classed:
                    # her latest cell must also keep its movement class and Stealth
                    # flag: answers still to come (motion sensor, sightings) use them
                    if st == ag.stealth:
                        u |= M if ag.moved3 else L
                else:
                    u |= L | M
            if (u >> x) & 1:
                chosen = y
                break
        if t - 1 >= 1:
            ag.history[t - 1] = chosen
        x = chosen


# ---- revealed second agent (C65)
def _resample_second(game, rng):
    ag = game.ag[1]
    pa = game.pa[1]
    if game.dec in (X1, X2) or ag.char < 0:
        # restart the reveal sequence: his choices are private
        ag.char = -1
        ag.hand = []
        ag.spent = []
        _recount_taken(game)
        game._set(X1, ag.role, [CHAR0 + c for c in range(4) if c != game.ag[0].char])
        if game.pad_on and game.seg_actor == ag.role:  # replay his picks so far at random
            k = game.seg_count
            game.seg_count = 0
            game._replayed = True
            while game.seg_count < k:
                game._apply(game.legal[int(rng.integers(0, len(game.legal)))])
        return
    at_ambush = game.dec == I1 and game.i1_a == 1 and not game.pad_on
    if pa.char_known >= 0:
        ag.char = pa.char_known
    elif at_ambush:
        ag.char = COBRA  # only Cobra is asked about an Ambush roll
    else:
        opts = [c for c in range(4) if c != game.ag[0].char]
        ag.char = opts[int(rng.integers(0, len(opts)))]
    ag.maxhp = 6 if ag.char == ORANGUTAN else 4
    ag.hp = max(1, ag.maxhp - pa.damage)
    bel = game.bel[1]
    cand = bel.union()
    mid = game.cur == 1 and game.tr is not None and not game.tr["done"]
    stealth_now = False
    if mid:
        cells = B.cells_of(cand & game.tr["pre_mask"])
        x = cells[int(rng.integers(0, len(cells)))]
    else:
        if at_ambush:
            cand &= ORTH[game.hpos[game.ht["seat"]]]
        cells = B.cells_of(cand)
        x = cells[int(rng.integers(0, len(cells)))]
        opts = [(L, M, st) for L, M, st in bel.hyps[-1] if ((L | M) >> x) & 1]
        L, M, st = opts[int(rng.integers(0, len(opts)))]
        stealth_now = st
        inl, inm = (L >> x) & 1, (M >> x) & 1
        ag.moved3 = bool(inm) if inl != inm else bool(rng.integers(0, 2))
    ag.hand, ag.spent, rot_now = _draw_hand(game, ag.char, pa, rng, stealth_now, mid, game.ag[0].physical(), 2)
    _recount_taken(game)
    ag.pos = x
    ag.path = [x]
    ag.holo = -1
    ag.velocity = False
    ag.stealth = stealth_now
    ag.stealth_path = False
    if game.pad_on:
        pass  # I2 may be a forced pass: its mask is rebuilt from the re-dealt state
    elif game.dec == I2 and game.i2_ctx == "attack" and game.i2_a == 1 and ag.charges(VELOCITY) == 0:
        _force_card(game, ag, VELOCITY)
    elif game.dec == I2 and game.i2_ctx == "quickdraw" and game.cur == 1 and ag.charges(VELOCITY) == 0:
        _force_card(game, ag, VELOCITY)
    if mid and game.pad_on:
        _replay_turn(game, 1, rng, rot_now)
    elif mid:
        _reset_turn_counters(ag)
        if game.xmove:
            ag.card_used = True
            game._a_ask_step()
        elif game.tr["visible_card"]:
            _apply_spent_card(game, ag, rot_now)
            game._a_ask_step()
        else:
            ag.card_used = False
            game._a_before()

