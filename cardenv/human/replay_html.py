"""A recorded game as one self-contained HTML page (no network access needed): who sat
in each seat, the result, the drawn table (the frames' drawing, as SVG) with the event log
beside it, the step's events highlighted, stepping forward and back, jumping with a slider
or the keys, a URL per step (``#step=N``), and a choice of viewing seat.

Every view is computed here, in Python, from the engine: a seat's frames are the engine's
table view for that seat (:meth:`table_view`, drawn by :mod:`cardenv.drawing.svg`) and the
events described for it, so the page can only show what that seat could see (the
omniscient view is a separate choice). Works for every ruleset.
"""

from __future__ import annotations

import base64
import gzip
import html
import json
from pathlib import Path

from cardenv.drawing.svg import SvgTable, svg_open
from cardenv.human.chips import with_card_chips
from cardenv.human.records import GameRecord

OMNISCIENT = "all"


def build_frames(record: GameRecord) -> dict:
    """The page's data: per step (the start, then after each decision) and per viewer
    (each seat, then ``"all"``), indices into a pool of drawn tables and event texts, so
    that views that do not change between steps are stored once; the cards' symbols once."""
    env = record.make_env()
    state = env.game
    drawing = SvgTable()
    viewers: list[int | None] = [*range(state.num_players), None]
    pool: list[str] = []
    index: dict[str, int] = {}

    def intern(text: str) -> int:
        if text not in index:
            index[text] = len(pool)
            pool.append(text)
        return index[text]

    frames = []
    shown_events = 0
    captions = []

    def capture(seat: int | None, action: int | None) -> None:
        nonlocal shown_events
        new_events = state.events[shown_events:]
        shown_events = len(state.events)
        row = []
        for viewer in viewers:
            lines = []
            if action is not None and (viewer is None or viewer == seat):
                lines.append(f"player_{seat} chooses: {state.action_name_for(action, seat)}")
            elif action is not None:
                lines.append(f"player_{seat} decides")
            lines += [e.describe(state.card_name, viewer) for e in new_events]
            table = drawing.frame(state.table_view(viewer, state.config.memory, recent_events=0))
            row.append([intern(table), intern("\n".join(lines))])
        frames.append(row)
        captions.append("start" if action is None else f"decision {len(frames) - 1} of {len(record.actions)}")

    capture(None, None)
    for seat, action, _ in record.replay(env):
        capture(seat, action)
    agents = record.agents or ["not recorded"] * state.num_players
    return {
        "title": f"{record.ruleset} seed {record.seed}",
        "viewers": [f"player_{v}" if v is not None else "every card face up" for v in viewers],
        "seats": "seats: " + ", ".join(f"player_{p} {spec}" for p, spec in enumerate(agents)),
        "result": result_line(state, len(record.actions)),
        "pool": pool,
        "frames": frames,
        "captions": captions,
        "final_scores": record.final_scores,
        "svg_open": svg_open(),
        "defs": drawing.defs(),
    }


def result_line(state, decisions: int) -> str:
    """How the game ended: the winners, then every seat's final score and rank."""
    if not state.is_terminal:
        return f"result: none, the game was abandoned after {decisions} decisions"
    winners = state.winners()
    who = (f"player_{winners[0]} wins" if len(winners) == 1
           else " and ".join(f"player_{p}" for p in winners) + " share the win")
    ended = f" (truncated after {len(state.round_results)} rounds)" if state.is_truncated else ""
    return (f"result: {who}{ended}; final scores (rank): "
            + ", ".join(f"player_{p} {score} ({rank})" for p, (score, rank) in enumerate(zip(state.scores, state.ranks()))))


PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>cardenv replay: __TITLE__</title>
<style>
body { font-family: system-ui, sans-serif; margin: 1.2em; background: #18222b; color: #f4f4f0; }
#controls { display: flex; gap: .6em; align-items: center; flex-wrap: wrap; margin-bottom: .8em; }
button, select { font-size: 1em; padding: .25em .7em; }
#view { display: flex; gap: 1em; align-items: flex-start; }
#table { flex: 0 1 1280px; min-width: 0; }
#table svg { width: 100%; height: auto; display: block; border-radius: 8px; }
#events { flex: 1 1 18em; max-height: 80vh; overflow-y: auto; margin: 0; padding: .6em .8em; background: #123923;
          color: #dfe9df; border-radius: 8px; font-family: ui-monospace, monospace; font-size: 13px; line-height: 1.7; }
#events div { white-space: pre-wrap; padding: 0 .3em; border-radius: 4px; }
#events div.step { opacity: .6; margin-top: .4em; }
#events div.now { background: #35603f; }
__CARDS_CSS__
#caption { opacity: .85; }
#slider { flex: 1 1 16em; }
#seats, #result { margin: .2em 0; }
</style></head>
<body>
<h2>__TITLE__</h2>
<p id="seats"></p>
<p id="result"></p>
<div id="controls">
 <button id="first" title="Home">&laquo; first</button><button id="back" title="Left arrow">&#x25C0; back</button>
 <button id="forward" title="Right arrow">forward &#x25B6;</button><button id="last" title="End">last &raquo;</button>
 <input type="range" id="slider" min="0" value="0" aria-label="step">
 <label>view: <select id="viewer"></select></label>
 <span id="caption"></span>
</div>
<div id="view"><div id="table"></div><div id="events" aria-label="events"></div></div>
<div id="symbols" hidden></div>
<script id="data" type="application/json">__DATA__</script>
<script>
"use strict";
const data = JSON.parse(document.getElementById("data").textContent);
let step = 0;
// The pool of drawn tables and event texts comes gzipped (the browser's own DecompressionStream).
async function unpack(packed) {
  const bytes = Uint8Array.from(atob(packed), c => c.charCodeAt(0));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return JSON.parse(await new Response(stream).text());
}
const select = document.getElementById("viewer");
const slider = document.getElementById("slider");
slider.max = data.frames.length - 1;
document.getElementById("seats").textContent = data.seats;
document.getElementById("result").textContent = data.result;
document.getElementById("symbols").innerHTML = data.svg_open + data.defs + "</svg>";
data.viewers.forEach((name, i) => { const o = document.createElement("option"); o.value = i; o.textContent = name;
                                    select.appendChild(o); });
__CARDS_JS__
function show() {
  const viewer = Number(select.value);
  const [table] = data.frames[step][viewer];
  document.getElementById("table").innerHTML = data.svg_open + data.pool[table] + "</svg>";
  // The log up to this step as this viewer saw it, the step's own events highlighted.
  const log = document.getElementById("events");
  const parts = [];
  for (let s = 0; s <= step; s++) {
    const text = data.pool[data.frames[s][viewer][1]];
    if (!text) continue;
    parts.push('<div class="step' + (s === step ? " now" : "") + '">' + data.captions[s] + "</div>");
    parts.push('<div' + (s === step ? ' class="now"' : "") + ">" + cards(text) + "</div>");
  }
  log.innerHTML = parts.join("") || "<div>(nothing yet)</div>";
  log.scrollTop = log.scrollHeight;  // the step's events, at the end
  document.getElementById("caption").textContent = data.captions[step];
  slider.value = step;
  document.body.dataset.step = step;
  if (location.hash !== "#step=" + step) history.replaceState(null, "", "#step=" + step);
}
function go(to) { step = Math.max(0, Math.min(data.frames.length - 1, to)); show(); }
function fromHash() {
  const m = /^#step=(\\d+)$/.exec(location.hash);
  return m ? Number(m[1]) : 0;
}
document.getElementById("first").onclick = () => go(0);
document.getElementById("back").onclick = () => go(step - 1);
document.getElementById("forward").onclick = () => go(step + 1);
document.getElementById("last").onclick = () => go(data.frames.length - 1);
slider.oninput = () => go(Number(slider.value));
select.onchange = show;
window.addEventListener("hashchange", () => go(fromHash()));
document.addEventListener("keydown", e => {
  // The slider and the view selector move with these keys themselves.
  if (e.target === slider || e.target === select) return;
  if (e.key === "ArrowRight") go(step + 1); else if (e.key === "ArrowLeft") go(step - 1);
  else if (e.key === "Home") go(0); else if (e.key === "End") go(data.frames.length - 1);
});
select.value = data.viewers.length - 1;
unpack(data.pool_gzip).then(pool => { data.pool = pool; go(fromHash()); document.body.dataset.ready = "1"; });
</script>
</body></html>
"""


def write_html(record: GameRecord, path: str | Path) -> None:
    data = build_frames(record)
    # the pool (most of the page) gzipped: a tenth of the size; the page unpacks it
    pool = json.dumps(data.pop("pool"), separators=(",", ":")).encode()
    data["pool_gzip"] = base64.b64encode(gzip.compress(pool, mtime=0)).decode("ascii")
    # "</" cannot occur inside the script element's JSON: escape it.
    payload = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    page = with_card_chips(PAGE).replace("__TITLE__", html.escape(data["title"])).replace("__DATA__", payload)
    Path(path).write_text(page, encoding="utf-8")
