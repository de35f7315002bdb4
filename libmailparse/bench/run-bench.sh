#!/bin/sh
# run-bench.sh: runs bench_mailparse (ours and the C/C++ peers, interleaved
# in one process, then each alone in processes of its own) and
# peer_python.py over each message set, gathers their JSON lines in one
# file and prints the tools/bench-report table against GMime and the goal
# table of goals.py (median rounds, ratios of ours against every peer).
#
# usage: run-bench.sh BUILD_DIR SET...
#   BUILD_DIR: a build with libmailparse/bench/bench_mailparse (configure it
#     with -Dbench_peers=enabled for the peers; README.md);
#   SET: a directory of messages (every regular file under it; the set is
#     named after the directory), or the word `real` for the real messages
#     from Debian packages: Python's test_email data (msg_*.txt, package
#     libpython3.11-testsuite), enmime's testdata (*.raw, package
#     golang-github-jhillyerd-enmime-dev) and SpamAssassin's examples
#     (sample-*.txt, package spamassassin).
# Environment: ROUNDS (default 3) timed rounds of every implementation;
#   ALONE (default 1; 0 to skip): also time every implementation alone
#   (bench_mailparse --alone, rows "<mode>/<set>/alone"; README.md "Method"
#   says why both are printed);
#   PY_SAMPLE_MB (default 40): Python (about 2 MB/s here) runs over every
#   N-th message of a set larger than this, chosen to keep about this many
#   MB, and bench_mailparse measures ours and GMime again over that same
#   sample (set name "<set>-pysample"); BENCH_OUT (default
#   BUILD_DIR/bench-mailparse.jsonl) the JSON lines.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
report="$here/../../tools/bench-report/bench-report"
build=${1:?usage: run-bench.sh BUILD_DIR SET...}
shift
[ $# -gt 0 ] || { echo "usage: run-bench.sh BUILD_DIR SET..." >&2; exit 2; }
bench="$build/libmailparse/bench/bench_mailparse"
python=/usr/bin/python3 # Debian's: its email package is the reference
rounds=${ROUNDS:-3}
py_mb=${PY_SAMPLE_MB:-40}
out=${BENCH_OUT:-$build/bench-mailparse.jsonl}
[ -x "$bench" ] || { echo "run-bench.sh: $bench not built" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

: >"$out"
for set in "$@"; do
  list="$tmp/files"
  if [ "$set" = real ]; then
    name=real
    for f in /usr/lib/python3.11/test/test_email/data/msg_*.txt \
      /usr/share/gocode/src/github.com/jhillyerd/enmime/testdata/*/*.raw \
      /usr/share/doc/spamassassin/examples/sample-*.txt; do
      [ -f "$f" ] && printf '%s\n' "$f"
    done | LC_ALL=C sort >"$list"
  elif [ -d "$set" ]; then
    name=$(basename "$set")
    find "$set" -type f ! -name '.*' | LC_ALL=C sort >"$list"
  else
    echo "run-bench.sh: $set: not a directory or 'real'" >&2
    exit 2
  fi
  count=$(wc -l <"$list")
  [ "$count" -gt 0 ] || { echo "run-bench.sh: $set: no messages" >&2; exit 2; }
  # shellcheck disable=SC2046 # file names from find/glob, without blanks
  bytes=$(cat $(cat "$list") | wc -c)
  # Small sets are passed over several times per round (about 8 MB).
  repeat=$((8000000 / (bytes + 1) + 1))
  echo "run-bench.sh: $name: $count messages, $bytes bytes, repeat $repeat" >&2
  # shellcheck disable=SC2046
  "$bench" --set "$name" --rounds "$rounds" --repeat "$repeat" $(cat "$list") >>"$out"
  if [ "${ALONE:-1}" != 0 ]; then
    echo "run-bench.sh: $name: every implementation alone" >&2
    # shellcheck disable=SC2046
    "$bench" --set "$name" --rounds "$rounds" --repeat "$repeat" --alone --no-peak \
      $(cat "$list") >>"$out"
  fi

  step=$((bytes / (py_mb * 1000000) + 1))
  pyname=$name
  if [ "$step" -gt 1 ]; then
    pyname=$name-pysample
    awk -v s="$step" 'NR % s == 0' "$list" >"$tmp/sample"
    echo "run-bench.sh: $name: Python over every ${step}th message" >&2
    # shellcheck disable=SC2046
    "$bench" --set "$pyname" --rounds "$rounds" --impl mailparse,gmime --no-peak \
      $(cat "$tmp/sample") >>"$out"
    list="$tmp/sample"
  fi
  # shellcheck disable=SC2046
  "$python" "$here/peer_python.py" --set "$pyname" --rounds "$rounds" $(cat "$list") >>"$out" ||
    echo "run-bench.sh: the Python peer failed" >&2
done

echo "### bench-report (median rounds; ratios against GMime)"
echo
"$python" "$here/goals.py" --normalize "$out" | "$python" "$report" --baseline gmime
echo
echo "### libmailparse against each peer, with the goals of issue #4"
echo
"$python" "$here/goals.py" "$out"
