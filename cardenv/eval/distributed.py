"""Tournament games as Ray tasks (the ``ray`` extra), on this machine or a cluster.

Each task plays a chunk of consecutive games on a table of its own, which the tournament
says how to build (a :class:`~cardenv.eval.tournament.TournamentTable` and its
arguments), so that this module, which the tournament imports, does not import it. A
game depends only on the tournament's seed and its index (see tournament.py), so the
games, and the results, are exactly those of one process whatever the number of
workers, the chunking or the order in which chunks finish. Results are yielded in game
order as soon as they are contiguous, so progress and records stream.
"""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator

from cardenv.core.extras import require_extra

# Chunks per CPU of the cluster: enough to balance, few enough that the cost of a task
# (scheduling, building the agents) stays small against its games.
CHUNKS_PER_CPU = 4


# How long a HOST:PORT address may take to accept a connection before it counts as
# unreachable (ray.init itself retries an unreachable address for minutes).
CONNECT_TIMEOUT_S = 5.0


def connect(address: str, feature: str = "distributed tournaments"):
    """Ray, initialised: ``"local"`` starts a cluster here, anything else is passed to
    ``ray.init(address=...)``; an initialised Ray is used as it is. Raises
    :class:`cardenv.core.extras.MissingExtra` naming ``feature`` without Ray, and a one-line
    ConnectionError when no cluster answers at ``address``."""
    require_extra("ray", feature)
    import ray

    if ray.is_initialized():
        return ray
    host, colon, port = address.rpartition(":")
    if colon and host and port.isdigit():
        try:
            socket.create_connection((host, int(port)), timeout=CONNECT_TIMEOUT_S).close()
        except OSError as error:
            raise ConnectionError(f"no Ray cluster answers at {address} ({error.strerror or error}); start one "
                                  f"with 'ray start --head', or use 'local' for a new cluster on this machine") \
                from None
    try:
        ray.init(address=address, include_dashboard=False, log_to_driver=False,
                 runtime_env={"env_vars": {"OMP_NUM_THREADS": "1"}})
    except ConnectionError as error:
        reason = str(error).split(". ")[0] or type(error).__name__  # Ray's advice names its own flags
        raise ConnectionError(f"no Ray cluster at {address!r} ({reason}); start one with 'ray start --head', or "
                              f"use 'local' for a new cluster on this machine") from None
    return ray


def _play_chunk(make_table: Callable, table_args: tuple, first: int, stop: int) -> list:
    table = make_table(*table_args)
    try:
        return [table.play(g) for g in range(first, stop)]
    finally:
        table.close()


def play_with_ray(make_table: Callable, table_args: tuple, games: int, address: str) -> Iterator[tuple]:
    """``(outcome, record)`` of games ``0 … games-1``, in order, played as Ray tasks, each
    on a ``make_table(*table_args)`` (with ``play(game_index)`` and ``close()``)."""
    ray = connect(address)
    cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
    chunk = max(1, -(-games // (cpus * CHUNKS_PER_CPU)))
    play = ray.remote(num_cpus=1)(_play_chunk)
    args_ref = ray.put(table_args)
    pending = {play.remote(make_table, args_ref, first, min(first + chunk, games)): first
               for first in range(0, games, chunk)}
    finished: dict[int, list] = {}
    next_first = 0
    try:
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1)
            for ref in done:
                finished[pending.pop(ref)] = ray.get(ref)
            while next_first in finished:
                results = finished.pop(next_first)
                yield from results
                next_first += len(results)
    finally:
        for ref in pending:
            ray.cancel(ref)
