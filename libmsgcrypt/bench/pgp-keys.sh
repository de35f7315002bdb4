#!/bin/sh
# pgp-keys.sh: writes the recipient certificates of the OpenPGP encryption
# benchmark to DIR and prints NAME=FILE arguments for bench_pgp and peer_rnp:
# RSA-3072, ECDH P-256 and Curve25519 legacy (v4) made with gpg in a
# temporary GNUPGHOME under DIR, and the published v6 samples for X25519
# (RFC 9580 A.3) and ML-KEM-768+X25519 (RFC 9980's v6 ML-DSA-65 sample).
#
# usage: pgp-keys.sh DIR [VECTORS_DIR]   (default /work/shared/vectors)
set -eu
dir=${1:?usage: pgp-keys.sh DIR [VECTORS_DIR]}
vectors=${2:-/work/shared/vectors}
mkdir -p "$dir/gnupg"
chmod 700 "$dir/gnupg"
export GNUPGHOME="$dir/gnupg"
gen() { # name, gpg algo of the signing primary, of the encryption subkey
  if [ ! -s "$dir/$1.pgp" ]; then
    gpg --batch --quiet --pinentry-mode loopback --passphrase '' \
      --quick-gen-key "bench-$1 <bench-$1@example.org>" "$2" sign never >/dev/null 2>&1
    fpr=$(gpg --batch --with-colons --list-keys "bench-$1@example.org" |
      awk -F: '$1 == "fpr" { print $10; exit }')
    gpg --batch --quiet --pinentry-mode loopback --passphrase '' \
      --quick-add-key "$fpr" "$3" encr never >/dev/null 2>&1
    gpg --batch --quiet --export "bench-$1@example.org" >"$dir/$1.pgp"
  fi
  echo "$1=$dir/$1.pgp"
}
gen rsa3072 rsa3072 rsa3072
gen p256 nistp256 nistp256
gen cv25519 ed25519 cv25519
for pair in "x25519v6=rfc9580-appendixA/a3_cert.asc" \
  "mlkem768x25519=openpgp-pqc/v6-mldsa-65-sample-pk.asc"; do
  f="$vectors/${pair#*=}"
  if [ -s "$f" ]; then
    echo "${pair%%=*}=$f"
  else
    echo "pgp-keys.sh: $f missing, ${pair%%=*} left out" >&2
  fi
done
