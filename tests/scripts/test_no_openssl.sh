#!/usr/bin/env bash
# test_no_openssl.sh: no library, tool, daemon or test of the build loads
# OpenSSL. BoringSSL (Debian's android-libboringssl) uses the same symbol
# names, so a process that loaded both would call the wrong one. Benchmark
# peers (*/bench/peer_*) are separate programs that measure other libraries,
# some of which link OpenSSL by design (librnp); they never load ours.
# usage: test_no_openssl.sh BUILD_DIR   (prints TAP)
set -u
build=$1
# The ELF files, found by their magic bytes read in the shell: one process
# per file (file(1), grep) made the test take minutes on a loaded machine.
elves=()
while IFS= read -r -d '' f; do
  magic=
  IFS= read -r -n 4 magic <"$f" 2>/dev/null
  [ "$magic" = $'\x7fELF' ] && elves+=("$f")
done < <(find "$build" -type f \( -perm -u+x -o -name '*.so*' \) -not -path '*/meson-*' \
  -not -path '*/bench/peer_*' -print0)
n=0 failed=0
if [ "${#elves[@]}" -gt 0 ]; then
  # One ldd for all of them: it prints "FILE:" and then the whole closure of
  # shared objects that file loads, indented.
  while IFS=$'\t' read -r f hits; do
    n=$((n + 1)) failed=$((failed + 1))
    echo "not ok $n - $f loads OpenSSL"
    echo "# $hits"
  done < <(ldd "${elves[@]}" 2>/dev/null | awk '
    /^[^ \t].*:$/ { file = substr($0, 1, length($0) - 1); next }
    /lib(ssl|crypto)\.so\.(1\.1|3)([^0-9.]|$)/ { sub(/^[ \t]+/, ""); print file "\t" $0 }')
fi
n=$((n + 1))
if [ "${#elves[@]}" -gt 10 ]; then
  echo "ok $n - ${#elves[@]} ELF files checked"
else
  failed=$((failed + 1))
  echo "not ok $n - only ${#elves[@]} ELF files found under $build"
fi
echo "1..$n"
exit $((failed > 0))
