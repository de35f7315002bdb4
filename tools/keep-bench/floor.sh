#!/bin/bash
# floor.sh: keep-bench's own latency floor, against keep-null (a server that
# answers at once), under each CPU placement, so that the placement run.sh
# uses can be chosen and the rates it can judge known (README.md, "The
# generator's floor").
#   tools/keep-bench/floor.sh BUILDDIR [SECONDS=2] [REPEATS=3]
# Environment: RATES (default "5000 20000 40000 80000"), OTHER (a second
# keep-bench binary, e.g. an older one, run interleaved with this one).
# Prints one line per run: placement, generator, load average, JSON.
set -eu
build=${1:?usage: floor.sh BUILDDIR [SECONDS] [REPEATS]}
secs=${2:-2}
repeats=${3:-3}
rates=${RATES:-5000 20000 40000 80000}
gens=("$build/tools/keep-bench/keep-bench")
[ -n "${OTHER:-}" ] && gens+=("$OTHER")
dir=$(mktemp -d /tmp/keep-floor.XXXXXX)
npid=
trap '[ -n "$npid" ] && kill $npid 2>/dev/null; rm -rf "$dir"' EXIT INT TERM
for placement in unpinned pinned pinned-rt; do
  case $placement in
  unpinned) gen=() srv=() ;;
  pinned) gen=(taskset -c 0) srv=(taskset -c 1) ;;
  pinned-rt) gen=(taskset -c 0 chrt -f 10) srv=(taskset -c 1 chrt -f 10) ;;
  esac
  rm -f "$dir/port"
  "${srv[@]}" "$build/tools/keep-bench/keep-null" --port 0 --port-file "$dir/port" &
  npid=$!
  for _ in $(seq 200); do [ -s "$dir/port" ] && break; sleep 0.05; done
  port=$(cat "$dir/port")
  for _ in $(seq "$repeats"); do
    for rate in $rates; do
      for g in "${gens[@]}"; do
        # An older keep-bench may not know --impl: its lines say "keepd".
        extra=()
        [ "$g" = "${gens[0]}" ] && extra=(--impl null)
        out=$("${gen[@]}" "$g" --proto keep --port "$port" --op mix --seconds "$secs" \
          --threads 2 --rate "$rate" "${extra[@]}") || out='{"error":1}'
        echo "$placement $g $(cut -d' ' -f1 /proc/loadavg) $out"
      done
    done
  done
  kill "$npid"
  wait "$npid" 2>/dev/null || true
  npid=
done
