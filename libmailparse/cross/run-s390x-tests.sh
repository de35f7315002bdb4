#!/bin/bash
# run-s390x-tests.sh: runs libmailparse on a big-endian machine, s390x under
# qemu-s390x (qemu-user), cross-compiled with Debian's gcc-s390x-linux-gnu,
# and compares what it reads with what a little-endian build reads. The code
# that depends on byte order (the SWAR scanner, the date parser's word
# loads, the charset decoders' code-unit paths) is otherwise never run.
#
# - The mailparse tool dumps (`dump --json`) COUNT mkcorpus messages, the
#   real messages from Debian packages (where installed) and every
#   libmailparse fuzz corpus file. The s390x build, with its default
#   implementation (SWAR) and with MAILPARSE_IMPL=scalar, must print exactly
#   what the aarch64 build (little-endian, NEON, under qemu-aarch64) prints:
#   every header and typed value, the part tree, byte ranges, line counts,
#   decoded text and each body's SHA-256. The reference is aarch64 rather
#   than this machine because Debian's cross C libraries ship no iconv
#   modules: both emulated builds convert only the charsets glibc has built
#   in (UTF-8, UTF-16/32, UCS-4 ...), and the others alike as unknown.
# - The fuzz harnesses of the parsers with byte-order code (fuzz_scan,
#   fuzz_typed_date, fuzz_charset, fuzz_message_parse) run on s390x over
#   their corpus (replay driver) and over generated inputs (fuzz_selftest.c):
#   the SWAR scanner against scalar, fast paths against their references;
#   so do all of libencodify's (its cross/fuzz_selftest.c generating).
#
# BoringSSL is built for neither target, so both tools take SHA256() from
# shim/openssl/sha.h, which is first checked against sha256sum here. Like
# run-aarch64-tests.sh this compiles the sources directly (the Meson
# project needs a build of every dependency for the target), with -Werror,
# so a warning that only a big-endian target shows fails too.
#
# usage: run-s390x-tests.sh MKCORPUS BUILD-DIR [COUNT] [ITERATIONS]
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
lib=$(dirname "$here")
root=$(dirname "$lib")
enc=$root/libencodify
usage="usage: run-s390x-tests.sh MKCORPUS BUILD-DIR [COUNT] [ITERATIONS]"
mkcorpus=${1:?$usage}
build=${2:?$usage}
count=${3:-150}
iterations=${4:-1000}
CC_BE=${CC_S390X:-s390x-linux-gnu-gcc}
CC_LE=${CC_AARCH64:-aarch64-linux-gnu-gcc}

for tool in "$CC_BE" "$CC_LE" qemu-s390x qemu-aarch64 sha256sum; do
  if ! command -v "$tool" >/dev/null; then
    echo "Bail out! missing $tool: apt-get install gcc-s390x-linux-gnu libc6-dev-s390x-cross" \
      "gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user" >&2
    exit 1
  fi
done

rm -rf "$build"
mkdir -p "$build/s390x" "$build/aarch64"
common=(-std=c11 -O2 -g -Wall -Wextra -Wpedantic -Werror -D_GNU_SOURCE -fvisibility=hidden
  -I"$root/common/include")
mpflags=("${common[@]}" -I"$lib/include" -I"$lib/src" -I"$enc/include")

