"""The results pages: docs/results/<name>.md, generated from docs/results/<name>.json.

    python benchmarks/results.py           # rewrite every results page from its JSON
    python benchmarks/results.py --check   # exit 1 when a page is out of date (the tests run this)

A results file is one page: ``{"title", "intro", "tables": [...]}``. Each table is
``{"id", "title", "kind", "command", "measured", "notes", "data"}``: ``command`` is the
exact command that produced it, ``measured`` says when, at which commit and on which
machine (``date``, ``commit``, ``machine``, and ``source`` where the figures were
transcribed from an earlier page), ``kind`` picks how ``data`` is drawn (``RENDERERS``).
A win share is shown with its 95% Wilson interval; where the data has none, it is
computed from the share and the games and the page says so.

The benchmark scripts that measure write their figures here with ``record`` (their
``--record`` option): the table is replaced by the new run's, stamped with today's date,
the checkout's commit and this machine, and the page is drawn again. Hand edits go to
the JSON, never to the pages.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import platform
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "docs" / "results"
Z95 = 1.959963984540054


# --- the files ---------------------------------------------------------------------------


def load(name: str) -> dict:
    """The results file ``docs/results/<name>.json`` (an empty page when there is none)."""
    path = RESULTS / f"{name}.json"
    return json.loads(path.read_text()) if path.exists() else {"title": name, "intro": "", "tables": []}


def save(name: str, page: dict) -> None:
    """Write the results file and draw its page again."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"{name}.json").write_text(json.dumps(page, indent=1, ensure_ascii=False) + "\n")
    (RESULTS / f"{name}.md").write_text(render(page, name))


def table(page: dict, table_id: str) -> dict | None:
    return next((t for t in page["tables"] if t["id"] == table_id), None)


def machine() -> str:
    return (f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs, "
            f"Python {platform.python_version()}")


def commit() -> str:
    """The checkout's commit, with ``+changes`` when tracked files differ from it."""
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+changes" if dirty else "")


def command_line(script: str, argv: list[str] | None) -> str:
    """``python benchmarks/SCRIPT ARGS`` as the user typed it (``argv`` None: this process's)."""
    import shlex

    args = sys.argv[1:] if argv is None else argv
    return shlex.join(["python", f"benchmarks/{script}", *args])


def record(name: str, table_id: str, kind: str, command: str, data, *, title: str | None = None,
           notes: str | None = None) -> dict:
    """Put a run's figures into ``docs/results/<name>.json`` as table ``table_id`` (replacing
    the earlier run's, keeping its title and notes unless given), stamped with today's
    date, this checkout's commit and this machine; the page is drawn again."""
    page = load(name)
    entry = table(page, table_id)
    if entry is None:
        entry = {"id": table_id, "title": title or table_id, "notes": notes or ""}
        page["tables"].append(entry)
    entry.update({"kind": kind, "command": command, "data": data,
                  "measured": {"date": datetime.date.today().isoformat(), "commit": commit(), "machine": machine()}})
    if title:
        entry["title"] = title
    if notes is not None:
        entry["notes"] = notes
    save(name, page)
    print(f"recorded in docs/results/{name}.json ({table_id}); docs/results/{name}.md drawn again")
    return entry


# --- formatting helpers ------------------------------------------------------------------


def wilson(share: float, games: int) -> tuple[float, float]:
    """95% Wilson interval of a win share over ``games`` (as cardenv.eval's)."""
    if games <= 0:
        return (0.0, 1.0)
    denominator = 1.0 + Z95 ** 2 / games
    center = (share + Z95 ** 2 / (2 * games)) / denominator
    half = Z95 / denominator * math.sqrt(share * (1 - share) / games + Z95 ** 2 / (4 * games * games))
    return (max(0.0, center - half), min(1.0, center + half))


def share_text(cell: dict) -> str:
    """``0.386 [0.364, 0.407]``: a win share and its 95% interval (Wilson from the games
    where the data has no interval, marked with a dagger)."""
    if "ci95" in cell:
        low, high = cell["ci95"]
        mark = ""
    else:
        low, high = wilson(cell["win_share"], cell["games"])
        mark = "†"
    return f"{cell['win_share']:.3f} [{low:.3f}, {high:.3f}]{mark}"


