#!/bin/bash
# floor.sh: keep-bench's own latency floor, against keep-null (a server that
# answers at once), under each CPU placement and generator setting, so that
# the placement and --tick-us run.sh uses can be chosen and the rates it can
# judge known (README.md, "The generator's floor").
#   tools/keep-bench/floor.sh BUILDDIR [SECONDS=2] [REPEATS=3]
# Environment: RATES (default "5000 20000 40000 80000 160000"), PLACEMENTS
# (any of unpinned, pinned, pinned-rt; default all three), TICKS (--tick-us
# values, run interleaved, default "0 50"), OTHER (a second keep-bench
# binary, e.g. an older one, run interleaved with this one, without
# --tick-us).
# Prints one line per run (placement, generator, tick, load average, JSON),
# then the median p99, generator CPU share and lateness per setting and rate.
set -eu
build=${1:?usage: floor.sh BUILDDIR [SECONDS] [REPEATS]}
secs=${2:-2}
repeats=${3:-3}
rates=${RATES:-5000 20000 40000 80000 160000}
placements=${PLACEMENTS:-unpinned pinned pinned-rt}
ticks=${TICKS:-0 50}
gens=("$build/tools/keep-bench/keep-bench")
[ -n "${OTHER:-}" ] && gens+=("$OTHER")
dir=$(mktemp -d /tmp/keep-floor.XXXXXX)
npid=
trap '[ -n "$npid" ] && kill $npid 2>/dev/null; rm -rf "$dir"' EXIT INT TERM
for placement in $placements; do
  case $placement in
  unpinned) gen=() srv=() ;;
  pinned) gen=(taskset -c 0) srv=(taskset -c 1) ;;
  pinned-rt) gen=(taskset -c 0 chrt -f 10) srv=(taskset -c 1 chrt -f 10) ;;
  *) echo "floor.sh: unknown placement $placement" >&2 && exit 2 ;;
  esac
  rm -f "$dir/port"
  "${srv[@]}" "$build/tools/keep-bench/keep-null" --port 0 --port-file "$dir/port" &
  npid=$!
  for _ in $(seq 200); do [ -s "$dir/port" ] && break; sleep 0.05; done
  port=$(cat "$dir/port")
  for _ in $(seq "$repeats"); do
    for rate in $rates; do
      for g in "${gens[@]}"; do
        # An older keep-bench may know neither --impl nor --tick-us: its
        # lines say "keepd" and it runs once per rate.
        gticks=0
        [ "$g" = "${gens[0]}" ] && gticks=$ticks
        for tick in $gticks; do
          extra=()
          [ "$g" = "${gens[0]}" ] && extra=(--impl null --tick-us "$tick")
          out=$("${gen[@]}" "$g" --proto keep --port "$port" --op mix --seconds "$secs" \
            --threads 2 --rate "$rate" "${extra[@]}") || out='{"error":1}'
          echo "$placement $g $tick $(cut -d' ' -f1 /proc/loadavg) $out" | tee -a "$dir/lines"
        done
      done
    done
  done
  kill "$npid"
  wait "$npid" 2>/dev/null || true
  npid=
done
# The medians over the repeats, one line per placement, generator, tick and
# rate: p99 is the floor; a CPU share near 1 means the generator was full.
python3 - "$dir/lines" <<'EOF'
import json, statistics, sys
runs = {}
for line in open(sys.argv[1]):
    place, gen, tick, _load, js = line.split(" ", 4)
    r = json.loads(js)
    if "p99_us" in r:
        runs.setdefault((place, gen, int(tick), r["rate"]), []).append(r)
print("%-10s %-8s %5s %7s %9s %9s %9s %9s" % ("placement", "gen", "tick", "rate", "p99 us",
                                            "p99.9 us", "late p99", "cpu share"))
first = next(iter(runs))[1] if runs else None  # this build's keep-bench
for (place, gen, tick, rate), v in runs.items():
    med = lambda f: statistics.median(r.get(f, -1) for r in v)
    print("%-10s %-8s %5d %7.0f %9.0f %9.0f %9.0f %9.2f" % (
        place, "this" if gen == first else "other", tick, rate, med("p99_us"), med("p999_us"),
        med("late_p99_us"), med("gen_cpu_share")))
EOF
