#!/usr/bin/env python3
"""Checks bench/plot.py on results whose pictures are known: a line per
variant where a metric has several sizes (the floor dashed), bars as long
as their values where it has one, a skipped variant left out, and a
malformed result refused.

    check_plot.py PLOT_PY SCRATCH_DIR
"""
import os
import re
import subprocess
import sys

RESULTS = """build output that is not JSON
{"note":"2 ranks"}
{"metric":"latency_us","bytes":8,"variant":"floor","value":1.0}
{"metric":"latency_us","bytes":8,"variant":"sm","value":2.0}
{"metric":"latency_us","bytes":8,"variant":"pmpi","value":10.0}
{"metric":"latency_us","bytes":1024,"variant":"floor","value":1.5}
{"metric":"latency_us","bytes":1024,"variant":"sm","value":3.0}
{"metric":"latency_us","bytes":1024,"variant":"pmpi","value":20.0}
{"metric":"rate_Mmsg_s","bytes":8,"variant":"floor","value":4.0}
{"metric":"rate_Mmsg_s","bytes":8,"variant":"sm","value":2.0}
{"metric":"rate_Mmsg_s","bytes":8,"variant":"pmpi","value":1.0}
"""

failures = []


def check(condition, what):
    if not condition:
        failures.append(what)


def run(plot, *arguments):
    return subprocess.run([sys.executable, plot, *arguments], capture_output=True, text=True,
                          check=False)


def main(plot, scratch):
    os.makedirs(scratch, exist_ok=True)
    results = os.path.join(scratch, "results.json")
    with open(results, "w", encoding="utf-8") as out:
        out.write(RESULTS)

    drawn = run(plot, os.path.join(scratch, "all"), f"sm={results}")
    check(drawn.returncode == 0, f"plot failed: {drawn.stderr}")
    latency = open(os.path.join(scratch, "all", "latency_us.svg"), encoding="utf-8").read()
    rate = open(os.path.join(scratch, "all", "rate_Mmsg_s.svg"), encoding="utf-8").read()
    lines = re.findall(r'<polyline points="([^"]*)"[^>]*?( stroke-dasharray="[^"]*")?/>', latency)
    check(len(lines) == 3, f"latency: {len(lines)} lines, not 3 (floor, pmpi, sm)")
    # Sorted by variant: floor, pmpi, sm. Lower latency is higher up (smaller y).
    first_y = [float(points.split()[0].split(",")[1]) for points, _ in lines]
    if len(first_y) == 3:
        check(first_y[0] > first_y[2] > first_y[1], f"latency: 1 < 2 < 10 us drawn as y {first_y}")
        check(lines[0][1] != "" and lines[2][1] == "", "latency: floor not dashed or sm not solid")
    for name in ("floor", "sm", "pmpi"):
        check(f">{name}</text>" in latency, f"latency: no legend entry for {name}")
    bars = {label: float(width) for width, label in re.findall(
        r'<rect x="[^"]*" y="[^"]*" width="([^"]*)"[^>]*/>\s*<text[^>]*>[^<]*</text>\s*'
        r'<text[^>]*>([^<]*)</text>', rate)}
    check(set(bars) == {"floor", "sm", "pmpi"}, f"rate: bars {sorted(bars)}")
    if len(bars) == 3:
        check(abs(bars["floor"] / bars["sm"] - 2) < 0.01 and abs(bars["sm"] / bars["pmpi"] - 2) < 0.01,
              f"rate: bar lengths {bars} not as 4:2:1")

    skipped = run(plot, "--skip", "pmpi", "--only", "latency_us", os.path.join(scratch, "skip"),
                  f"sm={results}")
    check(skipped.returncode == 0, f"plot --skip failed: {skipped.stderr}")
    check(not os.path.exists(os.path.join(scratch, "skip", "rate_Mmsg_s.svg")), "--only ignored")
    latency = open(os.path.join(scratch, "skip", "latency_us.svg"), encoding="utf-8").read()
    check(">pmpi</text>" not in latency and latency.count("<polyline") == 2, "--skip ignored")

    bad = os.path.join(scratch, "bad.json")
    with open(bad, "w", encoding="utf-8") as out:
        out.write('{"metric":"latency_us","bytes":8,"variant":"sm","value":"fast"}\n')
    refused = run(plot, os.path.join(scratch, "bad"), f"sm={bad}")
    check(refused.returncode == 1 and "bad.json:1" in refused.stderr,
          f"a malformed result: exit {refused.returncode}, said {refused.stderr!r}")

    for failure in failures:
        print(f"plot check: FAIL: {failure}")
    if failures:
        return 1
    print("plot check: lines, bars, --skip, --only and a malformed result as expected")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
