#!/bin/sh
# smime_certs_gen.sh DIR: builds the certificate hierarchies that
# test_smime_certs.c reads, with the openssl command-line tool (a separate
# process; OpenSSL is never linked into our programs). Every file is made
# fresh on each run, so the certificates are valid from the time of the run.
set -eu
D=$1
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$D"
cd "$D"
O="openssl"

key() { # key NAME ALG
  case $2 in
  rsa*) $O genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:${2#rsa} -out $1.key 2>/dev/null ;;
  p256) $O genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out $1.key ;;
  p384) $O genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-384 -out $1.key ;;
  p521) $O genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-521 -out $1.key ;;
  *) $O genpkey -algorithm $2 -out $1.key ;;
  esac
  $O pkey -in $1.key -pubout -out $1.pub
}

root() { # root NAME ALG SUBJECT [digest]
  key $1 $2
  $O req -x509 -new -key $1.key -subj "$3" -days 3650 -set_serial 1 ${4:-} -out $1.pem \
    -addext "basicConstraints=critical,CA:true" -addext "keyUsage=critical,keyCertSign,cRLSign"
}

# issue NAME ALG ISSUER SERIAL SUBJECT EXTENSIONS [openssl x509 options...]
issue() {
  n=$1 alg=$2 iss=$3 ser=$4 subj=$5 ext=$6
  shift 6
  [ -f $n.key ] || key $n $alg
  # The request is signed by a throwaway key and the subject's key is
  # forced in, so that X25519/X448 keys (which cannot sign) work the same.
  [ -f csrsigner.key ] || $O genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out csrsigner.key
  $O req -new -key csrsigner.key -subj "$subj" -out $n.csr
  printf '%b\n' "$ext" > $n.ext
  $O x509 -req -in $n.csr -force_pubkey $n.pub -CA $iss.pem -CAkey $iss.key -set_serial $ser \
    -days 365 -extfile $n.ext "$@" -out $n.pem 2>/dev/null
  $O x509 -in $n.pem -outform DER -out $n.der
}

CA_EXT='keyUsage=critical,keyCertSign,cRLSign\nbasicConstraints=critical,CA:true'
MAIL='extendedKeyUsage=emailProtection'

root root rsa2048 "/C=DE/O=Corvid Test/CN=Corvid Test Root"
issue int p256 root 0x10 "/O=Corvid Test/CN=Corvid Mail CA" "$CA_EXT,pathlen:0"
issue alice rsa3072 int 0x80ab01 "/CN=Alice Example/emailAddress=alice.legacy@example.org" \
  "keyUsage=critical,keyEncipherment,digitalSignature\n$MAIL\nsubjectAltName=email:alice@example.org"
issue bob p384 int 0x21 "/CN=Bob/O=Example, Inc." \
  "keyUsage=critical,keyAgreement\n$MAIL\nsubjectAltName=email:bob@example.org"
issue carol x25519 int 0x22 "/CN=Carol" "keyUsage=critical,keyAgreement\nsubjectAltName=email:carol@example.org"
issue dave x448 int 0x23 "/CN=Dave" "keyUsage=keyAgreement\nsubjectAltName=email:dave@example.org"
issue erin rsa2048 int 0x24 "/CN=Erin" "keyUsage=critical,digitalSignature\nsubjectAltName=email:erin@example.org"
issue frank rsa2048 int 0x25 "/CN=Frank" "extendedKeyUsage=serverAuth\nsubjectAltName=email:frank@example.org"
issue grace p521 root 0x26 "/CN=Grace" "keyUsage=keyAgreement\nsubjectAltName=email:grace@example.org" \
  -sha512
issue pss rsa2048 root 0x27 "/CN=Pss" "subjectAltName=email:pss@example.org" \
  -sha384 -sigopt rsa_padding_mode:pss -sigopt rsa_pss_saltlen:32
