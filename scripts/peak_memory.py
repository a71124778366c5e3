"""Run a command and report its wall time and the peak resident memory of its process tree.

    python scripts/peak_memory.py --label pytest -- python -m pytest -q

The tree (the command and every process it starts: CLI subprocesses, test servers) is sampled
every ``--interval`` seconds with psutil; the peak is the largest sum seen, beside the largest
single process. The tree's memory is the sum of each process's proportional set size (PSS: a page
shared by n processes counts 1/n to each): a child between ``fork`` and ``exec`` (every subprocess
a test starts) shows its parent's whole resident set for a moment, so a sum of resident sets can
count the parent twice. The resident-set sum is reported beside it; where PSS cannot be read, RSS
stands in. Prints one line at the end (and writes it as JSON with ``--json PATH``); exits with the
command's own status, so it can wrap a test run in CI.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import psutil


def tree_processes(root: psutil.Process) -> list[tuple[int, psutil.Process, str]]:
    """Each live process of the tree as (resident set size in bytes, the process, its command line, shortened)."""
    try:
        procs = [root, *root.children(recursive=True)]
    except psutil.Error:
        return []
    out = []
    for p in procs:
        try:
            out.append((p.memory_info().rss, p, " ".join(p.cmdline())[:160]))
        except psutil.Error:  # ended between the listing and the read
            continue
    return out


def proportional(process: psutil.Process, rss: int) -> int:
    """The process's proportional set size in bytes: its resident set where PSS cannot be read, nothing
    where it ended since it was listed (a child exiting between the listing and this read holds no
    pages any more; counting its listed resident set would count its parent's shared pages twice)."""
    try:
        return int(getattr(process.memory_full_info(), "pss", rss))
    except (psutil.NoSuchProcess, psutil.ZombieProcess):
        return 0
    except psutil.Error:
        return rss


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--label", default="command")
    p.add_argument("--interval", type=float, default=0.25, help="seconds between samples")
    p.add_argument("--json", type=Path, default=None, help="also write the figures here")
    p.add_argument("command", nargs=argparse.REMAINDER, help="-- then the command")
    a = p.parse_args(argv)
    command = a.command[1:] if a.command[:1] == ["--"] else a.command
    if not command:
        p.error("give the command to run after --")

    t0 = time.perf_counter()
    proc = subprocess.Popen(command)
    root = psutil.Process(proc.pid)
    peak: dict[str, Any] = {"tree": 0, "tree_rss": 0, "process": 0, "at": 0.0, "processes": []}
    done = threading.Event()

    def sample() -> None:
        while not done.wait(a.interval):
            procs = tree_processes(root)
            rss_total = sum(rss for rss, _, _ in procs)
            peak["tree_rss"] = max(peak["tree_rss"], rss_total)
            peak["process"] = max([peak["process"], *(rss for rss, _, _ in procs)])
            # PSS never exceeds RSS, so only a resident sum above the peak can make a new one; reading
            # PSS (the kernel walks each process's pages) is left to those samples
            if rss_total <= peak["tree"]:
                continue
            sizes = [(proportional(p, rss), cmd) for rss, p, cmd in procs]
            total = sum(pss for pss, _ in sizes)
            if total > peak["tree"]:  # what made the peak, to find the tests that ran then
                peak.update(tree=total, at=time.perf_counter() - t0, processes=sorted(sizes, reverse=True)[:6])

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    code = proc.wait()
    done.set()
    sampler.join()
    seconds = time.perf_counter() - t0
    figures = {
        "label": a.label,
        "exit_code": code,
        "wall_seconds": round(seconds, 1),
        "peak_tree_pss_gb": round(peak["tree"] / 2**30, 2),
        "peak_tree_rss_sum_gb": round(peak["tree_rss"] / 2**30, 2),
        "peak_process_rss_gb": round(peak["process"] / 2**30, 2),
        "peak_tree_at_seconds": round(peak["at"], 1),
        "peak_tree_processes_pss_gb": [[round(pss / 2**30, 2), cmd] for pss, cmd in peak["processes"]],
    }
    print(
        f"{a.label}: {seconds / 60:.1f} min wall, peak memory {figures['peak_tree_pss_gb']:.2f} GB (process tree, "
        f"shared pages counted once; resident sets summed {figures['peak_tree_rss_sum_gb']:.2f} GB; largest single "
        f"process {figures['peak_process_rss_gb']:.2f} GB), exit {code}",
        file=sys.stderr,
        flush=True,
    )
    if a.json is not None:
        a.json.parent.mkdir(parents=True, exist_ok=True)
        a.json.write_text(json.dumps(figures, indent=2))
    return code


if __name__ == "__main__":
    raise SystemExit(main())
