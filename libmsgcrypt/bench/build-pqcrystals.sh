#!/bin/sh
# build-pqcrystals.sh: builds the authors' portable reference implementations
# of ML-KEM (pq-crystals/kyber, ref/) and ML-DSA (pq-crystals/dilithium, ref/)
# as one static library outside the repository, and writes a pkg-config file
# for it, so that bench_msgcrypt can measure them side by side with ours
# (bench/README.md). Their code never enters the repository: this script
# only compiles a copy that the caller fetched.
#
# usage: build-pqcrystals.sh KYBER_DIR DILITHIUM_DIR OUT_DIR
#   KYBER_DIR, DILITHIUM_DIR: checkouts of the two repositories (their ref/
#   folders are used); OUT_DIR receives lib/libpqcrystals_ref.a,
#   include/pqcrystals/{kyber_api.h,dilithium_api.h} and
#   lib/pkgconfig/pqcrystals-ref.pc.
# Environment: CC (default cc), PQ_CFLAGS (default: the flags of their own
# Makefiles, -O3 -fomit-frame-pointer).
set -eu

if [ $# -ne 3 ]; then
  echo "usage: $0 KYBER_DIR DILITHIUM_DIR OUT_DIR" >&2
  exit 2
fi
kyber=$(cd "$1/ref" && pwd)
dilithium=$(cd "$2/ref" && pwd)
mkdir -p "$3"
out=$(cd "$3" && pwd)
cc=${CC:-cc}
cflags=${PQ_CFLAGS:--O3 -fomit-frame-pointer}
obj="$out/obj"
rm -rf "$obj"
mkdir -p "$obj" "$out/lib/pkgconfig" "$out/include/pqcrystals"

# Each level is compiled on its own with the level macro: their headers then
# put every symbol under a per-level prefix (pqcrystals_kyber768_ref_...,
# pqcrystals_dilithium3_ref_...), and the Keccak code under a per-project one,
# so that all six levels link into one program.
compile() { # dir, object name, source, extra flags
  # shellcheck disable=SC2086
  "$cc" $cflags -fPIC -c -I"$1" $4 -o "$obj/$2.o" "$1/$3"
}
for k in 2 3 4; do
  for s in kem indcpa polyvec poly ntt cbd reduce verify symmetric-shake; do
    compile "$kyber" "kyber${k}_$s" "$s.c" "-DKYBER_K=$k"
  done
done
compile "$kyber" kyber_fips202 fips202.c ""
for m in 2 3 5; do
  for s in sign packing polyvec poly ntt reduce rounding symmetric-shake; do
    compile "$dilithium" "dilithium${m}_$s" "$s.c" "-DDILITHIUM_MODE=$m"
  done
done
compile "$dilithium" dilithium_fips202 fips202.c ""
# Both projects define the same unprefixed randombytes() (getrandom): one copy.
compile "$kyber" randombytes randombytes.c ""

rm -f "$out/lib/libpqcrystals_ref.a"
ar rcs "$out/lib/libpqcrystals_ref.a" "$obj"/*.o
# Their two api.h share the include guard API_H: each copy gets its own.
sed 's/\bAPI_H\b/PQCRYSTALS_KYBER_API_H/' "$kyber/api.h" >"$out/include/pqcrystals/kyber_api.h"
sed 's/\bAPI_H\b/PQCRYSTALS_DILITHIUM_API_H/' "$dilithium/api.h" \
  >"$out/include/pqcrystals/dilithium_api.h"

kyber_rev=$(cat "$1/.corvid-revision" 2>/dev/null || echo unknown)
dilithium_rev=$(cat "$2/.corvid-revision" 2>/dev/null || echo unknown)
cat > "$out/lib/pkgconfig/pqcrystals-ref.pc" <<EOF
prefix=$out
Name: pqcrystals-ref
Description: pq-crystals kyber and dilithium ref/ (kyber $kyber_rev, dilithium $dilithium_rev), $cc $cflags
Version: 0
Cflags: -I\${prefix}/include
Libs: \${prefix}/lib/libpqcrystals_ref.a
EOF
echo "built $out/lib/libpqcrystals_ref.a with $cc $cflags"