# A CA below int, which int's pathlen:0 forbids.
issue sub p256 int 0x28 "/CN=Sub CA" "$CA_EXT"
issue deep p256 sub 0x29 "/CN=Deep" "subjectAltName=email:deep@example.org"
# A CA with a critical extension we do not process.
issue ncca p256 root 0x2a "/CN=Constrained CA" "$CA_EXT\nnameConstraints=critical,permitted;email:example.org"
issue nc p256 ncca 0x2b "/CN=Nc" "subjectAltName=email:nc@example.org"
# alice is not a CA, yet issues.
cp alice.key alice_ca.key
issue notca p256 alice 0x2c "/CN=Notca" "subjectAltName=email:notca@example.org"
# Ed25519 and Ed448 issuers.
root edroot ed25519 "/CN=Ed25519 Root"
issue edleaf p256 edroot 0x30 "/CN=EdLeaf" "subjectAltName=email:ed@example.org"
root ed448root ed448 "/CN=Ed448 Root"
issue ed448leaf x448 ed448root 0x31 "/CN=Ed448Leaf" "subjectAltName=email:ed448@example.org"
# A root nobody trusts and its leaf.
root other p256 "/CN=Other Root"
issue mallory rsa2048 other 0x40 "/CN=Mallory" "subjectAltName=email:mallory@example.org"
# Self-signed end-entity certificate.
key self rsa2048
$O req -x509 -new -key self.key -subj "/CN=Self" -days 30 -set_serial 7 -out self.pem \
  -addext "subjectAltName=email:self@example.org"
# A SHA-1 signed leaf.
issue old rsa2048 root 0x41 "/CN=Old" "subjectAltName=email:old@example.org" -sha1

# CRLs: int revokes bob; root's CRL is empty.
cat > int.cnf <<EOC
[ca]
default_ca = d
[d]
database = int.idx
crlnumber = int.crlnum
certificate = int.pem
private_key = int.key
default_md = sha256
default_crl_days = 30
EOC
sed -e 's/int\./root./g' int.cnf > root.cnf
: > int.idx
: > root.idx
echo 01 > int.crlnum
echo 01 > root.crlnum
$O ca -config int.cnf -revoke bob.pem 2>/dev/null
$O ca -config int.cnf -gencrl -out int.crl 2>/dev/null
$O ca -config root.cnf -gencrl -out root.crl 2>/dev/null
# CRLs of int whose scope the reader must judge (issuingDistributionPoint:
# indirect, some reasons only, a name only) and one whose entry carries a
# reason code; bob is revoked in each.
cat int.cnf - > scope.cnf <<EOC
[indirect]
issuingDistributionPoint = critical, @idp_indirect
[idp_indirect]
fullname = URI:http://crl.example.org/int.crl
indirectCRL = TRUE
[some_reasons]
issuingDistributionPoint = critical, @idp_reasons
[idp_reasons]
fullname = URI:http://crl.example.org/int.crl
onlysomereasons = keyCompromise
[name_only]
issuingDistributionPoint = critical, @idp_name
[idp_name]
fullname = URI:http://crl.example.org/int.crl
EOC
sed -i -e 's/^database = int.idx/database = scope.idx/' -e 's/^crlnumber = int.crlnum/crlnumber = scope.crlnum/' scope.cnf
: > scope.idx
echo 01 > scope.crlnum
$O ca -config scope.cnf -revoke bob.pem -crl_reason keyCompromise 2>/dev/null
for s in indirect some_reasons name_only; do
  $O ca -config scope.cnf -gencrl -crlexts $s -out int_$s.crl 2>/dev/null
done
$O ca -config scope.cnf -gencrl -out int_reason.crl 2>/dev/null
# The same CRL with its entry's reasonCode marked critical (openssl ca never
# writes one), signed again by int; openssl must still find it signed.
python3 "$HERE/crl_entry_critical.py" int_reason.crl int.key int_critical_entry.crl
# (openssl crl exits 0 either way; it says which.)
$O crl -in int_critical_entry.crl -CAfile int.pem -noout 2>&1 | grep -qx "verify OK"

# Bundles: PKCS#7 in PEM and DER, and a PEM chain.
$O crl2pkcs7 -nocrl -certfile int.pem -certfile alice.pem -out bundle.p7b
$O crl2pkcs7 -nocrl -certfile int.pem -certfile alice.pem -outform DER -out bundle.p7c
cat alice.pem int.pem > chain.pem
cat int.pem sub.pem > chain_sub.pem
mkdir -p anchors
cp root.pem anchors/root.pem
cp edroot.pem anchors/edroot.crt
cp ed448root.pem anchors/ed448root.pem
# A hash-named link to the same root, as `trust extract` writes them.
ln -sf root.pem anchors/$($O x509 -in root.pem -noout -subject_hash).0
# Reference values the test compares with.
for c in alice bob carol dave int root; do
  $O x509 -in $c.pem -noout -fingerprint -sha256 | sed 's/.*=//' > $c.fpr
  $O x509 -in $c.pem -noout -fingerprint -sha1 | sed 's/.*=//' > $c.fpr1
  $O x509 -in $c.pem -noout -subject -nameopt RFC2253 | sed 's/^subject=//' > $c.subject
  $O x509 -in $c.pem -noout -serial | sed 's/^serial=//' > $c.serial
done
echo done > ok
