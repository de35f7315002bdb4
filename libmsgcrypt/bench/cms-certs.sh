#!/bin/sh
# cms-certs.sh: writes the recipient certificates of the S/MIME encryption
# benchmark to DIR and prints NAME=FILE arguments for bench_cms and
# peer_openssl_cms: RSA-3072 (twice: rsa3072-pkcs1 and rsa3072-oaep, the
# suffix choosing the key transport), P-256 and X25519 made by the openssl
# command-line tool (X25519 cannot sign: an Ed25519 CA issues it), and the
# RFC 9935 ML-KEM-768 sample certificate.
#
# usage: cms-certs.sh DIR [VECTORS_DIR]   (default /work/shared/vectors)
set -eu
dir=${1:?usage: cms-certs.sh DIR [VECTORS_DIR]}
vectors=${2:-/work/shared/vectors}
mkdir -p "$dir"
q() { "$@" >/dev/null 2>&1; }
if [ ! -s "$dir/rsa3072.crt" ]; then
  q openssl req -x509 -newkey rsa:3072 -nodes -keyout "$dir/rsa3072.key" \
    -out "$dir/rsa3072.crt" -subj /CN=bench-rsa3072 -days 30 \
    -addext keyUsage=keyEncipherment
fi
if [ ! -s "$dir/p256.crt" ]; then
  q openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -keyout "$dir/p256.key" -out "$dir/p256.crt" -subj /CN=bench-p256 -days 30 \
    -addext keyUsage=keyAgreement
fi
if [ ! -s "$dir/x25519.crt" ]; then
  q openssl genpkey -algorithm ED25519 -out "$dir/ca.key"
  q openssl req -x509 -new -key "$dir/ca.key" -subj /CN=bench-ca -days 30 -out "$dir/ca.crt"
  q openssl genpkey -algorithm X25519 -out "$dir/x25519.key"
  q openssl pkey -in "$dir/x25519.key" -pubout -out "$dir/x25519.pub"
  q openssl x509 -new -subj /CN=bench-x25519 -force_pubkey "$dir/x25519.pub" \
    -CA "$dir/ca.crt" -CAkey "$dir/ca.key" -days 30 -out "$dir/x25519.crt"
fi
echo "rsa3072-pkcs1=$dir/rsa3072.crt"
echo "rsa3072-oaep=$dir/rsa3072.crt"
echo "p256=$dir/p256.crt"
echo "x25519=$dir/x25519.crt"
echo "mlkem768=$vectors/rfc9935-kyber-certificates/ML-KEM-768.crt"
