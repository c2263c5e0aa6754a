"""The renderers of every registered env on many random states: pictures are
(H, W, 3) uint8, and a role's text and picture show nothing hidden from it (they do
not change when ``resample_hidden`` re-deals what that role cannot see). The play
CLI and the replays show exactly these views, so they are a leak surface too."""

from __future__ import annotations

import numpy as np
import pytest

from spyenvs.tools.html_replay import game_draws_pictures
from spyenvs.registry import ENV_IDS, make_game
from spyenvs.tools.replay import status_text

SEEDS = 6
STATES_PER_GAME = 5

#: leaks found by these tests and reported, expected to fail until fixed (non-strict
#: so the fix turns them green without editing this file)
KNOWN_VIEW_LEAKS = {}

ENVS = [
    pytest.param(e, marks=pytest.mark.xfail(reason=KNOWN_VIEW_LEAKS[e], strict=False)) if e in KNOWN_VIEW_LEAKS else e
    for e in ENV_IDS
]


def random_states(env_id, seed):
    """A few states spread over one random game (the start, the end and between)."""
    game = make_game(env_id)
    game.reset(seed)
    rng = np.random.default_rng(seed)
    length_guess = 0
    probe = game.clone()
    while not probe.is_over:
        legal = np.flatnonzero(probe.legal_mask())
        probe.step(int(legal[rng.integers(legal.size)]))
        length_guess += 1
    marks = {int(length_guess * k / (STATES_PER_GAME - 1)) for k in range(STATES_PER_GAME)}
    rng = np.random.default_rng(seed)
    for n in range(length_guess + 1):
        if n in marks:
            yield game
        if game.is_over:
            break
        legal = np.flatnonzero(game.legal_mask())
        game.step(int(legal[rng.integers(legal.size)]))


@pytest.mark.parametrize("env_id", ENVS)
def test_views_show_nothing_hidden(env_id):
    pictures = game_draws_pictures(make_game(env_id))
    for seed in range(SEEDS):
        for state in random_states(env_id, seed):
            assert isinstance(state.render_text(None), str)
            for p in range(state.num_players):
                text = state.render_text(p)
                other = state.resample_hidden(p, np.random.default_rng(seed + 100 * p))
                assert status_text(other, p) == status_text(state, p)
                assert other.render_text(p) == text, (
                    f"{env_id} seed {seed} step {len(state.actions)}: render_text({state.roles[p]}) "
                    "changes when hidden state is re-dealt"
                )
                if pictures:
                    rgb = state.render_rgb(p)
                    assert rgb.dtype == np.uint8 and rgb.ndim == 3 and rgb.shape[2] == 3 and rgb.size
                    assert np.array_equal(other.render_rgb(p), rgb), (
                        f"{env_id} seed {seed} step {len(state.actions)}: render_rgb({state.roles[p]}) "
                        "changes when hidden state is re-dealt"
                    )
            if pictures:
                rgb = state.render_rgb(None)
                assert rgb.dtype == np.uint8 and rgb.ndim == 3 and rgb.shape[2] == 3


@pytest.mark.parametrize("env_id", ENVS)
def test_move_labels_for_a_view_show_nothing_hidden(env_id):
    """How a role sees another role's pending move (``action_label_for``, used by
    play and replays) depends only on the move and what the role knows: it is the
    same in a re-deal of what the role cannot see, unless the move itself shows the
    role something different there (an Unrest PLAY index names hand slots, so the card
    it turns face up differs between deals; the label may name that public card)."""
    for seed in range(SEEDS):
        for state in random_states(env_id, seed):
            if state.is_over:
                continue
            actor = state.current_player
            for p in range(state.num_players):
                if p == actor:
                    continue
                other = state.resample_hidden(p, np.random.default_rng(seed + 7 * p))
                both = set(state.legal_actions()) & set(other.legal_actions())
                for a in sorted(both):
                    mine, theirs = state.action_label_for(a, p), other.action_label_for(a, p)
                    assert isinstance(mine, str) and mine
                    assert mine == theirs or _views_after_differ(state, other, a, p), (
                        f"{env_id} seed {seed} step {len(state.actions)}: {state.roles[p]} sees "
                        f"{state.roles[actor]}'s action {a} as {mine!r} or {theirs!r} depending on hidden state"
                    )


