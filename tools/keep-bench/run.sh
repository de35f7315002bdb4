#!/bin/sh
# run.sh: preliminary closed-loop comparison of keepd and redis-server on
# loopback, one server at a time, each on a private port.
#   tools/keep-bench/run.sh BUILDDIR [SECONDS] [THREADS] [PIPELINE]
# Prints one JSON line per server and operation (corvid_bench format), then
# open-loop GET latency percentiles at RATES (default "50000 100000").
set -eu
build=${1:?usage: run.sh BUILDDIR [SECONDS] [THREADS] [PIPELINE]}
secs=${2:-3}
threads=${3:-4}
pipeline=${4:-16}
rates=${RATES:-50000 100000}
bench="$build/tools/keep-bench/keep-bench"
keepd="$build/servers/keepd/keepd"
dir=$(mktemp -d /tmp/keep-bench.XXXXXX)
trap 'kill $kpid $rpid 2>/dev/null || true; rm -rf "$dir"' EXIT INT TERM
kpid= rpid=

"$keepd" --port 0 --port-file "$dir/port" 2>"$dir/keepd.log" &
kpid=$!
for _ in $(seq 100); do [ -s "$dir/port" ] && break; sleep 0.05; done
kport=$(cat "$dir/port")
for op in set get incr; do
  "$bench" --proto keep --port "$kport" --op "$op" --seconds "$secs" \
    --threads "$threads" --pipeline "$pipeline"
done
for rate in $rates; do
  "$bench" --proto keep --port "$kport" --op get --seconds "$secs" --threads 2 --rate "$rate"
done
kill "$kpid"; wait "$kpid" || true; kpid=

rport=$((20000 + $$ % 20000))
redis-server --port "$rport" --bind 127.0.0.1 --save '' --appendonly no \
  --daemonize no >"$dir/redis.log" 2>&1 &
rpid=$!
for _ in $(seq 100); do redis-cli -p "$rport" ping >/dev/null 2>&1 && break; sleep 0.05; done
for op in set get incr; do
  "$bench" --proto resp --port "$rport" --op "$op" --seconds "$secs" \
    --threads "$threads" --pipeline "$pipeline"
done
for rate in $rates; do
  "$bench" --proto resp --port "$rport" --op get --seconds "$secs" --threads 2 --rate "$rate"
done
kill "$rpid"; wait "$rpid" || true; rpid=
