"""What one piece of a move costs on this machine right after the process slept.

    .venv/bin/python bench/wake_cost.py

Times (CPU time of this thread, `time.thread_time_ns`) the Ligretto engine building every
view of a 12-seat table (`player_views`, a part of each push) in four ways: back to back; after
a busy wait of 5 ms (the core stayed ours); and after sleeping 0.5 ms and 5 ms (the core went
idle, as a server's does between moves at a low rate). A server that sleeps between moves
pays the difference on every move, in every part of its path: docs/performance.md.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.ligretto import rules  # noqa: E402

ROUNDS = 300


def one_call(state, seats) -> int:  # noqa: ANN001
    started = time.thread_time_ns()
    rules.player_views(state, seats)
    return time.thread_time_ns() - started


def measure(state, seats, pause) -> float:  # noqa: ANN001
    costs = []
    for _ in range(ROUNDS):
        pause()
        costs.append(one_call(state, seats))
    return statistics.median(costs) / 1000


def busy(seconds: float):  # noqa: ANN201
    def wait() -> None:
        until = time.perf_counter() + seconds
        while time.perf_counter() < until:
            pass

    return wait


def main() -> None:
    state = rules.new_match(12, None, seed=1)
    seats = list(range(12))
    for _ in range(200):  # warm: the specialising interpreter has seen the code
        rules.player_views(state, seats)
    print(f"player_views of a 12-seat Ligretto table, median of {ROUNDS} calls, CPU µs:")
    print(f"  back to back:          {measure(state, seats, lambda: None):7.1f}")
    print(f"  after a 5 ms busy wait: {measure(state, seats, busy(0.005)):6.1f}")
    print(f"  after sleeping 0.5 ms: {measure(state, seats, lambda: time.sleep(0.0005)):7.1f}")
    print(f"  after sleeping 5 ms:   {measure(state, seats, lambda: time.sleep(0.005)):7.1f}")


if __name__ == "__main__":
    main()
