#!/bin/bash
# run-aarch64-tests.sh: cross-compiles libmailparse (with the libencodify it
# needs) for aarch64 with Debian's gcc-aarch64-linux-gnu and runs its scanner
# checks under qemu-aarch64 (qemu-user): the fuzz_scan harness, which
# compares the NEON and SWAR scanners with scalar function by function and
# whole parse by whole parse, over its corpus (replay driver) and over many
# generated inputs (cross/fuzz_selftest.c); the fuzz_message_parse harness
# the same way; and a short check that NEON is the implementation chosen by
# default and that MAILPARSE_IMPL still forces one.
#
# Like libencodify/cross/run-aarch64-tests.sh, it compiles the sources
# directly instead of configuring the Corvid Meson project (which needs arm64
# builds of every dependency), and uses the harnesses rather than the Check
# suites so that no arm64 multiarch packages are needed.
#
# usage: libmailparse/cross/run-aarch64-tests.sh [BUILD-DIR] [ITERATIONS]
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
lib=$(dirname "$here")
root=$(dirname "$lib")
enc=$root/libencodify
build=${1:-/tmp/build-mp-aarch64}
iterations=${2:-1000}
CC=${CC_AARCH64:-aarch64-linux-gnu-gcc}
SYSROOT=/usr/aarch64-linux-gnu

for tool in "$CC" qemu-aarch64; do
  if ! command -v "$tool" >/dev/null; then
    echo "Bail out! missing $tool: apt-get install gcc-aarch64-linux-gnu qemu-user" >&2
    exit 1
  fi
done

mkdir -p "$build"
common=(-std=c11 -O2 -g -Wall -Wextra -Wpedantic -D_GNU_SOURCE -fvisibility=hidden
  -I"$root/common/include")
encflags=("${common[@]}" -DENC_HAVE_NEON=1 -DENC_HAVE_SWAR=1 -I"$enc/include" -I"$enc/src")
mpflags=("${common[@]}" -I"$lib/include" -I"$lib/src" -I"$enc/include")
objs=()
for src in "$enc"/src/*.c "$enc"/src/arm/neon.c; do
  obj="$build/enc_$(basename "${src%.c}").o"
  "$CC" "${encflags[@]}" -c "$src" -o "$obj"
  objs+=("$obj")
done
# Warnings are errors in the scanner files this test is about; the rest of
# the library only has to build (its owners' -Werror builds are native).
for src in "$lib"/src/*.c "$lib"/src/arm/neon.c; do
  obj="$build/mp_$(basename "${src%.c}").o"
  strict=()
  case "$src" in */scan*.c | */arm/neon.c) strict=(-Werror) ;; esac
  "$CC" "${mpflags[@]}" "${strict[@]}" -c "$src" -o "$obj"
  objs+=("$obj")
done
"$CC" -c "$root/common/fuzz/replay_main.c" -std=c11 -O2 -D_GNU_SOURCE -o "$build/replay_main.o"
"$CC" -c "$here/fuzz_selftest.c" -std=c11 -O2 -Wall -Wextra -Werror -o "$build/fuzz_selftest.o"

run() { qemu-aarch64 -L "$SYSROOT" "$@"; }

# The implementation table on this target.
cat > "$build/impl_check.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mailparse.h"
int main(int argc, char **argv) {
  const char *want = argc > 1 ? argv[1] : "neon";
  int ok = strcmp(mp_impl_name(), want) == 0;
  mp_message *m = NULL;
  const char msg[] = "Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\nX: y\r\n\r\nz\r\n--b--\r\n";
  ok = ok && mp_message_parse(&m, NULL, msg, sizeof msg - 1, NULL) == 0 &&
       mp_message_num_parts(m) == 2 && mp_message_num_headers(m) == 2;
  mp_message_free(m);
  for (size_t i = 0; i < mp_impl_count(); i++) {
    int sup;
    printf("# %s%s\n", mp_impl_get(i, &sup), sup ? "" : " (unsupported)");
  }
  printf("# in use: %s\n", mp_impl_name());
  return ok ? 0 : 1;
}
C
"$CC" "${mpflags[@]}" "$build/impl_check.c" "${objs[@]}" -o "$build/impl_check"

# shellcheck source=../../tests/scripts/tap_checks.sh
. "$root/tests/scripts/tap_checks.sh"

tap_check impl-neon-default run "$build/impl_check"
tap_check impl-swar-forced env MAILPARSE_IMPL=swar qemu-aarch64 -L "$SYSROOT" "$build/impl_check" swar
for name in fuzz_scan fuzz_message_parse; do
  "$CC" "${mpflags[@]}" -Werror -c "$lib/fuzz/$name.c" -o "$build/$name.o"
  "$CC" "$build/$name.o" "$build/replay_main.o" "${objs[@]}" -o "$build/$name-replay"
  "$CC" "$build/$name.o" "$build/fuzz_selftest.o" "${objs[@]}" -o "$build/$name-selftest"
  tap_check "$name-corpus" run "$build/$name-replay" "$lib/fuzz/corpus/${name#fuzz_}"
  tap_check "$name-generated" run "$build/$name-selftest" "$iterations"
done

tap_finish