def rows(header: list[str], body: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header),
            *("| " + " | ".join(str(c) for c in line) + " |" for line in body)]


def number(value, digits: int = 0) -> str:
    return "–" if value is None else f"{value:,.{digits}f}"


# --- the kinds of table ------------------------------------------------------------------

def render_bench_envs(data: dict) -> list[str]:
    """bench_envs.py: decisions per second of every row, and its ratio to each reference."""
    references = [ref for ref in data.get("references", list(data.get("ratios", {}))) if ref in data["ratios"]]
    labels = {"pettingzoo leduc_holdem_v4 env()": "leduc_holdem_v4", "pettingzoo hanabi_v5 env()": "hanabi_v5",
              "open_spiel gin_rummy (with observation tensors)": "gin_rummy"}
    body = []
    for name, rate in data["decisions_per_second"].items():
        body.append([name.replace("env()", "`env()`"), number(rate),
                     *(f"{data['ratios'][ref][name]:.2f}" for ref in references)])
    return rows(["environment", "decisions/s", *(f"÷ {labels.get(ref, ref)}" for ref in references)], body)


# bench_parts.py's parts, in the order its table shows them
PART_ORDER = ["without the observation", "without the compiled call", "without the recent events",
              "without the ruleset's pieces", "without gathering the state's facts", "without the engine's event log",
              "without its integer records"]


def render_bench_parts(data: dict) -> list[str]:
    """bench_parts.py: µs of a raw decision, and what taking each part out saves."""
    rulesets = list(data["rulesets"])
    parts: list[str] = []
    for figures in data["rulesets"].values():
        parts += [p for p in figures["saves_us"] if p not in parts and p != "everything"]
    parts.sort(key=lambda p: PART_ORDER.index(p) if p in PART_ORDER else len(PART_ORDER))
    body = [["everything", *(number(data["rulesets"][r]["us_per_decision"].get("everything"), 1) for r in rulesets)]]
    for part in parts:
        body.append([f"saved {part}", *(number(data["rulesets"][r]["saves_us"].get(part), 1) for r in rulesets)])
    return rows(["µs per raw decision", *rulesets], body)


def render_bench_players(data: dict) -> list[str]:
    """bench_players.py: one row per ruleset and player count."""
    body = []
    for row in data["rows"]:
        kib = row["memory_kib"] if "memory_kib" in row else row["memory_bytes"] / 1024
        body.append([row["ruleset"], row["players"], number(row["decisions_per_second"]),
                     f"{row['us_per_observation']:.1f}", f"{row['us_per_observation'] / row['players']:.1f}",
                     number(row["observation_size"]), f"{kib:,.0f} KiB"])
    return rows(["ruleset", "players", "decisions/s", "µs per observation", "µs per observation / player",
                 "observation size", "memory per env"], body)


def render_bench_render(data: dict) -> list[str]:
    """bench_render.py: ms per drawn frame, beside a text render and a step, and the peers'."""
    peers = [name for name in data["rows"] if name.startswith("pettingzoo ")]
    body = []
    for name, row in data["rows"].items():
        text = f"{row['ms_per_text']:.2f}" if "ms_per_text" in row else "–"
        body.append([name, f"{row['ms_per_frame']:.2f}", text, f"{row['ms_per_step']:.3f}",
                     f"{row['ms_per_frame'] / row['ms_per_step']:,.0f}",
                     *(f"{row['ms_per_frame'] / data['rows'][peer]['ms_per_frame']:.2f}" for peer in peers)])
    return rows(["environment", "ms per `rgb_array` frame", "ms per `ansi` text", "ms per step", "frame ÷ step",
                 *(f"frame ÷ {peer.split()[1]}'s" for peer in peers)], body)


def render_bench_training(data: dict) -> list[str]:
    """bench_training.py: the single-seat view alone, PPO on it, PPO on the null env."""
    body = []
    for name, microseconds in data["view_us_per_step"].items():
        rate = data.get("ppo_steps_per_second", {}).get(name)
        ratio = data.get("ratio", {}).get(name)
        body.append([name, f"{microseconds:.1f}", number(rate), "–" if ratio is None else f"{ratio:.2f}"])
    if "null env" in data.get("ppo_steps_per_second", {}):
        body.append(["null env", "–", number(data["ppo_steps_per_second"]["null env"]), "1.00"])
    return rows([f"{data['ruleset']}: opponents", "µs per learner step (view alone)", "PPO learner steps/s",
                 "ratio to the null env"], body)


