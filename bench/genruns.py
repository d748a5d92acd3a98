#!/usr/bin/env python3
"""Write a valid core-contract log of RUNS runs of a two-stage pipeline with
EVENTS events in all: stage 1 of each run fails and is retried until the
event budget of the run is spent, then succeeds, and stage 2 succeeds.
--pad N adds an N-byte extra field to every event (event size, not count).

usage: genruns.py OUT --runs 100 --events 1000000 [--pad 0]
"""
import argparse
from datetime import datetime, timedelta, timezone

ap = argparse.ArgumentParser()
ap.add_argument("out")
ap.add_argument("--runs", type=int, default=100)
ap.add_argument("--events", type=int, default=1000)
ap.add_argument("--pad", type=int, default=0)
a = ap.parse_args()
per_run = max(a.events // a.runs, 4)
pad = ',"note":"' + "x" * a.pad + '"' if a.pad else ""
t0 = datetime(2026, 1, 1, tzinfo=timezone.utc)
with open(a.out, "w") as f:
    for r in range(a.runs):
        rid = f"run-{r:05d}"
        t = t0 + timedelta(hours=r)
        def ev(stage, attempt, status, extra=""):
            global t
            t += timedelta(milliseconds=1)
            f.write('{"run_id":"%s","stage":%d,"attempt":%d,"status":"%s","timestamp_utc":"%s"%s%s}\n'
                    % (rid, stage, attempt, status, t.strftime("%Y-%m-%dT%H:%M:%S.%fZ"), extra, pad))
        retries = (per_run - 4) // 2
        for at in range(1, retries + 1):
            ev(1, at, "started")
            ev(1, at, "failed", ',"returncode":1,"error":"transient"')
        ev(1, retries + 1, "started")
        ev(1, retries + 1, "succeeded", ',"returncode":0')
        ev(2, 1, "started")
        ev(2, 1, "succeeded", ',"returncode":0')
