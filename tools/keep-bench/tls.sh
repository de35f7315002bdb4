#!/bin/bash
# tls.sh: the cost of keepd's mutual TLS 1.3: the same closed-loop keep/1
# mix against two keepd on loopback, one with TLS (a fresh cluster key, the
# bench holding it) and one explicitly plaintext, interleaved per repeat so
# that a change in the machine's load hits both alike.
#   tools/keep-bench/tls.sh BUILDDIR [SECONDS] [REPEATS]
# Environment: PIPELINES (default "16 1"), THREADS (default 2), OUT (file for
# the JSON lines, default a temporary one, kept). Prints JSON lines, then the
# TLS/plaintext throughput and server-CPU ratios per pipeline depth.
set -eu
build=${1:?usage: tls.sh BUILDDIR [SECONDS] [REPEATS]}
secs=${2:-3}
repeats=${3:-3}
pipelines=${PIPELINES:-16 1}
threads=${THREADS:-2}
bench="$build/tools/keep-bench/keep-bench"
keepd="$build/servers/keepd/keepd"
dir=$(mktemp -d /tmp/keep-bench-tls.XXXXXX)
out=${OUT:-$dir.jsonl}
: >"$out"
pids=
trap 'for p in $pids; do kill $p 2>/dev/null || true; done; rm -rf "$dir"' EXIT INT TERM

"$keepd" keygen "$dir/cluster.key" >/dev/null
start() { # name, then keepd's TLS or plaintext flags
  local name=$1
  shift
  "$keepd" --port 0 --port-file "$dir/$name.port" --shards 2 "$@" 2>"$dir/$name.log" &
  pids="$pids $!"
  eval "${name}_pid=$!"
  for _ in $(seq 200); do [ -s "$dir/$name.port" ] && break; sleep 0.05; done
  eval "${name}_port=$(cat "$dir/$name.port")"
}
start tls --tls-key "$dir/cluster.key"
start plain --plaintext
printf '{"note":"load average before: %s; cpus: %s"}\n' "$(cut -d' ' -f1-3 /proc/loadavg)" \
  "$(nproc)" | tee -a "$out"
for rep in $(seq "$repeats"); do
  for p in $pipelines; do
    "$bench" --proto keep --port "$plain_port" --op mix --seconds "$secs" --threads "$threads" \
      --pipeline "$p" --server-pid "$plain_pid" | tee -a "$out"
    "$bench" --proto keep --port "$tls_port" --op mix --seconds "$secs" --threads "$threads" \
      --pipeline "$p" --server-pid "$tls_pid" --tls "$dir/cluster.key" | tee -a "$out"
  done
done
python3 - "$out" <<'PY'
import json, sys, statistics
rate, cpu = {}, {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    if 'bench' not in r:
        continue
    key = (r['bench'].removesuffix('-cpu'), r['impl'])
    if 'server_cpu_us_per_req' in r:
        cpu.setdefault(key, []).append(r['server_cpu_us_per_req'])
    elif 'items_per_s' in r:
        rate.setdefault(key, []).append(r['items_per_s'])
    elif 'ns' in r and 'items' in r:
        rate.setdefault(key, []).append(r['items'] / (r['ns'] / 1e9))
for bench in sorted({b for b, _ in rate}):
    p, t = rate.get((bench, 'keepd')), rate.get((bench, 'keepd-tls'))
    if not p or not t:
        continue
    pm, tm = statistics.median(p), statistics.median(t)
    pc, tc = statistics.median(cpu.get((bench, 'keepd'), [0])), statistics.median(cpu.get((bench, 'keepd-tls'), [0]))
    print(f"{bench}: plaintext {pm:,.0f}/s, TLS {tm:,.0f}/s, TLS/plaintext {tm / pm:.2f}; "
          f"server CPU {pc:.2f} vs {tc:.2f} us/request ({tc / pc if pc else 0:.2f}x)")
PY