def render_bench_scaling(data: dict) -> list[str]:
    """bench_scaling.py: a tournament and RLlib training, by workers."""
    body = [[f"tournament ({data.get('tournament_what', 'onefifty_v0 heuristic vs 3 × heuristic')}), {label}",
             number(f.get("games")), f"{f['seconds']:.1f} s", f"{f['games_per_second']:.1f} games/s"]
            for label, f in data["tournament"].items()]
    body += [[f"RLlib PPO self-play ({data.get('rllib_what', 'onefifty_v0')}), {label}",
              number(f.get("env_steps")), f"{f['seconds']:.1f} s", f"{f['env_steps_per_second']:,.0f} env steps/s"]
             for label, f in data["rllib"].items()]
    return rows(["what, how", "games or env steps", "time", "rate"], body)


def render_bench_search(data: dict) -> list[str]:
    """bench_search.py: simulations per second (and ms per searched decision) of every row."""
    body = []
    for row in data["rows"]:
        ratio = row.get("ratio_to_baseline")
        ms = row.get("ms_per_decision")
        body.append([row["ruleset"], f"`{row['search']}`", number(row["simulations_per_second"]),
                     "–" if ms is None else f"{ms:,.1f}",
                     "–" if ratio is None else f"{ratio:.{row.get('ratio_digits', 1)}f}×"])
    return rows(["ruleset", "search", "simulations/s", "ms per searched decision", "× baseline"], body)


def render_strength_matrix(data: dict) -> list[str]:
    """strength_table.py: every candidate against 3 × every field, and the games per cell."""
    agents, cells, n = data["agents"], data["cells"], data["num_players"]

    def matrix(corner: str, text: Callable[[dict], str]) -> list[str]:
        body = [[candidate, *(text(cells[f"{candidate} | {field}"]) if f"{candidate} | {field}" in cells else "–"
                              for field in agents)] for candidate in agents]
        return rows([corner, *agents], body)

    caption = (f"Win share of the row's agent against {n - 1} × the column's agent (fair share {1 / n:.2f}), "
               "95% Wilson interval; games per cell in the second table.")
    return [caption, "", *matrix("candidate \\ field", share_text), "",
            *matrix("candidate \\ field (games, seconds)", lambda c: f"{c['games']}, {c['seconds']:.0f} s")]


def render_win_shares(data: dict) -> list[str]:
    """A grid of win shares: a row per candidate (or ruleset), a column per field."""
    def cell_text(cell: dict | None) -> str:
        if cell is None:
            return "–"
        if "win_share" not in cell:
            return cell["text"]
        text = f"{share_text(cell)} ({cell['games']} games)"
        return text + (f"; {cell['note']}" if cell.get("note") else "")

    body = [[row["label"], *(cell_text(row["cells"].get(column)) for column in data["columns"])]
            for row in data["rows"]]
    return rows([data["row_header"], *data["columns"]], body)


def render_openspiel_ismcts(data: dict) -> list[str]:
    """openspiel_ismcts.py: OpenSpiel's ISMCTSBot against our agents, two players."""
    body = []
    for row in data["rows"]:
        low, high = row["ci95_return"]
        cell = {"win_share": row["win_share"], "games": data["games"]}
        if "ci95" in row:
            cell["ci95"] = row["ci95"]
        body.append([row["opponent"], f"{row['mean_return']:+.2f} [{low:+.2f}, {high:+.2f}]", share_text(cell),
                     f"{row['seconds']:.0f}"])
    return [f"`{data['game']}`, {data['games']} games per row, seats swapped every game", "",
            *rows(["OpenSpiel ISMCTSBot vs", "its mean return (points) [95% CI]",
                   "its win share [95% Wilson] (a tie counts half)", "seconds"], body)]


