#!/usr/bin/env python3
"""Write a valid OpenLineage log of RUNS runs (a START and a COMPLETE each,
job job-N) under one root run (run 0, which logs too): with --chained run
i's parent is run i-1 (a parent chain RUNS deep), otherwise every run's
parent is run 0. The two shapes have the same events, stages and size; only
the depth of the chain differs.

usage: genol.py OUT --runs 10000 [--chained]
"""
import argparse
from datetime import datetime, timedelta, timezone

ap = argparse.ArgumentParser()
ap.add_argument("out")
ap.add_argument("--runs", type=int, default=10000)
ap.add_argument("--chained", action="store_true")
a = ap.parse_args()
t0 = datetime(2026, 1, 1, tzinfo=timezone.utc)


def rid(i):
    return "00000000-0000-4000-8000-%012d" % i


def ev(f, typ, i, ms):
    t = (t0 + timedelta(milliseconds=ms)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    parent = ""
    if i > 0:
        p = i - 1 if a.chained else 0
        parent = (',"facets":{"parent":{"run":{"runId":"%s"},"job":{"namespace":"bench","name":"job-%06d"}}}'
                  % (rid(p), p))
    f.write('{"eventType":"%s","eventTime":"%s","run":{"runId":"%s"%s},'
            '"job":{"namespace":"bench","name":"job-%06d"},"producer":"https://example.com/genol",'
            '"schemaURL":"https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"}\n'
            % (typ, t, rid(i), parent, i))


with open(a.out, "w") as f:
    for i in range(a.runs):
        ev(f, "START", i, i)
    for i in reversed(range(a.runs)):
        ev(f, "COMPLETE", i, 2 * a.runs - i)
