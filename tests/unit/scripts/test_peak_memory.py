"""The CI's memory figure: a forked child that shares its parent's pages is not counted twice."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[3] / "scripts" / "peak_memory.py"

#: a parent holding 400 MB forks a child that touches nothing and sleeps: one copy of the pages
FORKING = """
import os, time
block = bytearray(400 * 2**20)
for i in range(0, len(block), 4096):
    block[i] = 1
pid = os.fork()
time.sleep(1.5)
if pid == 0:
    os._exit(0)
os.waitpid(pid, 0)
"""


def test_a_forked_child_sharing_its_parents_pages_counts_once(tmp_path: Path) -> None:
    out = tmp_path / "peak.json"
    subprocess.run(
        [
            sys.executable,
            str(SCRIPT),
            "--label",
            "fork",
            "--interval",
            "0.1",
            "--json",
            str(out),
            "--",
            sys.executable,
            "-c",
            FORKING,
        ],
        check=True,
        capture_output=True,
    )
    figures = json.loads(out.read_text())
    # the resident sets summed see the 400 MB twice; the tree's memory once
    assert figures["peak_tree_rss_sum_gb"] > 0.7
    assert 0.35 < figures["peak_tree_pss_gb"] < 0.55


def test_a_process_that_ended_since_it_was_listed_holds_no_memory() -> None:
    import importlib.util

    import psutil

    spec = importlib.util.spec_from_file_location("peak_memory", SCRIPT)
    assert spec is not None and spec.loader is not None
    peak_memory = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(peak_memory)
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    listed = psutil.Process(child.pid)
    child.wait()
    # listed with 1 GB resident, gone when its PSS is read: it counts nothing, not its listed size
    assert peak_memory.proportional(listed, 2**30) == 0