def _views_after_differ(state, other, a, p) -> bool:
    """Whether action ``a`` leaves role ``p`` a different observation in the two
    states (both given the same chance from here on)."""
    after = []
    for s in (state, other):
        s = s.clone()
        s.rng = np.random.default_rng(0)
        s.step(a)
        after.append(s.observe(p))
    return not np.array_equal(after[0], after[1])


# ------------------------------------------------------------- public moves
#: games whose public moves are not yet labelled for other roles (their helpers make
#: ``action_label_for`` show them); non-strict, so the fix turns them green unedited
KNOWN_HIDDEN_PUBLIC_MOVES: dict[str, str] = {}

PUBLIC_ENVS = [
    pytest.param(e, marks=pytest.mark.xfail(reason=KNOWN_HIDDEN_PUBLIC_MOVES[e], strict=False))
    if e in KNOWN_HIDDEN_PUBLIC_MOVES else e
    for e in ENV_IDS
]
TOOL_STEPS = 120  # decisions of one game checked through the replay tools


def is_placeholder(label: str) -> bool:
    """A move shown without its hidden part: the games write the hidden part in
    parentheses, e.g. ``(secret vote)``, the base class's ``(decision_name)`` or
    ``ALLOC (hidden until everyone has chosen)``."""
    return label.endswith(")") and "(" in label


def random_game_moves(env_id, seed):
    """(state before, action) for every decision of one random game."""
    game = make_game(env_id)
    game.reset(seed)
    rng = np.random.default_rng(seed)
    while not game.is_over:
        legal = np.flatnonzero(game.legal_mask())
        a = int(legal[rng.integers(legal.size)])
        yield game.clone(), a
        game.step(a)


@pytest.mark.parametrize("env_id", PUBLIC_ENVS)
def test_other_roles_see_public_moves_in_full(env_id):
    """Each game shows other roles' moves in full where they are public (issue 13):
    at least one move of one role reaches another role exactly as the omniscient
    label reads (the games' own label tests check each decision kind)."""
    shown_in_full = 0
    for seed in range(SEEDS):
        for state, a in random_game_moves(env_id, seed):
            full = state.action_label_for(a, None)
            for p in range(state.num_players):
                if p == state.current_player:
                    # the actor reads its own view (omniscient may name more: Unrest's
                    # Empire sees its face-down targets as h1:?)
                    assert state.action_label_for(a, p) == state.action_label(a)
                    continue
                seen = state.action_label_for(a, p)
                # a move may be shown in part ('ADD a card face down'); that the part
                # shown never depends on hidden state is the view-leak test's job
                assert seen.strip(), f"{env_id}: {state.roles[p]} is shown an empty label"
                shown_in_full += seen == full and not is_placeholder(full)
    assert shown_in_full, f"{env_id}: no move of one role is ever shown in full to another"


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_replay_html_and_play_label_moves_with_action_label_for(env_id, tmp_path):
    """The terminal replay, the HTML page and the play log show each move to each
    view exactly as ``action_label_for`` labels it for that view."""
    import io

    from spyenvs.tools.html_replay import build_replay_data
    from spyenvs.tools.play import play_game
    from spyenvs.tools.replay import ReplayTimeline

    moves = []
    for state, a in random_game_moves(env_id, 0):
        moves.append((state, a))
        if len(moves) == TOOL_STEPS:
            break
    rec = dict(moves[0][0].to_record(), actions=[a for _, a in moves])
    rec.pop("outcome", None)
    tl = ReplayTimeline(rec)
    data = build_replay_data(rec, images="none")
    views = [None, *range(moves[0][0].num_players)]
    for i, (state, a) in enumerate(moves):
        for k, v in enumerate(views):
            expected = state.action_label_for(a, v)
            assert tl.move_label(i, v) == expected
            assert data["moves"][i]["labels"][k] == expected

    answers = iter(["1"] * 25)

    def first_move(prompt=""):
        try:
            return next(answers)
        except StopIteration:
            raise EOFError from None

    res = play_game(env_id, {}, seat=0, seed=0, input_fn=first_move, out=io.StringIO(), save=False)
    game = make_game(env_id)
    game.reset(0)
    lines = iter(res.log)
    for a in res.record["actions"]:
        line = next(lines)
        if game.current_player != 0:
            assert line == f"{game.roles[game.current_player]}: {game.action_label_for(a, 0)}"
        game.step(a)
