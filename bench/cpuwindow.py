"""Server CPU while a load driver plays: the window between its `PLAY` and `DONE` lines.

Both load drivers (bench/bgio/load.js and bench/ours/load.js) write `PLAY` on stderr when every
client is connected and synced and the first move is about to go, and `DONE` once the last
move's deliveries have arrived. The CPU a server spends in that window, per accepted move, is
what a move costs; what it spent before (connecting and signing in the clients, their first
views, the settling wait) is a fixed cost that a longer run would spread thinner, so it is
reported apart (`cpu_all_ms`: the whole run, connections included).
"""

from __future__ import annotations

import os
import subprocess
import threading
from pathlib import Path


def cpu_seconds(pid: int) -> float:
    """CPU time (user + system) a process has used so far (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_load(cmd: list[str], pids: list[int], timeout: float, **popen) -> tuple[str, dict]:
    """Run a load driver; return its stdout and the servers' CPU seconds over the whole run
    (`all`) and between its PLAY and DONE lines (`play`)."""

    def total() -> float:
        return sum(cpu_seconds(pid) for pid in pids)

    marks: dict[str, float] = {"start": total()}
    errors: list[str] = []
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **popen)

    def read_stderr() -> None:
        for line in proc.stderr:
            word = line.strip()
            if word in ("PLAY", "DONE"):
                marks[word] = total()
            else:
                errors.append(line)

    reader = threading.Thread(target=read_stderr, daemon=True)
    reader.start()
    killer = threading.Timer(timeout, proc.kill)
    killer.start()
    try:
        out = proc.stdout.read()  # stderr is the reader's alone
        proc.wait()
    finally:
        killer.cancel()
    reader.join(5)
    marks["end"] = total()
    if proc.returncode != 0:
        raise SystemExit(f"{cmd[1]} failed: {''.join(errors)}")
    if "PLAY" not in marks or "DONE" not in marks:
        raise SystemExit(f"{cmd[1]} did not mark its play window: {''.join(errors)}")
    return out, {"all": marks["end"] - marks["start"], "play": marks["DONE"] - marks["PLAY"]}