# build ARCH CC ENC-FLAGS...: libencodify, libmailparse and the tool for ARCH
# into $build/ARCH, with the kernels its meson.build would build there.
build() {
  local arch=$1 cc=$2 dir=$build/$1
  shift 2
  local encflags=("${common[@]}" "$@" -I"$enc/include" -I"$enc/src") srcs=() src
  srcs=("$enc"/src/*.c)
  case $arch in
  s390x) srcs=("${srcs[@]/*\/swar.c/}") ;; # its SWAR kernels are little-endian
  aarch64) srcs+=("$enc/src/arm/neon.c") ;;
  esac
  objs=()
  for src in "${srcs[@]}"; do
    [ -n "$src" ] || continue
    "$cc" "${encflags[@]}" -c "$src" -o "$dir/enc_$(basename "${src%.c}").o"
    objs+=("$dir/enc_$(basename "${src%.c}").o")
  done
  srcs=("$lib"/src/*.c)
  [ "$arch" = aarch64 ] && srcs+=("$lib/src/arm/neon.c")
  for src in "${srcs[@]}"; do
    "$cc" "${mpflags[@]}" -c "$src" -o "$dir/mp_$(basename "${src%.c}").o"
    objs+=("$dir/mp_$(basename "${src%.c}").o")
  done
  local tool_objs=()
  for src in "$root"/tools/mailparse/*.c; do
    "$cc" "${mpflags[@]}" -I"$here/shim" -c "$src" -o "$dir/tool_$(basename "${src%.c}").o"
    tool_objs+=("$dir/tool_$(basename "${src%.c}").o")
  done
  "$cc" "${tool_objs[@]}" "${objs[@]}" -o "$dir/mailparse"
}
build aarch64 "$CC_LE" -DENC_HAVE_NEON=1 -DENC_HAVE_SWAR=1
build s390x "$CC_BE"
be_objs=("${objs[@]}")
"$CC_BE" -c "$root/common/fuzz/replay_main.c" -std=c11 -O2 -D_GNU_SOURCE -o "$build/replay_main.o"
"$CC_BE" -c "$here/fuzz_selftest.c" -std=c11 -O2 -Wall -Wextra -Werror -o "$build/fuzz_selftest.o"

be() { qemu-s390x -L /usr/s390x-linux-gnu "$@"; }
le() { qemu-aarch64 -L /usr/aarch64-linux-gnu "$@"; }

# The messages, in a list, so that both tools read the same paths in the
# same order.
"$mkcorpus" --seed 11 --count "$count" --format eml --out "$build/corpus" >/dev/null
{
  find "$build/corpus" -type f | LC_ALL=C sort
  for f in /usr/lib/python3.11/test/test_email/data/msg_*.txt \
    /usr/share/gocode/src/github.com/jhillyerd/enmime/testdata/*/*.raw \
    /usr/share/doc/spamassassin/examples/sample-*.txt; do
    [ -f "$f" ] && printf '%s\n' "$f"
  done | LC_ALL=C sort
  find "$lib/fuzz/corpus" -type f | LC_ALL=C sort
} >"$build/messages"

# shellcheck source=../../tests/scripts/tap_checks.sh
. "$root/tests/scripts/tap_checks.sh"

# sha_shim: the shim's SHA-256, built for this machine, against sha256sum
# over the empty input, the padding edges and a few messages.
sha_shim() {
  cat >"$build/sha_check.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include "openssl/sha.h"
int main(int argc, char **argv) {
  for (int a = 1; a < argc; a++) {
    FILE *f = fopen(argv[a], "rb");
    if (f == NULL)
      return 1;
    static uint8_t buf[1 << 24];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    uint8_t md[SHA256_DIGEST_LENGTH];
    SHA256(buf, n, md);
    for (int i = 0; i < SHA256_DIGEST_LENGTH; i++)
      printf("%02x", md[i]);
    printf("  %s\n", argv[a]);
  }
  return 0;
}
C
  cc -std=c11 -O2 -Wall -Wextra -Werror -I"$here/shim" "$build/sha_check.c" -o "$build/sha_check"
  local files=() k
  for k in 0 1 55 56 63 64 65 119 120 128; do
    head -c "$k" "$build/messages" >"$build/sha_$k"
    files+=("$build/sha_$k")
  done
  files+=($(head -n 5 "$build/messages"))
  diff <("$build/sha_check" "${files[@]}") <(sha256sum "${files[@]}")
}

# The reference: the aarch64 tool's dump and exit status (the tool exits 1
# when a file fails to parse).
le_rc=0
xargs -d '\n' qemu-aarch64 -L /usr/aarch64-linux-gnu "$build/aarch64/mailparse" dump --json \
  <"$build/messages" >"$build/aarch64.jsonl" || le_rc=$?

# dump_same IMPL: the s390x tool's dump with MAILPARSE_IMPL=IMPL (its
# default when empty) equals the aarch64 tool's, exit status included.
dump_same() {
  local impl=$1 be_rc=0 out=$build/s390x-${1:-default}.jsonl
  xargs -d '\n' env ${impl:+MAILPARSE_IMPL=$impl} qemu-s390x -L /usr/s390x-linux-gnu \
    "$build/s390x/mailparse" dump --json <"$build/messages" >"$out" || be_rc=$?
  echo "aarch64 exit $le_rc, s390x exit $be_rc, $(wc -l <"$build/aarch64.jsonl") lines"
  [ "$le_rc" = "$be_rc" ] && [ -s "$build/aarch64.jsonl" ] && cmp "$build/aarch64.jsonl" "$out"
}

tap_check sha256-shim sha_shim
tap_check dump-s390x-default dump_same ""
tap_check dump-s390x-scalar dump_same scalar
for name in fuzz_scan fuzz_typed_date fuzz_charset fuzz_message_parse; do
  "$CC_BE" "${mpflags[@]}" -c "$lib/fuzz/$name.c" -o "$build/$name.o"
  "$CC_BE" "$build/$name.o" "$build/replay_main.o" "${be_objs[@]}" -o "$build/$name-replay"
  "$CC_BE" "$build/$name.o" "$build/fuzz_selftest.o" "${be_objs[@]}" -o "$build/$name-selftest"
  tap_check "$name-corpus" be "$build/$name-replay" "$lib/fuzz/corpus/${name#fuzz_}"
  tap_check "$name-generated" be "$build/$name-selftest" "$iterations"
done

# libencodify's harnesses too (round trips, streaming against one-shot;
# scalar is its only implementation there), with its own input generator.
"$CC_BE" -c "$enc/cross/fuzz_selftest.c" -std=c11 -O2 -Wall -Wextra -Werror \
  -o "$build/enc_fuzz_selftest.o"
for h in "$enc"/fuzz/fuzz_*.c; do
  name=$(basename "${h%.c}")
  "$CC_BE" "${common[@]}" -I"$enc/include" -I"$enc/src" -I"$enc/fuzz" -c "$h" -o "$build/enc_$name.o"
  "$CC_BE" "$build/enc_$name.o" "$build/replay_main.o" "${be_objs[@]}" -o "$build/enc_$name-replay"
  "$CC_BE" "$build/enc_$name.o" "$build/enc_fuzz_selftest.o" "${be_objs[@]}" \
    -o "$build/enc_$name-selftest"
  tap_check "encodify-$name-corpus" be "$build/enc_$name-replay" "$enc/fuzz/corpus/${name#fuzz_}"
  tap_check "encodify-$name-generated" be "$build/enc_$name-selftest" "$iterations"
done

tap_finish
