#!/usr/bin/env bash
# One benchmark column from two builds (docs/performance.md, "The per-call
# cost"): runs BASE and NEW alternately ROUNDS times on two ranks bound to
# separate cores, so that drift on a noisy machine hits both alike, and
# prints the medians of COLUMN for every row of every table, with NEW/BASE.
# The floor column of the same runs shows whether the placement moved.
#   bench/compare_builds.sh BASE/bench/notify_bench NEW/bench/notify_bench sm [ROUNDS]
#   bench/compare_builds.sh BASE/bench/ucx_bench NEW/bench/ucx_bench ucx [ROUNDS]
# Extra mpirun arguments (e.g. -x UCX_TLS) go in MPIRUN_ARGS.
set -euo pipefail
base=$1 new=$2 column=$3 rounds=${4:-5}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for ((i = 0; i < rounds; i++)); do
  for variant in base new; do
    program=$base
    [ "$variant" = new ] && program=$new
    # shellcheck disable=SC2086 # MPIRUN_ARGS is a list of words
    mpirun -n 2 --bind-to core --map-by core ${MPIRUN_ARGS:-} "$program" --quick 2>/dev/null |
      awk -v v="$variant" -v want="$column" '
        /^[a-zA-Z_]+ +bytes/ { table = $1; col = 0; fl = 0
          for (i = 1; i <= NF && $i != "ratios"; i++) { if ($i == want && !col) col = i - 1; if ($i == "floor" && !fl) fl = i - 1 } }
        $1 ~ /^[0-9]+$/ && col { print v, table, $1, $col, (fl ? $fl : "nan") }' >>"$out"
  done
done
python3 - "$out" "$column" <<'PY'
import collections, math, statistics, sys
runs = collections.defaultdict(list)
floors = collections.defaultdict(list)
for line in open(sys.argv[1]):
    variant, table, size, value, floor = line.split()
    runs[(table, int(size), variant)].append(float(value))
    if floor != "nan":
        floors[(table, int(size), variant)].append(float(floor))
col = sys.argv[2]
print(f"{'table':16} {'bytes':>8} {'base ' + col:>12} {'new ' + col:>12}  new/base  floor base / new")
for table, size in sorted({(t, s) for t, s, _ in runs}):
    b, n = (statistics.median(runs[(table, size, v)]) for v in ("base", "new"))
    fb, fn = (statistics.median(floors[(table, size, v)]) if floors[(table, size, v)] else math.nan
              for v in ("base", "new"))
    print(f"{table:16} {size:8} {b:12.3f} {n:12.3f}  {n / b:8.3f}  {fb:.3f} / {fn:.3f}")
PY