def render_best_response(data: dict) -> list[str]:
    """best_response.py: a best response's win share against 3 copies of each target."""
    body = []
    for r in data["rows"]:
        minutes = r.get("seconds")
        body.append([r["ruleset"], r["target"], share_text(r), r["games"], r["seed"],
                     "–" if r.get("points_per_round") is None else f"{r['points_per_round']:.2f}",
                     "–" if r.get("call_rate") is None else f"{r['call_rate']:.3f}",
                     number(r.get("timesteps")), r.get("recipe", "–"),
                     "–" if minutes is None else f"{minutes / 60:.1f}", r.get("note", "")])
    return rows(["ruleset", "target (3 copies)", "best response's win share [95% Wilson]", "games", "seed",
                 "pts/round", "call rate", "steps", "recipe", "minutes", "note"], body)


def render_search_gain(data: dict) -> list[str]:
    """search_gain.py: the search against its blueprint on the same games, per cell."""
    body, made = [], []
    for k, r in enumerate(data["rows"], 1):
        if "measured" in r:  # (a row recorded before rows kept their own run has only the table's)
            made.append(f"{k}. `{search_gain_command(r)}` ({r['measured']['date']}, commit {r['measured']['commit']})")
        gain, (g_low, g_high) = r["points_gain"], r["points_gain_ci95"]
        share, (s_low, s_high) = r["win_share_difference"], r["win_share_difference_ci95"]
        options = "".join(f" {k}={v}" for k, v in sorted({**r.get("options", {}), **r.get("env_kwargs", {})}.items()))
        body.append([k, r["ruleset"], f"`search:{r['worlds']}@{r['blueprint']}`{options}",
                     f"`{r['blueprint'] if r['field'] == 'blueprint' else r['field']}`",
                     f"{r['games']} ({r['games_differing']})", f"{gain:+.2f} [{g_low:+.2f}, {g_high:+.2f}]",
                     f"{share:+.3f} [{s_low:+.3f}, {s_high:+.3f}]",
                     f"{r['win_share'][0]:.3f} / {r['win_share'][1]:.3f}", f"{r['ms_per_decision']:.0f}",
                     f"{r['searched_share']:.2f} / {r['deviation_share']:.3f}",
                     f"{3600 / r['search_seconds_per_game']:.0f}"])
    table = rows(["#", "ruleset", "search", "field (3 ×)", "games (ended differently)",
                  "points/round gain [95%]", "win share search − blueprint [95%]", "win share search / blueprint",
                  "ms per decision", "decisions searched / deviated", "games per hour"], body)
    return table + (["", "The run of each row (its command plays the row again):", "", *made] if made else [])


def search_gain_command(row: dict) -> str:
    """The search_gain.py command that plays one row's cell again."""
    args = ["--rulesets", row["ruleset"], "--blueprints", row["blueprint"], "--fields", row["field"],
            "--games", str(row["games"]), "--worlds", str(row["worlds"]), "--seed", str(row["seed"])]
    for key, value in sorted(row.get("env_kwargs", {}).items()):
        args += ["--env-arg", f"{key}={value}"]
    for key, value in sorted(row.get("options", {}).items()):
        args += ["--search-option", f"{key}={value}"]
    return command_line("search_gain.py", args)


