#!/bin/bash
# run.sh: keepd against redis-server and memcached on loopback, one server
# loaded at a time, each on a private port, in one run (see README.md).
#   tools/keep-bench/run.sh BUILDDIR [SECONDS=2] [REPEATS=5]
# Environment: RATES (the open-loop ladder, requests/s, ascending),
# BISECT (rounds of bisection of keepd's and Redis's 1 ms brackets after the
# ladder, default 2; 0: none), TICK (keep-bench --tick-us in µs, or auto:
# 0 below 60,000 requests/s and 50 from there on; the default),
# KEEPD_ARGS (more keepd options, e.g. "--busy-poll 50"),
# SUBS and PUBRATE (pub/sub fan-out: subscribers, messages/s; 50 and 2000),
# FILL (keys for the memory measurement, default 10000000; 0 skips it),
# OUT (file for the JSON lines, default a temporary one, kept),
# GEN_CPUS and SERVER_CPUS (CPU lists for taskset: the generator's and every
# server's, default 0 and 1; PIN=0 runs everything unpinned),
# RT (a SCHED_FIFO priority for the generator and every server, e.g. RT=10;
# default none: ordinary scheduling).
# Prints JSON lines (corvid_bench style) as it goes, then a table.
set -eu
build=${1:?usage: run.sh BUILDDIR [SECONDS] [REPEATS]}
secs=${2:-2}
repeats=${3:-5}
rates=${RATES:-10000 20000 30000 40000 50000 60000 80000 100000 120000 160000 200000}
# The closed loop and pub/sub vary less than the open loop's tails: 3
# repeats of them at most keep the run near 12 minutes.
few=$((repeats < 3 ? repeats : 3))
bisect=${BISECT:-2}
tick=${TICK:-auto}
read -ra keepd_args <<<"${KEEPD_ARGS:-}"
fill=${FILL:-10000000}
keepd="$build/servers/keepd/keepd"
null="$build/tools/keep-bench/keep-null"
# Placement: one CPU for the generator and another for the server, the same
# for every server, so that the generator and the server never queue for
# one CPU and other servers' threads cannot differ in what they get. keepd
# reads its CPU budget from its affinity and so runs one shard on one CPU;
# memcached gets as many worker threads as CPUs (its default is 4).
gen_cpus=${GEN_CPUS:-0}
server_cpus=${SERVER_CPUS:-1}
gen_pre=() srv_pre=()
mc_threads=4
if [ "${PIN:-1}" != 0 ]; then
  gen_pre=(taskset -c "$gen_cpus")
  srv_pre=(taskset -c "$server_cpus")
  mc_threads=$(taskset -c "$server_cpus" nproc)
fi
if [ -n "${RT:-}" ]; then
  gen_pre+=(chrt -f "$RT")
  srv_pre+=(chrt -f "$RT")
fi
bench=("${gen_pre[@]}" "$build/tools/keep-bench/keep-bench")
dir=$(mktemp -d /tmp/keep-bench.XXXXXX)
out=${OUT:-$dir.jsonl}
: >"$out"
pids=
trap 'for p in $pids; do kill $p 2>/dev/null || true; done; rm -rf "$dir"' EXIT INT TERM
base=$((20000 + $$ % 20000))
rport=$((base + 1))
mport=$((base + 2))
nport=$((base + 3))
subs=${SUBS:-50}
pubrate=${PUBRATE:-2000}

