#!/bin/bash
# run-aarch64-tests.sh: cross-compiles libencodify for aarch64 with Debian's
# gcc-aarch64-linux-gnu and runs its checks under qemu-aarch64 (qemu-user):
# every fuzz harness over its corpus (replay driver) and over many generated
# inputs (cross/fuzz_selftest.c), each harness comparing the NEON and SWAR
# kernels with scalar, streaming with one-shot, and checking round trips;
# plus a short check that the NEON implementation is chosen by default.
#
# It compiles the sources directly instead of configuring the Corvid Meson
# project, because that project needs arm64 builds of every dependency
# (LMDB, zstd, Check, BoringSSL ...), while libencodify needs only libc; and
# the checks use the harnesses rather than the Check suites so that no arm64
# multiarch packages are needed. Missing tools are installed with apt-get when
# running as root (as CI does); otherwise the script says what to install.
#
# usage: libencodify/cross/run-aarch64-tests.sh [BUILD-DIR] [ITERATIONS]
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
lib=$(dirname "$here")
root=$(dirname "$lib")
build=${1:-/tmp/build-enc-aarch64}
iterations=${2:-3000}
CC=${CC_AARCH64:-aarch64-linux-gnu-gcc}
SYSROOT=/usr/aarch64-linux-gnu

need=()
command -v "$CC" >/dev/null || need+=(gcc-aarch64-linux-gnu)
command -v qemu-aarch64 >/dev/null || need+=(qemu-user)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "# installing ${need[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get install -y "${need[@]}" >/dev/null ||
      { apt-get update >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y "${need[@]}" >/dev/null; }
  else
    echo "Bail out! missing ${need[*]}: apt-get install ${need[*]}" >&2
    exit 1
  fi
fi

mkdir -p "$build"
cflags=(-std=c11 -O2 -g -Wall -Wextra -Wpedantic -Werror -D_GNU_SOURCE -fvisibility=hidden
  -DENC_HAVE_NEON=1 -DENC_HAVE_SWAR=1
  -I"$lib/include" -I"$lib/src" -I"$root/common/include")
objs=()
for src in "$lib"/src/*.c "$lib"/src/arm/neon.c; do
  obj="$build/$(basename "${src%.c}").o"
  "$CC" "${cflags[@]}" -c "$src" -o "$obj"
  objs+=("$obj")
done
"$CC" -c "$root/common/fuzz/replay_main.c" -std=c11 -O2 -D_GNU_SOURCE -o "$build/replay_main.o"
"$CC" -c "$here/fuzz_selftest.c" -std=c11 -O2 -Wall -Wextra -Werror -o "$build/fuzz_selftest.o"

run() { qemu-aarch64 -L "$SYSROOT" "$@"; }

# The implementation table on this target.
cat > "$build/impl_check.c" <<'C'
#include <stdio.h>
#include <string.h>
#include "encodify.h"
int main(void) {
  int ok = strcmp(enc_impl_name(), "neon") == 0;
  char out[8];
  size_t len;
  ok = ok && enc_base64_encode(0, 0, out, sizeof out, &len, "foo", 3) == 0 && len == 4 &&
       memcmp(out, "Zm9v", 4) == 0;
  for (size_t i = 0; i < enc_impl_count(); i++) {
    int sup;
    printf("# %s%s\n", enc_impl_get(i, &sup), sup ? "" : " (unsupported)");
  }
  return ok ? 0 : 1;
}
C
"$CC" "${cflags[@]}" "$build/impl_check.c" "${objs[@]}" -o "$build/impl_check"

# shellcheck source=../../tests/scripts/tap_checks.sh
. "$root/tests/scripts/tap_checks.sh"

tap_check impl-neon-default run "$build/impl_check"
for h in "$lib"/fuzz/fuzz_*.c; do
  name=$(basename "${h%.c}")
  "$CC" "${cflags[@]}" -I"$lib/fuzz" -c "$h" -o "$build/$name.o"
  "$CC" "$build/$name.o" "$build/replay_main.o" "${objs[@]}" -o "$build/$name-replay"
  "$CC" "$build/$name.o" "$build/fuzz_selftest.o" "${objs[@]}" -o "$build/$name-selftest"
  tap_check "$name-corpus" run "$build/$name-replay" "$lib/fuzz/corpus/${name#fuzz_}"
  tap_check "$name-generated" run "$build/$name-selftest" "$iterations"
done

tap_finish