def render_openspiel_mini(data: dict) -> list[str]:
    """openspiel_mini.py: the mini variants solved by CFR+, and our agents' exploitability."""
    body = []
    for ruleset, r in sorted(data.items()):
        tree, cfr = r["tree"], r["cfr"]
        first_below = next(n for n, value in cfr["curve"] if value < cfr["uniform_exploitability"] / 100)
        agents = r.get("agents", {})
        heuristic = agents.get("heuristic")
        ismcts = next((v for k, v in agents.items() if k.startswith("ismcts")), None)
        search = next((v for k, v in agents.items() if k.startswith("search")), None)
        ppo = next((v for k, v in agents.items() if k.startswith("MaskablePPO")), None)
        check = (f"perfect-recall check {r['perfect_recall_check_seconds']} s, " if "perfect_recall_check_seconds" in r
                 else "perfect-recall check in the slow test, ")
        body.append([
            f"`cardenv_{ruleset.removesuffix('_v0')}_mini`", f"`{r['options']['deck']}`",
            f"{tree['histories']:,} ({tree['chance']:,} / {tree['decision']:,} / {tree['terminal']:,})",
            f"{tree['information_states']:,}", f"{cfr['uniform_exploitability']:.3f}",
            f"{cfr['final']:.1e} after {cfr['iterations']} ({cfr['final_relative_to_uniform']:.4%}); "
            f"below 1% by {first_below}",
            *("—" if v is None else f"{v:.3f}" for v in (heuristic, search, ismcts, ppo)),
            f"tree {tree['seconds']:.0f} s, {check}cache + first iteration "
            f"{cfr['first_iteration_and_cache_seconds']:.0f} s, CFR+ with {len(cfr['curve'])} exploitability "
            f"evaluations {cfr['cfr_plus_seconds']:.0f} s"])
    agents = sorted({k for r in data.values() for k in r.get("agents", {})})
    lines = rows(["game", "deck", "histories (chance / decision / terminal)", "information states",
                  "uniform random", "CFR+ after N iterations (% of uniform)", "heuristic", "search@heuristic",
                  "ismcts", "MaskablePPO",
                  "times (one core)"], body)
    return lines + ["", "The agents measured: " + ", ".join(f"`{a}`" for a in agents) + "."]


def render_equilibrium_learners(data: dict) -> list[str]:
    """equilibrium_learners.py: one mini variant's exploitability curves, PPO self-play and MMD."""
    head = (f"Uniform random {data['uniform']:.3f}, heuristic {data['heuristic']:.3f}, target (5% of uniform) "
            f"{data['target']:.3f} points per game; {data['information_states']:,} information states; "
            f"{data['steps']:,} learner steps per recipe.")
    if data.get("ppo"):
        ppo = data["ppo"]
        head += (f" Both recipes: rollouts of {ppo['n_steps']} steps × {ppo['n_envs']} envs, minibatches of "
                 f"{ppo['batch_size']}, {ppo['n_epochs']} epochs, learning rate {ppo['learning_rate']}, entropy "
                 f"{ppo['ent_coef']}; self-play against the newest snapshot (one every {ppo['snapshot_every']:,} "
                 f"steps); rewards of reward_mode={data['reward_mode']}.")
    body = []
    for name, recipe in data["recipes"].items():
        options = ", ".join(f"{k}={v}" for k, v in recipe["options"].items()) or "no magnet"
        final = recipe["final"]
        meets = final < data["target"] and final < data["heuristic"]
        body.append([name.replace("_", " "), options,
                     " → ".join(f"{value:.3f}" for _, value in recipe["curve"]),
                     f"{final:.3f} ({final / data['uniform']:.1%} of uniform)", f"{recipe['greedy']:.3f}",
                     "yes" if meets else "no", f"{recipe['train_seconds']:.0f} s"])
    lines = [head, ""] + rows(["recipe", "options", "exploitability at each checkpoint", "final, as sampled",
                               "final, greedy", "below target and heuristic", "training"], body)
    if data.get("png"):
        lines += ["", f"![{data['ruleset']}](../{data['png']})"]
    return lines


def render_leaderboard(data: dict) -> list[str]:
    body = []
    for place, e in enumerate(data["entries"], 1):
        low, high = e["rating_ci95"]
        mode = {"rung": "full (ladder rung)", "full": "full", "quick": "quick"}[e["mode"]]
        took = "" if "seconds" not in e else f"{e['seconds'] / 60:.1f} ({e['workers']})"
        ladder = f"{e['ladder_rating']:.0f}" if "ladder_rating" in e else ""
        body.append([str(place), f"`{e['agent']}`", f"{e['rating']:.0f}", f"[{low:.0f}, {high:.0f}]", mode,
                     str(e["games"]), took, ladder, e["cardenv_version"], f"`{e['command']}`"])
    above = 1 / (1 + math.exp(-100 / data["points_per_strength"]))
    return rows(["#", "agent", "rating", "95% interval", "how", "games", "minutes (processes)", "on the ladder",
                 "cardenv", "command"], body) + [
        "", f"Protocol {data['protocol']}: `{data['zero']}` rates 0, `{data['thousand']}` 1000. Between two "
            f"players 100 points apart, the stronger finishes above the other with probability {above:.2f} "
            f"(Plackett–Luce). Every rating and interval is that of the agent's own games, the rungs held where "
            "the ladder put them (a rung's games are its ladder games, played once); \"on the ladder\" is a "
            "rung's strength fitted to all the ladder's games, which sets the scale. The two differ where the "
            "model fits the games imperfectly.", ""] + render_ladder(data["ladder"])


