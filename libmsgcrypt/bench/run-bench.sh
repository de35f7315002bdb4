#!/bin/sh
# run-bench.sh: runs bench_msgcrypt and its out-of-process peers (OpenSSL's
# `openssl speed`, @noble in node) in turn, round after round, gathers their
# JSON lines in one file and prints one tools/bench-report table per group,
# each against the baseline its goal names, then the goals (goals.py).
#
# usage: run-bench.sh BUILD_DIR [ROUNDS] [--quick]
#   BUILD_DIR: a build with bench_msgcrypt in it (bench/README.md);
#   ROUNDS (default 3): how many times each part runs; every record keeps its
#   fastest run. The JSON lines go to $BENCH_OUT (default
#   BUILD_DIR/bench-msgcrypt.jsonl); @noble comes from $CORVID_NODE_MODULES
#   (default BUILD_DIR/node_modules). A missing peer is reported and skipped.
#   BENCH_PGP_ONLY=1 runs only the OpenPGP encryption part (bench_pgp and
#   peer_rnp, keys from pgp-keys.sh); BENCH_CMS_ONLY=1 only the S/MIME part
#   (bench_cms and peer_openssl_cms, certificates from cms-certs.sh).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
report="$here/../../tools/bench-report/bench-report"
build=${1:?usage: run-bench.sh BUILD_DIR [ROUNDS] [--quick]}
rounds=${2:-3}
quick=
if [ "${3:-}" = --quick ] || [ "$rounds" = --quick ]; then
  quick=--quick
  rounds=1
fi
bench="$build/libmsgcrypt/bench/bench_msgcrypt"
out=${BENCH_OUT:-$build/bench-msgcrypt.jsonl}
node_modules=${CORVID_NODE_MODULES:-$build/node_modules}
[ -n "${BENCH_PGP_ONLY:-}${BENCH_CMS_ONLY:-}" ] || [ -x "$bench" ] || { echo "run-bench.sh: $bench not built" >&2; exit 2; }

: >"$out"
: >"$out.formats"
bench_pgp="$build/libmsgcrypt/bench/bench_pgp"
peer_rnp="$build/libmsgcrypt/bench/peer_rnp"
pgp_keydir=$(mktemp -d)
cms_certdir=$(mktemp -d)
trap 'rm -rf "$pgp_keydir" "$cms_certdir"' EXIT
bench_cms="$build/libmsgcrypt/bench/bench_cms"
peer_openssl_cms="$build/libmsgcrypt/bench/peer_openssl_cms"
cms_certs=
if [ -x "$bench_cms" ] && command -v openssl >/dev/null && [ -z "${BENCH_PGP_ONLY:-}" ]; then
  cms_certs=$(sh "$here/cms-certs.sh" "$cms_certdir" 2>/dev/null)
fi
pgp_keys=
if [ -z "${BENCH_CMS_ONLY:-}" ] && [ -x "$bench_pgp" ] && command -v gpg >/dev/null; then
  pgp_keys=$(sh "$here/pgp-keys.sh" "$pgp_keydir" 2>/dev/null)
fi
r=1
while [ "$r" -le "$rounds" ]; do
  echo "run-bench.sh: round $r of $rounds" >&2
  if [ -n "${BENCH_PGP_ONLY:-}${BENCH_CMS_ONLY:-}" ]; then
    : # only the OpenPGP or S/MIME encryption part below
  elif true; then
  # shellcheck disable=SC2086
  "$bench" --rounds 2 $quick >>"$out"
  if command -v openssl >/dev/null; then
    python3 "$here/peer_openssl_speed.py" --seconds 1 >>"$out" ||
      echo "run-bench.sh: the OpenSSL peer failed" >&2
  else
    echo "run-bench.sh: no openssl (Debian package openssl): OpenSSL left out" >&2
  fi
  if command -v node >/dev/null && [ -d "$node_modules/@noble/post-quantum" ]; then
    # shellcheck disable=SC2086
    node "$here/peer_noble.mjs" "$node_modules" $quick >>"$out" ||
      echo "run-bench.sh: the @noble peer failed" >&2
  else
    echo "run-bench.sh: no node or no @noble/post-quantum in $node_modules: @noble left out" >&2
  fi
  fi
  # OpenPGP encryption: ours, then librnp in its own process.
  if [ -z "${BENCH_CMS_ONLY:-}" ] && [ -x "$bench_pgp" ]; then
    "$bench_pgp" --rounds 2 $pgp_keys >>"$out" 2>>"$out.formats"
    if [ -x "$peer_rnp" ]; then
      "$peer_rnp" --rounds 2 $pgp_keys >>"$out" 2>/dev/null ||
        echo "run-bench.sh: the librnp peer failed" >&2
    else
      echo "run-bench.sh: no peer_rnp (librnp-dev, -Dbench_peers): librnp left out" >&2
    fi
  fi
  # S/MIME encryption: ours, then OpenSSL's CMS_encrypt in its own process.
  if [ -n "$cms_certs" ]; then
    # shellcheck disable=SC2086
    "$bench_cms" --rounds 2 $cms_certs >>"$out" 2>>"$out.formats"
    if [ -x "$peer_openssl_cms" ]; then
      # shellcheck disable=SC2086
      "$peer_openssl_cms" --rounds 2 $cms_certs >>"$out" 2>/dev/null ||
        echo "run-bench.sh: the OpenSSL CMS peer failed" >&2
    else
      echo "run-bench.sh: no peer_openssl_cms (libssl-dev, -Dbench_peers): OpenSSL CMS left out" >&2
    fi
  fi
  r=$((r + 1))
done

table() { # title, baseline, bench-name pattern (grep -E)
  grep -E "\"bench\":\"($3)" "$out" | python3 "$report" --baseline "$2" --title "$1" || true
  echo
}
table "X448 and Ed448 against OpenSSL 3 (X25519 and Ed25519 for scale)" openssl \
  'x448|ed448|x25519|ed25519'
table "AES-256 AEAD: OCB against BoringSSL's GCM" boringssl-gcm 'aes256-aead'
table "ML-KEM against the pq-crystals reference" ref 'mlkem'
table "ML-DSA against the pq-crystals reference" ref 'mldsa'
table "OpenPGP encryption to one key against librnp (10 KiB, 1 MiB)" rnp 'pgp-encrypt'
table "Raw AES-256 over 1 MiB (OCB, CFB)" aes256-cfb 'pgp-raw'
table "Armored OpenPGP encryption to one key against librnp (10 KiB, 1 MiB)" rnp \
  'pgp-armor-(rsa|p256|cv|x25519|mlkem)'
table "The armor writer against libencodify's wrapped Base64 (1 MiB)" enc-wrap64 'pgp-armor-write'
table "HKDF per call: mc_hkdf against BoringSSL's HKDF()" boringssl 'hkdf-'
table "S/MIME encryption to one certificate against OpenSSL's CMS_encrypt (10 KiB, 1 MiB)" \
  openssl 'cms-encrypt'
table "Raw AES-256 over 1 MiB (CBC, GCM)" aes256-cbc 'cms-raw'
sort -u "$out.formats"
echo
python3 "$here/goals.py" "$out"
