#!/usr/bin/env bash
# test_no_openssl.sh: no library, tool, daemon or test of the build loads
# OpenSSL. BoringSSL (Debian's android-libboringssl) uses the same symbol
# names, so a process that loaded both would call the wrong one. Benchmark
# peers (*/bench/peer_*) are separate programs that measure other libraries,
# some of which link OpenSSL by design (librnp); they never load ours.
# usage: test_no_openssl.sh BUILD_DIR   (prints TAP)
set -u
build=$1
n=0 failed=0 checked=0
while IFS= read -r -d '' f; do
  file -b "$f" 2>/dev/null | grep -q '^ELF' || continue
  checked=$((checked + 1))
  # ldd lists the whole closure of shared objects the file loads.
  if hits=$(ldd "$f" 2>/dev/null | grep -E 'lib(ssl|crypto)\.so\.(1\.1|3)\b'); then
    n=$((n + 1)) failed=$((failed + 1))
    echo "not ok $n - $f loads OpenSSL"
    echo "$hits" | sed 's/^/# /'
  fi
done < <(find "$build" -type f \( -perm -u+x -o -name '*.so*' \) -not -path '*/meson-*' \
  -not -path '*/bench/peer_*' -print0)
n=$((n + 1))
if [ "$checked" -gt 10 ]; then
  echo "ok $n - $checked ELF files checked"
else
  failed=$((failed + 1))
  echo "not ok $n - only $checked ELF files found under $build"
fi
echo "1..$n"
exit $((failed > 0))
