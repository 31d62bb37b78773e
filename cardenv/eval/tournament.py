"""A tournament: one candidate agent against a field, seats rotated, fully seeded.

Game ``g`` seats agent ``k`` (0 = the candidate, 1… = the field) at seat
``(k + g) mod n``, so over every block of ``n`` consecutive games each agent sits in
each seat exactly once. The game count is rounded up to a multiple of ``n``. Game ``g``
uses env seed ``seed + g``, and before it every agent's generator is restarted from
``SeedSequence(seed, spawn_key=(g, k))``: a game depends on nothing played before it,
so ``workers`` processes give exactly the games one process gives.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field

import numpy as np

from cardenv.agents.base import observation_for
from cardenv.agents.specs import make_agent, seat_specs
from cardenv.core import validation
from cardenv.core.agent import Agent, RulesetInfo
from cardenv.engine.rounds import RoundResult
from cardenv.envs.info import make_raw_env, ruleset_info
from cardenv.eval.intervals import wilson_interval
from cardenv.human.records import GameRecord


def whole_rotations(games: int, num_players: int) -> int:
    """The games a tournament plays for ``games`` asked: rounded up to a multiple of the
    players, so that every agent sits in every seat equally often."""
    return -(-games // num_players) * num_players


def seating(game_index: int, num_players: int) -> list[int]:
    """``seats[s]`` = index of the agent (0 = candidate) sitting at seat ``s`` in this game."""
    seats = [0] * num_players
    for k in range(num_players):
        seats[(k + game_index) % num_players] = k
    return seats


@dataclass
class GameOutcome:
    """One game of a tournament, from the candidate's side."""

    candidate_seat: int
    share: float  # 1/k if the candidate is one of k tied winners, else 0
    final_scores: list[int]
    rounds: int
    steps: int
    candidate_points: list[int]  # points the candidate added, round by round
    candidate_calls: int
    candidate_successful_calls: int
    truncated: bool
    capped_rounds: int = 0  # rounds that ended at the turn cap instead of by a call or going out
    ranks: list[int] = field(default_factory=list)  # every seat's finishing rank (1 = best; level players share one)


@dataclass
class TournamentResult:
    ruleset: str
    candidate: str
    field: list[str]
    games: int
    seed: int
    env_kwargs: dict
    win_share: float
    win_share_ci95: tuple[float, float]
    mean_points_per_round: float
    mean_final_score: float
    call_rate: float  # calls per round played by the candidate
    call_success_rate: float | None  # successful calls / calls (None without calls)
    mean_rounds_per_game: float
    mean_steps_per_game: float
    truncated_games: int
    capped_round_rate: float  # share of the rounds that ended at the turn cap
    seconds: float
    interval_method: str = "Wilson score, 95%"
    outcomes: list[GameOutcome] = field(default_factory=list, repr=False)

    def to_json(self, with_games: bool = False) -> str:
        data = asdict(self)
        if not with_games:
            data.pop("outcomes")
        return json.dumps(data, indent=2)


def play_game(env, agents_by_seat: Sequence[Agent], seed: int, actions: list | None = None) -> int:
    """Play one game on a raw env; returns the number of decisions taken. With
    ``actions`` (a list), every ``(seat, action)`` is appended to it."""
    env.reset(seed=seed)
    for agent in agents_by_seat:
        agent.reset()
    state = env.game
    steps = 0
    while not state.is_terminal:
        seat = state.current_player
        agent = agents_by_seat[seat]
        action = agent.act(observation_for(agent, env, seat), state, seat)
        if actions is not None:
            actions.append((seat, action))
        env.step(action)
        env.step_done_agents()
        steps += 1
    return steps


def _outcome(state, candidate_seat: int, steps: int) -> GameOutcome:
    winners = state.winners()
    share = 1.0 / len(winners) if candidate_seat in winners else 0.0
    points, calls, successes = [], 0, 0
    capped = sum(result.reason == RoundResult.TURN_CAP for result in state.round_results)
    for result in state.round_results:
        points.append(int(result.points_added[candidate_seat]))
        if result.caller == candidate_seat:
            calls += 1
            mine = result.hand_totals[candidate_seat]
            if all(t > mine for p, t in enumerate(result.hand_totals) if p != candidate_seat):
                successes += 1
    return GameOutcome(candidate_seat, share, list(state.scores), len(state.round_results), steps, points,
                       calls, successes, bool(state.is_truncated), capped, list(state.ranks()))


class _Progress:
    """rich's progress bar on stderr (nothing when disabled or stderr is not a terminal)."""

    def __init__(self, total: int, enabled: bool, description: str):
        self.progress = None
        if enabled:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn, TimeRemainingColumn

            self.progress = Progress("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
                                     TimeElapsedColumn(), TimeRemainingColumn(), console=Console(stderr=True),
                                     transient=False)
            self.task = self.progress.add_task(description, total=total)
            self.progress.start()

    def update(self) -> None:
        if self.progress is not None:
            self.progress.advance(self.task)

    def close(self) -> None:
        if self.progress is not None:
            self.progress.stop()


