#!/bin/sh
# ct_rsa_ifma.sh: builds and runs ct_rsa_ifma.c under clang's
# MemorySanitizer (see that file), then its control build, which must fail.
# usage: ct_rsa_ifma.sh SRC_DIR(libmsgcrypt) WORK_DIR
# Exit 77 (skip) without clang or without AVX-512 IFMA.
set -u
src=${1:?usage: ct_rsa_ifma.sh LIBMSGCRYPT_DIR WORK_DIR}
work=${2:?usage: ct_rsa_ifma.sh LIBMSGCRYPT_DIR WORK_DIR}
cc=${CLANG:-clang}
command -v "$cc" >/dev/null || { echo "ct_rsa_ifma: no clang, skipped"; exit 77; }
mkdir -p "$work" || exit 1
bssl=$(ls -d /usr/lib/*/android 2>/dev/null | head -n 1)
build() { # $1: output, then extra flags
  out=$1
  shift
  "$cc" -std=c11 -O1 -g -fsanitize=memory -Wall -Wextra -Werror -mavx512f -mavx512ifma -mavx512vl \
    -I"$src/include" -I"$src/src" -I"$src/../common/include" -isystem /usr/include/android "$@" \
    "$src/tests/ct_rsa_ifma.c" "$src/src/x86/rsa_ifma.c" "$src/src/rsa_r52.c" "$src/src/wipe.c" \
    -L"$bssl" -lcrypto -Wl,-rpath,"$bssl" -o "$out"
}
build "$work/ct_rsa_ifma" || exit 1
"$work/ct_rsa_ifma"
rc=$?
[ $rc -eq 0 ] || exit $rc
build "$work/ct_rsa_ifma_control" -DCT_RSA_IFMA_CONTROL || exit 1
if "$work/ct_rsa_ifma_control" >/dev/null 2>&1; then
  echo "ct_rsa_ifma: the control branch on the secret went unreported: MemorySanitizer does not see through the kernel"
  exit 1
fi
echo "ct_rsa_ifma: control reported, as it must be"
exit 0
