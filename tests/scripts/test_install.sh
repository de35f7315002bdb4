#!/usr/bin/env bash
# test_install.sh: installs the build into a temporary DESTDIR and uses it the
# way an outside project would: the six headers and .pc files are there,
# pkg-config reports each library's version, and a small program compiles,
# links and runs against each library through pkg-config alone.
# usage: test_install.sh MESON BUILD_DIR CC   (prints TAP)
set -u
meson=$1 build=$2 cc=$3
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT

libs="encodify:enc mailparse:mp msgcrypt:mc mailstore:ms ftsearch:fts keep:keep"
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() {
  n=$((n + 1)) failed=$((failed + 1))
  echo "not ok $n - $1"
  shift
  local l
  for l in "$@"; do printf '%s\n' "$l" | sed 's/^/# /'; done
}

echo "TAP version 13"
if out=$("$meson" install -C "$build" --destdir "$dest" --no-rebuild --skip-subprojects 2>&1); then
  ok "meson install --destdir"
else
  not_ok "meson install --destdir" "$out"
fi

headers=$(find "$dest" -path '*/include/*.h' | wc -l)
pcs=$(find "$dest" -name '*.pc' | wc -l)
[ "$headers" -eq 6 ] && ok "six headers installed" || not_ok "six headers installed" "found $headers"
[ "$pcs" -eq 6 ] && ok "six .pc files installed" || not_ok "six .pc files installed" "found $pcs"

pcdir=$(dirname "$(find "$dest" -name encodify.pc | head -n1)")
libdir=$(dirname "$pcdir")
export PKG_CONFIG_PATH=$pcdir PKG_CONFIG_SYSROOT_DIR=$dest PKG_CONFIG_LIBDIR=$pcdir:/usr/lib/pkgconfig:/usr/share/pkgconfig:/usr/lib/$(gcc -print-multiarch)/pkgconfig

names=$(for l in $libs; do echo -n "${l%%:*} "; done)
# shellcheck disable=SC2086
versions=$(pkg-config --modversion $names 2>&1)
if [ "$(echo "$versions" | grep -cE '^[0-9]+\.[0-9]+\.[0-9]+$')" -eq 6 ]; then
  ok "pkg-config --modversion prints six versions"
else
  not_ok "pkg-config --modversion prints six versions" "$versions"
fi

for l in $libs; do
  name=${l%%:*} p=${l##*:}
  P=$(echo "$p" | tr a-z A-Z)
  src="$dest/use_$name.c"
  cat >"$src" <<C
#include <$name.h>
#include <stdio.h>
#include <string.h>
int main(void) {
  if (${p}_version() != ${P}_VERSION_NUMBER || strcmp(${p}_version_string(), ${P}_VERSION_STRING) != 0)
    return 1;
  printf("%s\n", ${p}_version_string());
  return ${p}_strerror(0) == NULL;
}
C
  # shellcheck disable=SC2046
  # -rpath-link stands in for the system library path: the installed
  # libraries' own dependencies (libmailparse needs libencodify) are found
  # there at link time, as they would be in /usr/local/lib.
  if ! out=$("$cc" -std=c11 -Wall -Werror -o "$dest/use_$name" "$src" $(pkg-config --cflags --libs "$name") -Wl,-rpath-link,"$libdir" 2>&1); then
    not_ok "outside program compiles and links against lib$name" "$out"
    not_ok "outside program runs against installed lib$name" "not built"
    continue
  fi
  ok "outside program compiles and links against lib$name"
  want=$(pkg-config --modversion "$name")
  got=$(LD_LIBRARY_PATH=$libdir "$dest/use_$name" 2>&1)
  # The program must have loaded the installed copy, not the build tree's.
  loaded=$(LD_LIBRARY_PATH=$libdir ldd "$dest/use_$name" | grep "lib$name.so")
  if [ "$got" = "$want" ] && [[ "$loaded" == *"$dest"* ]]; then
    ok "outside program runs against installed lib$name ($got)"
  else
    not_ok "outside program runs against installed lib$name" "got '$got' want '$want'" "$loaded"
  fi
done
echo "1..$n"
exit $((failed > 0))
