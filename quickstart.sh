#!/usr/bin/env bash
# quickstart.sh: the two commands of the README, on a fresh Debian 12 machine.
#
#   ./quickstart.sh start   install what is missing, build, start the main job
#   ./quickstart.sh test    install what is missing, build, run every test suite
#                           (normal gcc build, then clang ASan+UBSan build)
#
# `test` ends with one line "N passed, N failed, N skipped" counting meson
# tests over all builds, and exits non-zero if anything failed. .ci/run calls it.
set -u -o pipefail
cd "$(dirname "$0")"

# What the build and the tests need, by Debian package name.
PACKAGES=(
  gcc clang libclang-rt-14-dev binutils meson ninja-build pkg-config python3
  android-libboringssl-dev liblmdb-dev libzstd-dev check libsubunit-dev
  libstemmer-dev libutf8proc-dev libunbound-dev libevent-dev libnghttp2-dev
  valgrind file gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user
  gcc-s390x-linux-gnu libc6-dev-s390x-cross
  libpython3.11-testsuite golang-github-jhillyerd-enmime-dev spamassassin
  gnupg sq rnp openssl gpgsm libnss3-tools p11-kit
  libbcpkix-java libbcprov-java libbcutil-java default-jdk-headless
  nftables iproute2 faketime redis-server
)

log() { printf '== %s\n' "$*" >&2; }

install_missing() {
  local missing=() p
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  log "installing: ${missing[*]}"
  local sudo=()
  [ "$(id -u)" -ne 0 ] && sudo=(sudo)
  "${sudo[@]}" apt-get update -q >/dev/null &&
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q --no-install-recommends \
      "${missing[@]}" >/dev/null
}

# install_node_peers DIR: the npm packages of tests/interop/package.json into
# DIR/node_modules, where the differential tests look (CORVID_NODE_MODULES).
install_node_peers() {
  local dir=$1
  # Node.js may come from elsewhere than Debian (its npm is then built in):
  # install Debian's only when there is none.
  if ! command -v npm >/dev/null; then
    local PACKAGES=(nodejs npm)
    install_missing || { log "npm missing: the node peers cannot be installed"; return 1; }
  fi
  mkdir -p "$dir" && cp tests/interop/package.json "$dir/package.json" &&
    (cd "$dir" && npm install --no-package-lock --no-audit --no-fund --silent >/dev/null)
}

# configure DIR [meson setup options...]: set up DIR, or reconfigure it.
configure() {
  local dir=$1
  shift
  if [ -f "$dir/meson-private/coredata.dat" ]; then
    meson setup --reconfigure "$dir" "$@" >/dev/null
  else
    meson setup "$dir" "$@" >/dev/null
  fi
}

start() {
  install_missing || return 1
  configure build || return 1
  ninja -C build || return 1
  local daemon=build/servers/maild/maild
  if [ -x "$daemon" ]; then
    log "starting $daemon on localhost"
    exec "$daemon"
  fi
  # Until maild exists, the main job is the daemons that do: keepd on
  # 127.0.0.1:7379, beside an embedded message store in build/var/ that the
  # tools (mailctl store, ftsearch) work on.
  mkdir -p build/var
  local store=build/var/mail.store
  if [ ! -e "$store" ]; then
    build/tools/mailctl/mailctl store create "$store" &&
      build/tools/mailctl/mailctl store add-account "$store" demo || return 1
    log "created the message store $store with the account 'demo'"
  fi
  local tools
  tools=$(find "$PWD/build/tools" -maxdepth 2 -type f -executable -not -name '*.so*' \
    -not -name 'test_*' -not -name 'fuzz_*' -not -name '*_failing' 2>/dev/null | sort)
  tools="$tools $PWD/tools/bench-report/bench-report"
  log "the tools are built:"
  printf '  %s\n' $tools >&2
  local path
  path=$(printf '%s\n' $tools | xargs -r -n1 dirname | sort -u | tr '\n' ':')
  local keepd=build/servers/keepd/keepd
  if ! [ -t 0 ] || ! [ -t 1 ]; then
    log "add the tools to PATH with: export PATH=\"$path\$PATH\""
    log "starting $keepd on 127.0.0.1:7379 (Ctrl-C stops it)"
    exec "$keepd" --listen 127.0.0.1 --port 7379 --plaintext
  fi
  log "starting $keepd on 127.0.0.1:7379 in the background"
  "$keepd" --listen 127.0.0.1 --port 7379 --plaintext &
  local keepd_pid=$!
  log "opening a shell with the tools on PATH (type 'exit' to leave and stop keepd)"
  PATH="$path$PATH" "${SHELL:-/bin/bash}" -i
  kill "$keepd_pid" 2>/dev/null
  wait "$keepd_pid" 2>/dev/null
  return 0
}

passed=0 failed=0 skipped=0

# count_results DIR: add the meson test results of DIR to the totals.
count_results() {
  local counts
  counts=$(python3 - "$1/meson-logs/testlog.json" <<'PY'
import json, sys
p = f = s = 0
try:
    lines = open(sys.argv[1], encoding='utf-8').read().splitlines()
except OSError:
    lines = []
for line in lines:
    r = json.loads(line).get('result', '')
    if r in ('OK', 'EXPECTEDFAIL'):
        p += 1
    elif r == 'SKIP':
        s += 1
    else:
        f += 1
print(p, f, s)
PY
)
  read -r p f s <<<"$counts"
  passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
}

# run_suites NAME DIR [meson setup options...]: build DIR and run its tests.
run_suites() {
  local name=$1 dir=$2
  shift 2
  log "$name: configure $dir"
  if ! configure "$dir" "$@" || ! ninja -C "$dir" >"$dir/build-output.log" 2>&1; then
    tail -n 40 "$dir/build-output.log" >&2 2>/dev/null
    log "$name: BUILD FAILED"
    failed=$((failed + 1))
    return
  fi
  log "$name: test"
  rm -f "$dir/meson-logs/testlog.json"
  # msgcrypt-long holds the million-iteration vectors: run them on demand
  # with `meson test -C build --suite msgcrypt-long`.
  meson test -C "$dir" --print-errorlogs --num-processes "$(nproc)" --no-suite msgcrypt-long >&2
  count_results "$dir"
}

run_tests() {
  if ! install_missing; then
    echo "0 passed, 1 failed"
    return 1
  fi
  local dir
  for dir in build-test build-asan; do
    install_node_peers "$dir" || log "continuing; the tests that need node peers will fail"
  done
  run_suites "gcc" build-test
  # Sanitized code runs two to three times slower: Check's per-test limit
  # (4 s unless a suite sets its own) stretches to match, and meson's own
  # per-program timeouts still stop a test that hangs.
  CK_TIMEOUT_MULTIPLIER=3 \
    ASAN_OPTIONS=abort_on_error=0:detect_leaks=1 \
    UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    CC=clang run_suites "clang asan+ubsan" build-asan \
    -Db_sanitize=address,undefined -Db_lundef=false
  echo "$passed passed, $failed failed, $skipped skipped"
  [ "$failed" -eq 0 ]
}

case "${1:-}" in
start) start ;;
test) run_tests ;;
*)
  echo "usage: $0 start|test" >&2
  exit 2
  ;;
esac
