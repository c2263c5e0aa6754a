"""`spyenvs replay FILE --html OUT.html`: one self-contained HTML file to watch a
recorded game in any browser, offline.

The page holds everything inline (CSS, JS, the data as JSON, pictures as
``data:image/png;base64``): a step slider, a view switch (omniscient and each role),
the state at that step in that view (``render_text`` and, where the game draws one,
the ``render_rgb`` picture) and the move log labelled per view with
``action_label_for``, so a role's view shows only what that role saw. Identical
texts and pictures are stored once. ``#step=N&view=ROLE`` in the address opens the
page at that step and view.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
from pathlib import Path
from typing import Any, Callable

from ..core.game import Game
from ..core.png import png_bytes
from .replay import ReplayTimeline

IMAGE_MODES = ("auto", "all", "none")


def game_draws_pictures(game: Game) -> bool:
    """Whether the game has its own ``render_rgb`` (not just the text picture)."""
    return type(game).render_rgb is not Game.render_rgb


def build_replay_data(rec: dict[str, Any], images: str = "auto",
                      progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """The JSON the page shows: per view and step an index into shared tables of
    texts and pictures, the move log labels per view, and a status line per view."""
    if images not in IMAGE_MODES:
        raise ValueError(f"images={images!r} not supported; allowed: {', '.join(IMAGE_MODES)}")
    tl = ReplayTimeline(rec)
    first = tl.states[0]
    with_images = images == "all" or (images == "auto" and game_draws_pictures(first))
    view_names = ["omniscient", *tl.roles]
    view_ids: list[int | None] = [None, *range(len(tl.roles))]
    texts: list[str] = []
    text_index: dict[str, int] = {}
    pictures: list[str] = []
    picture_index: dict[bytes, int] = {}
    text_idx: list[list[int]] = [[] for _ in view_ids]
    img_idx: list[list[int]] = [[] for _ in view_ids]
    n = len(tl)
    for step, state in enumerate(tl.states):
        for k, v in enumerate(view_ids):
            t = state.render_text(v)
            if t not in text_index:
                text_index[t] = len(texts)
                texts.append(t)
            text_idx[k].append(text_index[t])
            if with_images:
                rgb = state.render_rgb(v)
                key = hashlib.blake2b(rgb.tobytes(), digest_size=16).digest() + repr(rgb.shape).encode()
                if key not in picture_index:
                    picture_index[key] = len(pictures)
                    pictures.append(base64.b64encode(png_bytes(rgb)).decode("ascii"))
                img_idx[k].append(picture_index[key])
            else:
                img_idx[k].append(-1)
        if progress:
            progress(step, n)
    moves = [
        {"actor": tl.actors[i], "decision": tl.decisions[i],
         "labels": [tl.move_label(i, v) for v in view_ids]}
        for i in range(n)
    ]
    last = tl.states[-1]
    return {
        "env_id": tl.env_id,
        "config": tl.record["config"],
        "seed": tl.record["seed"],
        "roles": list(tl.roles),
        "views": view_names,
        "steps": n,
        "outcome": list(last.outcome()) if last.is_over else None,
        "status": [[tl.status_line(s, v) for s in range(n + 1)] for v in view_ids],
        "texts": texts,
        "text_idx": text_idx,
        "images": pictures,
        "img_idx": img_idx,
        "moves": moves,
    }


def _script_json(data: Any) -> str:
    """JSON safe inside <script>: no '<', '>' or '&' that could end the element."""
    return json.dumps(data, separators=(",", ":")).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


CSS = """
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:0;background:#f4f2ec;color:#222}
header{background:#2b3a42;color:#fff;padding:8px 16px}
header h1{font-size:18px;margin:0}
header .meta{font-size:12px;opacity:.8}
#controls{display:flex;gap:10px;align-items:center;padding:8px 16px;background:#e6e2d6;flex-wrap:wrap;position:sticky;top:0}
#controls input[type=range]{flex:1;min-width:200px}
#step-label{font-variant-numeric:tabular-nums;min-width:110px}
main{display:flex;gap:16px;padding:12px 16px;align-items:flex-start}
#state{flex:3;min-width:0}
#log-pane{flex:1;min-width:220px;max-height:80vh;overflow:auto;background:#fff;border:1px solid #ccc;border-radius:4px}
#log-pane h2,#state h2{font-size:14px;margin:4px 0 6px}
#last-move{font-weight:600;margin:4px 0}
#status{color:#555;margin:4px 0 8px}
#panes{display:flex;gap:12px;flex-wrap:wrap;align-items:flex-start}
#state-img{max-width:100%;image-rendering:pixelated;border:1px solid #bbb;background:#fff;display:block}
#state-img[hidden]{display:none}
#state-text{flex:1;min-width:300px;margin:0;background:#fff;border:1px solid #ccc;padding:8px;overflow:auto;font-size:12px;line-height:1.3;white-space:pre}
#move-log{margin:0;padding:0 4px 0 36px;font-size:12px;font-family:ui-monospace,monospace}
#move-log li{cursor:pointer;padding:1px 2px}
#move-log li:hover{background:#eef}
#move-log li.current{background:#ffe08a}
#move-log li.future{color:#999}
"""

JS = """
(function(){
const D = JSON.parse(document.getElementById('replay-data').textContent);
const $ = id => document.getElementById(id);
const slider = $('step'), viewSel = $('view'), log = $('move-log');
let step = 0, view = 0, timer = null;
D.views.forEach((name, k) => {
  const o = document.createElement('option'); o.value = k; o.textContent = name; viewSel.appendChild(o);
});
slider.max = D.steps;
D.moves.forEach((m, i) => {
  const li = document.createElement('li'); li.value = i + 1; li.dataset.step = i + 1;
  li.addEventListener('click', () => go(i + 1)); log.appendChild(li);
});
function label(i) { return D.roles[D.moves[i].actor] + ': ' + D.moves[i].labels[view]; }
function relabel() { Array.from(log.children).forEach((li, i) => { li.textContent = label(i); }); }
function show() {
  slider.value = step; viewSel.value = view;
  $('step-label').textContent = 'step ' + step + ' / ' + D.steps;
  $('state-text').textContent = D.texts[D.text_idx[view][step]];
  const im = D.img_idx[view][step], img = $('state-img');
  if (im >= 0) { img.src = 'data:image/png;base64,' + D.images[im]; img.hidden = false; } else { img.hidden = true; }
  $('status').textContent = D.status[view][step];
  $('last-move').textContent = step > 0 ? ('#' + step + ' ' + label(step - 1)) : '(start of the game)';
  $('view-name').textContent = D.views[view];
  Array.from(log.children).forEach((li, i) => {
    li.classList.toggle('current', i === step - 1); li.classList.toggle('future', i >= step);
  });
  const cur = log.children[step - 1]; if (cur && cur.scrollIntoView) cur.scrollIntoView({block: 'nearest'});
  try { history.replaceState(null, '', '#step=' + step + '&view=' + encodeURIComponent(D.views[view])); } catch (e) {}
}
function go(s) { step = Math.max(0, Math.min(D.steps, s)); show(); }
function setView(v) { view = v; relabel(); show(); }
slider.addEventListener('input', () => go(parseInt(slider.value, 10)));
viewSel.addEventListener('change', () => setView(parseInt(viewSel.value, 10)));
$('prev').addEventListener('click', () => go(step - 1));
$('next').addEventListener('click', () => go(step + 1));
$('play').addEventListener('click', () => {
  if (timer) { clearInterval(timer); timer = null; $('play').textContent = 'play'; return; }
  if (step >= D.steps) go(0);
  $('play').textContent = 'pause';
  timer = setInterval(() => { if (step >= D.steps) { $('play').click(); } else { go(step + 1); } }, 500);
});
document.addEventListener('keydown', e => {
  if (e.target === slider || e.target === viewSel) return;
  if (e.key === 'ArrowRight') go(step + 1); else if (e.key === 'ArrowLeft') go(step - 1);
});
const h = new URLSearchParams(location.hash.slice(1));
if (h.has('view')) { const k = D.views.indexOf(h.get('view')); if (k >= 0) view = k; }
else if (D.initial_view >= 0) view = D.initial_view;
if (h.has('step')) { const s = parseInt(h.get('step'), 10); if (!isNaN(s)) step = Math.max(0, Math.min(D.steps, s)); }
relabel(); show();
document.body.dataset.ready = '1';
})();
"""


def render_html(data: dict[str, Any], initial_view: str | None = None) -> str:
    """The page for ``data`` (from :func:`build_replay_data`)."""
    data = dict(data, initial_view=data["views"].index(initial_view) if initial_view in data["views"] else -1)
    cfg = ", ".join(f"{k}={v}" for k, v in data["config"].items())
    outcome = ("outcome: " + ", ".join(f"{r}={o:+g}" for r, o in zip(data["roles"], data["outcome"]))
               if data["outcome"] is not None else "unfinished game")
    title = f"{data['env_id']} replay (seed {data['seed']})"
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(title)}</title>
<style>{CSS}</style></head>
<body>
<header><h1>{html.escape(title)}</h1>
<div class="meta">{html.escape(cfg)} · {data['steps']} decisions · {html.escape(outcome)}</div></header>
<div id="controls">
<label>view <select id="view"></select></label>
<button id="prev" title="previous step (left arrow)">&#9664;</button>
<input type="range" id="step" min="0" max="0" value="0" aria-label="step">
<button id="next" title="next step (right arrow)">&#9654;</button>
<button id="play">play</button>
<span id="step-label"></span>
</div>
<main>
<section id="state"><h2>state — view: <span id="view-name"></span></h2>
<div id="last-move"></div><div id="status"></div>
<div id="panes"><img id="state-img" alt="board picture at this step" hidden>
<pre id="state-text"></pre></div></section>
<section id="log-pane"><h2>&nbsp;moves</h2><ol id="move-log"></ol></section>
</main>
<script type="application/json" id="replay-data">{_script_json(data)}</script>
<script>{JS}</script>
</body></html>
"""


def write_html_replay(rec: dict[str, Any], path: str | Path, images: str = "auto",
                      initial_view: str | None = None,
                      progress: Callable[[int, int], None] | None = None) -> Path:
    """Write the self-contained replay page for record ``rec`` to ``path``."""
    data = build_replay_data(rec, images=images, progress=progress)
    path = Path(path)
    path.write_text(render_html(data, initial_view), encoding="utf-8")
    return path
