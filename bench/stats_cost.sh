#!/usr/bin/env bash
# What MPINOTIFY_STATS costs (docs/performance.md, "The cost of counting"):
# notify_bench's sm latency and message rate from a build without the
# counting (BASE) and from one with it (NEW), off and on, interleaved
# ROUNDS times so that drift on a noisy machine hits all three alike;
# prints the medians and their ratios to BASE.
#   bench/stats_cost.sh BASE/bench/notify_bench NEW/bench/notify_bench [ROUNDS]
set -euo pipefail
base=$1 new=$2 rounds=${3:-5}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for ((i = 0; i < rounds; i++)); do
  for variant in base off on; do
    program=$new stats=0
    [ "$variant" = base ] && program=$base
    [ "$variant" = on ] && stats=1
    # The sm column of the latency and rate tables (a row lacks the
    # header's first word).
    MPINOTIFY_STATS=$stats mpirun -n 2 --bind-to core --map-by core -x MPINOTIFY_STATS "$program" --quick 2>/dev/null |
      awk -v v="$variant" '/^latency_us/ { t = "latency_us" } /^rate_Mmsg_s/ { t = "rate_Mmsg_s" }
        /^counters/ { t = "" }
        /^latency_us|^rate_Mmsg_s/ { col = 0; for (i = 1; i <= NF; i++) if ($i == "sm" && !col) col = i - 1 }
        $1 ~ /^[0-9]+$/ && t != "" { print v, t, $1, $col }' >>"$out"
  done
done
python3 - "$out" <<'PY'
import collections, statistics, sys
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    variant, table, size, value = line.split()
    runs[(table, int(size), variant)].append(float(value))
print(f"{'table':12} {'bytes':>8} {'base':>9} {'off':>9} {'on':>9}  off/base  on/base")
for table, size in sorted({(t, s) for t, s, _ in runs}):
    base, off, on = (statistics.median(runs[(table, size, v)]) for v in ("base", "off", "on"))
    print(f"{table:12} {size:8} {base:9.3f} {off:9.3f} {on:9.3f}  {off / base:8.3f} {on / base:8.3f}")
PY
