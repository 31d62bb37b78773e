"""A recorded game as one self-contained HTML page (no network access needed): who sat
in each seat, the result, the table drawn with cards, stepping forward and back or
jumping with a slider, and a choice of viewing seat.

Every view is computed here, in Python, from the engine: a seat's frames are the
engine's text view for that seat and the events described for it, so the page can only
show what that seat could see (the omniscient view is a separate choice). Works for
every ruleset, because it uses only the engine's text view and event log.
"""

from __future__ import annotations

import html
import json
from pathlib import Path

from cardenv.human.records import GameRecord

OMNISCIENT = "all"


def build_frames(record: GameRecord) -> dict:
    """The page's data: per step (the start, then after each decision) and per viewer
    (each seat, then ``"all"``), an index into a pool of texts, so that views that do
    not change between steps are stored once."""
    env = record.make_env()
    state = env.game
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
            table = state.render_text(viewer, state.config.memory, recent_events=0)
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
body { font-family: system-ui, sans-serif; margin: 1.2em; background: #1d5c3a; color: #f4f4f0; }
#controls { display: flex; gap: .6em; align-items: center; flex-wrap: wrap; margin-bottom: .8em; }
button, select { font-size: 1em; padding: .25em .7em; }
pre { font-family: ui-monospace, monospace; font-size: 15px; line-height: 1.7; background: #17472e;
      padding: .8em 1em; border-radius: 8px; white-space: pre-wrap; margin: .4em 0; }
#events { background: #123923; color: #dfe9df; }
.card { display: inline-block; min-width: 2.2em; text-align: center; background: #fff; color: #111;
        border-radius: 4px; border: 1px solid #999; padding: 0 .2em; line-height: 1.35; font-weight: 600; }
.card.red { color: #c01818; }
.card.back { background: repeating-linear-gradient(45deg, #2b4e9b, #2b4e9b 3px, #3b63b8 3px, #3b63b8 6px);
             color: transparent; }
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
<pre id="table"></pre>
<pre id="events"></pre>
<script id="data" type="application/json">__DATA__</script>
<script>
"use strict";
const data = JSON.parse(document.getElementById("data").textContent);
let step = 0;
const select = document.getElementById("viewer");
const slider = document.getElementById("slider");
slider.max = data.frames.length - 1;
document.getElementById("seats").textContent = data.seats;
document.getElementById("result").textContent = data.result;
data.viewers.forEach((name, i) => { const o = document.createElement("option"); o.value = i; o.textContent = name;
                                    select.appendChild(o); });
const SUITS = {S: "\\u2660", H: "\\u2665", D: "\\u2666", C: "\\u2663"};
const CARD = /(^|[^\\w?])((?:10|[A2-9JQK])[SHDC]|RJ|BJ|\\?\\?)(?!\\w)/g;
function escape(text) {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}
function cards(text) {
  return escape(text).replace(CARD, (match, before, card) => {
    if (card === "??") return before + '<span class="card back" data-card="??">??</span>';
    const red = card === "RJ" || /[HD]$/.test(card);
    const face = card.length <= 3 && SUITS[card.slice(-1)] && card !== "RJ" && card !== "BJ"
      ? card.slice(0, -1) + SUITS[card.slice(-1)] : card;
    return before + '<span class="card' + (red ? " red" : "") + '" data-card="' + card + '">' + face + "</span>";
  });
}
function show() {
  const [table, events] = data.frames[step][Number(select.value)];
  document.getElementById("table").innerHTML = cards(data.pool[table]);
  document.getElementById("events").innerHTML = cards(data.pool[events] || "(nothing yet)");
  document.getElementById("caption").textContent = data.captions[step];
  slider.value = step;
  document.body.dataset.step = step;
}
function go(to) { step = Math.max(0, Math.min(data.frames.length - 1, to)); show(); }
document.getElementById("first").onclick = () => go(0);
document.getElementById("back").onclick = () => go(step - 1);
document.getElementById("forward").onclick = () => go(step + 1);
document.getElementById("last").onclick = () => go(data.frames.length - 1);
slider.oninput = () => go(Number(slider.value));
select.onchange = show;
document.addEventListener("keydown", e => {
  // The slider and the view selector move with these keys themselves.
  if (e.target === slider || e.target === select) return;
  if (e.key === "ArrowRight") go(step + 1); else if (e.key === "ArrowLeft") go(step - 1);
  else if (e.key === "Home") go(0); else if (e.key === "End") go(data.frames.length - 1);
});
select.value = data.viewers.length - 1;
show();
</script>
</body></html>
"""


def write_html(record: GameRecord, path: str | Path) -> None:
    data = build_frames(record)
    # "</" cannot occur inside the script element's JSON: escape it.
    payload = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    page = PAGE.replace("__TITLE__", html.escape(data["title"])).replace("__DATA__", payload)
    Path(path).write_text(page, encoding="utf-8")