class TournamentTable:
    """The agents and the env of a tournament, able to play any one of its games by
    index (what a worker process holds)."""

    def __init__(self, ruleset: str, specs: Sequence[str], seed: int, env_kwargs: dict, record_games: bool,
                 agent_factory: Callable[[str, RulesetInfo, np.random.Generator], Agent] = make_agent):
        info = ruleset_info(ruleset, **env_kwargs)
        self.ruleset, self.specs, self.seed, self.env_kwargs = ruleset, list(specs), seed, env_kwargs
        self.record_games = record_games
        self.agents = [agent_factory(spec, info, np.random.default_rng(seed)) for spec in self.specs]
        self.env = make_raw_env(ruleset, **env_kwargs)

    def play(self, game_index: int) -> tuple[GameOutcome, GameRecord | None]:
        n = len(self.agents)
        seats = seating(game_index, n)
        for k, agent in enumerate(self.agents):
            agent.reseed(np.random.SeedSequence(self.seed, spawn_key=(game_index, k)))
        actions: list | None = [] if self.record_games else None
        env_seed = self.seed + game_index
        steps = play_game(self.env, [self.agents[k] for k in seats], env_seed, actions)
        outcome = _outcome(self.env.game, seats.index(0), steps)
        record = None
        if actions is not None:
            record = GameRecord.of_game(self.ruleset, self.env_kwargs, env_seed, self.env.game, actions,
                                        agents=[self.specs[k] for k in seats])
        return outcome, record

    def close(self) -> None:
        for agent in self.agents:
            agent.close()


_worker_table: TournamentTable | None = None

# The thread pools of the numeric libraries a worker may load (OpenBLAS and MKL behind
# numpy, OpenMP behind torch), by the environment variables they read when loaded.
THREAD_POOL_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity where the platform tells it)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