def render_ladder(cells: list[dict]) -> list[str]:
    """The ladder: each rung's win share against three copies of each rung (95% interval, games)."""
    rungs = list(dict.fromkeys(c["focal"] for c in cells))
    share = {(c["focal"], c["field"]): c for c in cells}
    body = [[f"`{focal}`", *(f"{share[(focal, field)]['win_share']:.3f} [{share[(focal, field)]['ci95'][0]:.2f}, "
                             f"{share[(focal, field)]['ci95'][1]:.2f}] ({share[(focal, field)]['games']})"
                             for field in rungs)] for focal in rungs]
    return ["The ladder: the row's win share against three copies of the column's (95% Wilson interval, games).",
            ""] + rows(["row vs 3 ×", *(f"`{rung}`" for rung in rungs)], body)


RENDERERS: dict[str, Callable[[object], list[str]]] = {
    "bench_envs": render_bench_envs, "bench_parts": render_bench_parts, "bench_players": render_bench_players,
    "bench_training": render_bench_training, "bench_scaling": render_bench_scaling,
    "bench_search": render_bench_search, "bench_render": render_bench_render, "strength_matrix": render_strength_matrix,
    "win_shares": render_win_shares, "openspiel_ismcts": render_openspiel_ismcts,
    "best_response": render_best_response, "openspiel_mini": render_openspiel_mini,
    "leaderboard": render_leaderboard, "search_gain": render_search_gain,
    "equilibrium_learners": render_equilibrium_learners,
}


# --- the pages ---------------------------------------------------------------------------


def anchor(title: str) -> str:
    """The anchor GitHub gives a heading."""
    kept = "".join(c for c in title.lower() if c.isalnum() or c in " -_")
    return kept.replace(" ", "-")


def measured_line(measured: dict) -> str:
    parts = [measured.get("date"), f"commit {measured['commit']}" if measured.get("commit") else None,
             measured.get("machine")]
    line = "Measured: " + ", ".join(p for p in parts if p) + "."
    if measured.get("source"):
        line += f" {measured['source']}"
    return line


def render(page: dict, name: str) -> str:
    """The markdown page of a results file."""
    lines = [f"# {page['title']}", "",
             f"<!-- generated by `python benchmarks/results.py` from {name}.json: edit the JSON, not this page -->",
             ""]
    if page.get("intro"):
        lines += [page["intro"].strip(), ""]
    if len(page["tables"]) > 1:
        lines += [f"- [{t['title']}](#{anchor(t['title'])})" for t in page["tables"]] + [""]
    daggers = False
    for t in page["tables"]:
        body = RENDERERS[t["kind"]](t["data"])
        daggers = daggers or any("†" in line for line in body)
        lines += [f"## {t['title']}", "", "```bash", t["command"], "```", "", measured_line(t["measured"]), ""]
        if t.get("notes"):
            lines += [t["notes"].strip(), ""]
        lines += [*body, ""]
    if daggers:
        lines += ["† The 95% Wilson interval computed by this page from the share and the games (the run gave "
                  "none).", ""]
    return "\n".join(lines)


def names() -> list[str]:
    return sorted(path.stem for path in RESULTS.glob("*.json"))


def stale_pages() -> list[str]:
    """The results pages that differ from what their JSON draws (or are missing)."""
    stale = []
    for name in names():
        page = RESULTS / f"{name}.md"
        if not page.exists() or page.read_text() != render(load(name), name):
            stale.append(str(page.relative_to(ROOT)))
    return stale


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when a page is out of date; write nothing")
    args = parser.parse_args(argv)
    if args.check:
        stale = stale_pages()
        for path in stale:
            print(f"out of date: {path} (run python benchmarks/results.py)")
        return 1 if stale else 0
    for name in names():
        (RESULTS / f"{name}.md").write_text(render(load(name), name))
        print(f"docs/results/{name}.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