start_keepd() { # the cap leaves room for FILL small keys
  rm -f "$dir/port"
  "${srv_pre[@]}" "$keepd" --port 0 --port-file "$dir/port" --memory-cap 2G --plaintext \
    "${keepd_args[@]}" 2>"$dir/keepd.log" &
  kpid=$!
  pids="$pids $kpid"
  for _ in $(seq 200); do [ -s "$dir/port" ] && break; sleep 0.05; done
  kport=$(cat "$dir/port")
}
start_redis() {
  "${srv_pre[@]}" redis-server --port "$rport" --bind 127.0.0.1 --save '' --appendonly no \
    --daemonize no >"$dir/redis.log" 2>&1 &
  rpid=$!
  pids="$pids $rpid"
  for _ in $(seq 200); do redis-cli -p "$rport" ping >/dev/null 2>&1 && break; sleep 0.05; done
}
# wait_listening PORT: waits until something accepts connections on the
# loopback PORT (at most 10 s), rather than guessing a start-up time.
wait_listening() {
  for _ in $(seq 200); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.05
  done
  echo "run.sh: nothing listens on port $1 after 10 s" >&2
  return 1
}
start_memcached() {
  "${srv_pre[@]}" memcached -l 127.0.0.1 -p "$mport" -U 0 -m 4096 -t "$mc_threads" -u nobody \
    >"$dir/memcached.log" 2>&1 &
  mpid=$!
  pids="$pids $mpid"
  wait_listening "$mport"
}
start_nats() {
  "${srv_pre[@]}" nats-server -a 127.0.0.1 -p "$nport" >"$dir/nats.log" 2>&1 &
  npid=$!
  pids="$pids $npid"
  wait_listening "$nport"
}
# start_null: keep-null, a keep/1 server that answers at once and stores
# nothing: the generator's own latency floor at each rate.
start_null() {
  rm -f "$dir/nport"
  "${srv_pre[@]}" "$null" --port 0 --port-file "$dir/nport" &
  xpid=$!
  pids="$pids $xpid"
  for _ in $(seq 200); do [ -s "$dir/nport" ] && break; sleep 0.05; done
  xport=$(cat "$dir/nport")
}
stop() { kill "$1" 2>/dev/null || true; wait "$1" 2>/dev/null || true; }
emit() { tee -a "$out"; }
note() { printf '{"note":"%s"}\n' "$*" | emit; }

note "load average before: $(cut -d' ' -f1-3 /proc/loadavg); cpus: $(nproc); generator: ${gen_pre[*]:-unpinned}; servers: ${srv_pre[*]:-unpinned}; tick-us $tick; keepd ${KEEPD_ARGS:-}"

# open_loop WHO RATE: one open-loop run of the mix against one server (null
# is keep-null, the generator's floor).
open_loop() {
  local args
  case $1 in
  null) args=(--proto keep --port "$xport" --impl null --server-pid "$xpid") ;;
  keepd) args=(--proto keep --port "$kport" --server-pid "$kpid") ;;
  resp) args=(--proto resp --port "$rport" --server-pid "$rpid") ;;
  memcached) args=(--proto mc --port "$mport" --server-pid "$mpid") ;;
  esac
  # TICK=auto batches only where the generator would fill its CPU without
  # it (README.md, "Batching the generator"); every server, keep-null
  # included, gets the same setting at a given rate.
  local t=$tick
  [ "$t" = auto ] && t=$(($2 >= 60000 ? 50 : 0))
  "${bench[@]}" "${args[@]}" --op mix --seconds "$secs" --threads 2 --rate "$2" \
    --tick-us "$t" | emit || true
}

# 1. Latency: the ladder. For each repeat and rate, each server in turn
# (interleaved, so that a change in the machine's load hits all alike),
# keep-null first: the generator's floor.
start_null
start_keepd
start_redis
start_memcached
for rep in $(seq "$repeats"); do
  for rate in $rates; do
    for who in null keepd resp memcached; do open_loop "$who" "$rate"; done
  done
  [ "$rep" -le "$few" ] || continue
  # Closed loop, pipelined: throughput and CPU time per request.
  "${bench[@]}" --proto keep --port "$kport" --op mix --seconds "$secs" --threads 2 --pipeline 16 \
    --server-pid "$kpid" | emit || true
  "${bench[@]}" --proto keep --port "$kport" --op mix --seconds "$secs" --threads 2 --pipeline 16 \
    --route --server-pid "$kpid" | emit || true
  "${bench[@]}" --proto resp --port "$rport" --op mix --seconds "$secs" --threads 2 --pipeline 16 \
    --server-pid "$rpid" | emit || true
  "${bench[@]}" --proto mc --port "$mport" --op mix --seconds "$secs" --threads 2 --pipeline 16 \
    --server-pid "$mpid" | emit || true
done
# 1b. Bisection: where keepd's or Redis's 1 ms bracket from the ladder
# ([last rate passed, first failed), median p99 over the repeats, judged
# where keep-null's is under 1 ms too; summary.py) is wider than 10%, its
# middle is run, keep-null at the same rate first, repeats interleaved.
for _ in $(seq "$bisect"); do
  next=$(python3 "$(dirname "$0")/summary.py" --next "$out")
  [ -n "$next" ] || break
  note "bisection: $(echo $next)"
  for rep in $(seq "$repeats"); do
    while read -r who rate; do
      open_loop null "$rate"
      open_loop "$who" "$rate"
    done <<<"$next"
  done