@contextmanager
def worker_thread_limits(workers: int) -> Iterator[None]:
    """Processes started inside get the usable cores shared out among ``workers`` as their
    numeric libraries' threads (at least one each), unless the user set those variables.

    A policy's forward pass is one small matrix product per decision; OpenBLAS splits it
    over every core by default, and with every core busy playing games its helper threads
    wait for a time slice: measured on two cores with other games running, one
    value estimate took 0.4 ms (8 ms between other work) against 0.16 ms single-threaded."""
    limit = str(max(1, usable_cores() // workers))
    added = [name for name in THREAD_POOL_VARIABLES if name not in os.environ]
    os.environ.update(dict.fromkeys(added, limit))
    try:
        yield
    finally:
        for name in added:
            os.environ.pop(name, None)


def _start_worker(*table_args) -> None:
    global _worker_table
    _worker_table = TournamentTable(*table_args)


def _play_in_worker(game_index: int) -> tuple[GameOutcome, GameRecord | None]:
    return _worker_table.play(game_index)


def run_tournament(
    ruleset: str,
    candidate: str,
    field: Sequence[str],
    games: int,
    seed: int = 0,
    env_kwargs: dict | None = None,
    progress: bool = False,
    agent_factory: Callable[[str, RulesetInfo, np.random.Generator], Agent] = make_agent,
    workers: int = 1,
    on_record: Callable[[int, GameRecord], None] | None = None,
    ray_address: str | None = None,
) -> TournamentResult:
    """Play ``games`` games of ``candidate`` against ``field`` (one spec per other seat,
    in a list or separated by commas as on the command line; a single spec fills every
    other seat: :func:`~cardenv.agents.specs.seat_specs`); ``games`` is rounded up
    to a multiple of the players, so every agent sits in every seat equally often.

    ``workers`` > 1 plays the games in that many processes (the agent factory must then
    be picklable; the games and so the results are those of one process; call this
    under ``if __name__ == "__main__":`` in a script, as multiprocessing requires).
    ``ray_address`` plays them as Ray tasks instead (the ``ray`` extra): ``"local"``
    starts a cluster on this machine, ``"auto"`` or ``"HOST:PORT"`` joins a running one;
    an already initialised Ray is used as it is. The results are again those of one
    process. ``on_record(game_index, record)`` receives each game's
    :class:`GameRecord`, in order.
    """
    env_kwargs = dict(validation.mapping("env_kwargs", env_kwargs) or {})
    info = ruleset_info(ruleset, **env_kwargs)
    n = info.num_players
    field = seat_specs(field if isinstance(field, str) else validation.sequence("field", field, "agent specs"), n,
                       "field", ruleset)
    games = validation.integer("games", games, 1)
    seed = validation.integer("seed", seed, 0)
    workers = validation.integer("workers", workers, 1)
    games = whole_rotations(games, n)
    table_args = (ruleset, [candidate, *field], seed, env_kwargs, on_record is not None, agent_factory)
    outcomes: list[GameOutcome] = []
    bar = _Progress(games, progress, f"{ruleset} {candidate} vs {','.join(sorted(set(field)))}")
    start = time.perf_counter()
    table = pool = None
    try:
        if ray_address is not None:
            from cardenv.eval.distributed import play_with_ray

            results = play_with_ray(TournamentTable, table_args, games, ray_address)
        elif workers == 1:
            table = TournamentTable(*table_args)
            results = map(table.play, range(games))
        else:
            # spawn, not fork: a forked copy of a process that has started torch's
            # threads can deadlock.
            pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                                       initializer=_start_worker, initargs=table_args)
            with worker_thread_limits(workers):  # the spawned workers read them as they start
                results = pool.map(_play_in_worker, range(games), chunksize=max(1, min(16, games // (4 * workers))))
        for g, (outcome, record) in enumerate(results):
            outcomes.append(outcome)
            if on_record is not None:
                on_record(g, record)
            bar.update()
    finally:
        bar.close()
        if table is not None:
            table.close()
        if pool is not None:
            pool.shutdown(cancel_futures=True)
    return summarize(ruleset, candidate, field, seed, env_kwargs, outcomes, time.perf_counter() - start)


def summarize(ruleset, candidate, field, seed, env_kwargs, records: list[GameOutcome], seconds: float) -> TournamentResult:
    games = len(records)
    shares = np.array([r.share for r in records])
    all_points = [p for r in records for p in r.candidate_points]
    rounds = sum(r.rounds for r in records)
    calls = sum(r.candidate_calls for r in records)
    successes = sum(r.candidate_successful_calls for r in records)
    return TournamentResult(
        ruleset=ruleset,
        candidate=candidate,
        field=list(field),
        games=games,
        seed=seed,
        env_kwargs=env_kwargs,
        win_share=float(shares.mean()),
        win_share_ci95=wilson_interval(float(shares.sum()), games),
        mean_points_per_round=float(np.mean(all_points)) if all_points else 0.0,
        mean_final_score=float(np.mean([r.final_scores[r.candidate_seat] for r in records])),
        call_rate=calls / rounds if rounds else 0.0,
        call_success_rate=successes / calls if calls else None,
        mean_rounds_per_game=rounds / games,
        mean_steps_per_game=float(np.mean([r.steps for r in records])),
        truncated_games=sum(r.truncated for r in records),
        capped_round_rate=sum(r.capped_rounds for r in records) / rounds if rounds else 0.0,
        seconds=seconds,
        outcomes=records,
    )


TABLE_COLUMNS = {
    "candidate": "the agent evaluated",
    "field": "the agent in every other seat (one per other seat, in seat order, where they differ)",
    "games": "games played, every agent sitting in every seat equally often",
    "win share": "the share of the games the candidate won (a game won jointly by k players counts 1/k)",
    "95% CI (Wilson)": "the 95% interval of the win share (Wilson score)",
    "pts/round": "the points a round cost the candidate (added to its score, or taken from it where scores count "
                 "down), on average per round: fewer is better",
    "final score": "the candidate's score when the game ended, on average (the ruleset says whether low or high wins)",
    "call rate": "the share of the rounds in which the candidate called the round's end",
    "call success": "the share of its calls after which its hand was strictly the lowest (-: it never called)",
    "capped rounds": "the share of the rounds that reached the turn cap (max_turns_per_round) instead of ending "
                     "by a call or a player going out",
    "rounds/game": "rounds per game, on average",
    "steps/game": "decisions per game (every seat's), on average",
}
"""The columns of :func:`format_table`, each with what it says (:func:`table_legend`)."""


def table_legend(skip: Sequence[str] = ()) -> str:
    """One line per column of :func:`format_table` (but those in ``skip``): its header and
    what it says."""
    return "\n".join(f"  {header}: {meaning}." for header, meaning in TABLE_COLUMNS.items() if header not in skip)


def format_table(results: Sequence[TournamentResult]) -> str:
    """A plain-text table (rich, ASCII borders), one row per tournament; its columns are
    :data:`TABLE_COLUMNS`."""
    from io import StringIO

    from rich import box
    from rich.console import Console
    from rich.table import Table

    table = Table(box=box.ASCII2, header_style="bold")
    for header in TABLE_COLUMNS:
        table.add_column(header, justify="left" if header in ("candidate", "field") else "right")
    for r in results:
        low, high = r.win_share_ci95
        field_text = ",".join(sorted(set(r.field))) if len(set(r.field)) == 1 else ",".join(r.field)
        table.add_row(
            r.candidate, field_text, str(r.games), f"{r.win_share:.3f}", f"[{low:.3f}, {high:.3f}]",
            f"{r.mean_points_per_round:.2f}", f"{r.mean_final_score:.1f}", f"{r.call_rate:.3f}",
            "-" if r.call_success_rate is None else f"{r.call_success_rate:.3f}", f"{r.capped_round_rate:.3f}",
            f"{r.mean_rounds_per_game:.2f}", f"{r.mean_steps_per_game:.0f}",
        )
    buffer = StringIO()
    Console(file=buffer, width=250, no_color=True, color_system=None, highlight=False).print(table)
    return "\n".join(line.rstrip() for line in buffer.getvalue().splitlines())
