"""Run a command and record its wall time and peak RSS, for bench/run.py.

    python bench/peak.py RESULT.json COMMAND...

Linux charges a child the memory high-water mark of the process it was
forked from, so a large benchmark runner would inflate every measurement.
This small process is started fresh and forks the command itself.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

if __name__ == "__main__":
    out, command = sys.argv[1], sys.argv[2:]
    stdout_file = os.environ.get("PEAK_STDOUT")
    sink = open(stdout_file, "wb") if stdout_file else subprocess.DEVNULL  # noqa: SIM115 - closed by exit
    start = time.perf_counter()
    proc = subprocess.Popen(command, stdout=sink)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    with open(out, "w", encoding="utf-8") as handle:
        json.dump(
            {
                "seconds": seconds,
                "peak_kib": usage.ru_maxrss,
                # CPU time of the command and of every process it waited for (its workers).
                "cpu_seconds": usage.ru_utime + usage.ru_stime,
                "rc": os.waitstatus_to_exitcode(status),
            },
            handle,
        )