done
stop "$mpid"
stop "$xpid"

# 2. Pub/sub fan-out: SUBS subscribers of one topic, PUBRATE messages/s of
# 64 bytes; keepd, Redis and nats-server in turn.
start_nats
for rep in $(seq "$few"); do
  "${bench[@]}" --proto keep --port "$kport" --pubsub "$subs" --rate "$pubrate" --seconds "$secs" \
    --server-pid "$kpid" | emit || true
  "${bench[@]}" --proto resp --port "$rport" --pubsub "$subs" --rate "$pubrate" --seconds "$secs" \
    --server-pid "$rpid" | emit || true
  "${bench[@]}" --proto nats --port "$nport" --pubsub "$subs" --rate "$pubrate" --seconds "$secs" \
    --server-pid "$npid" | emit || true
done
stop "$kpid"
stop "$rpid"
stop "$npid"

# 3. Memory per key: FILL keys of 10 bytes with 8-byte values into a fresh
# server. keepd reports no memory statistic on its protocol, so its figure is
# the growth of its resident set (VmRSS) from start to after the fill, which
# also charges it for every allocator and table overhead; Redis's is
# INFO memory used_memory, memcached's is stats "bytes" (item memory as it
# accounts it); the RSS growth of those two is printed alongside.
rss_kb() { awk '/^VmRSS/ {print $2}' "/proc/$1/status"; }
# redis_used_memory: INFO used_memory once it has settled. Right after a
# fill Redis may still be rehashing its dictionary incrementally, holding
# the old and the new table at once; reads 200 ms apart must agree (at most
# 10 s of waiting).
redis_used_memory() {
  local prev=-1 cur
  for _ in $(seq 50); do
    cur=$(redis-cli -p "$rport" info memory | awk -F: '/^used_memory:/ {print $2+0}')
    [ "$cur" = "$prev" ] && break
    prev=$cur
    sleep 0.2
  done
  echo "$cur"
}
per_key() { awk -v b="$1" -v n="$fill" 'BEGIN { printf "%.1f", b / n }'; }
if [ "$fill" -gt 0 ]; then
  start_keepd
  before=$(rss_kb "$kpid")
  "${bench[@]}" --proto keep --port "$kport" --fill "$fill" | emit
  after=$(rss_kb "$kpid")
  kb=$(per_key $(((after - before) * 1024)))
  printf '{"bench":"memory","impl":"keepd","keys":%s,"bytes_per_key":%s,"source":"VmRSS growth","rss_bytes_per_key":%s}\n' \
    "$fill" "$kb" "$kb" | emit
  stop "$kpid"

  start_redis
  before=$(rss_kb "$rpid")
  ub=$(redis_used_memory)
  "${bench[@]}" --proto resp --port "$rport" --fill "$fill" | emit
  ua=$(redis_used_memory)
  after=$(rss_kb "$rpid")
  printf '{"bench":"memory","impl":"resp","keys":%s,"bytes_per_key":%s,"source":"INFO used_memory","rss_bytes_per_key":%s}\n' \
    "$fill" "$(per_key $((ua - ub)))" "$(per_key $(((after - before) * 1024)))" | emit
  stop "$rpid"

  start_memcached
  before=$(rss_kb "$mpid")
  "${bench[@]}" --proto mc --port "$mport" --fill "$fill" | emit
  after=$(rss_kb "$mpid")
  mb=$(exec 3<>"/dev/tcp/127.0.0.1/$mport" 2>/dev/null && printf 'stats\r\nquit\r\n' >&3 &&
    tr -d '\r' <&3 | awk '$2 == "bytes" {print $3}') || mb=0
  printf '{"bench":"memory","impl":"memcached","keys":%s,"bytes_per_key":%s,"source":"stats bytes","rss_bytes_per_key":%s}\n' \
    "$fill" "$(per_key "${mb:-0}")" "$(per_key $(((after - before) * 1024)))" | emit
  stop "$mpid"
fi
note "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

# 4. The tables: per server the 1 ms bracket (median and strict), p99.9
# there, CPU time per request, and ratios to Redis and memcached.
python3 "$(dirname "$0")/summary.py" "$out"
echo "JSON lines: $out"
