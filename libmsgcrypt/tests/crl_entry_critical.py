#!/usr/bin/env python3
"""crl_entry_critical.py IN.crl KEY OUT.crl: writes OUT.crl, a copy of the
PEM CRL IN.crl whose first revoked entry's first extension is marked
critical, signed again with KEY (the issuer's private key, through the
openssl command-line tool, SHA-256).

`openssl ca` writes CRL entry extensions (reasonCode, invalidityDate, hold
instructions) but never a critical one; RFC 5280 5.3 has a reader that
meets a critical entry extension it does not process refuse the CRL, and
test_smime_certs.c checks that libmsgcrypt does. The DER is edited here as
a tree (tag, bytes or children) and written back with fresh lengths.
"""
import base64
import re
import subprocess
import sys


def parse(b):
    """The DER elements of b, each (tag, content bytes, children or None)."""
    out, i = [], 0
    while i < len(b):
        tag, n = b[i], b[i + 1]
        i += 2
        if n & 0x80:
            k = n & 0x7f
            n = int.from_bytes(b[i:i + k], 'big')
            i += k
        body = b[i:i + n]
        i += n
        out.append([tag, body, parse(body) if tag & 0x20 else None])
    return out


def encode(e):
    tag, body, kids = e
    if kids is not None:
        body = b''.join(encode(k) for k in kids)
    n = len(body)
    if n < 0x80:
        head = bytes([n])
    else:
        nb = n.to_bytes((n.bit_length() + 7) // 8, 'big')
        head = bytes([0x80 | len(nb)]) + nb
    return bytes([tag]) + head + body


def main():
    src, key, dst = sys.argv[1:4]
    pem = open(src).read()
    der = base64.b64decode(re.search(r'-----BEGIN X509 CRL-----(.*?)-----END', pem, re.S).group(1))
    crl = parse(der)[0]
    tbs, sig_alg = crl[2][0], crl[2][1]
    # tbsCertList: version, signature, issuer, thisUpdate, nextUpdate,
    # revokedCertificates (the third SEQUENCE), crlExtensions.
    revoked = [k for k in tbs[2] if k[0] == 0x30][2]
    entry = revoked[2][0]
    assert len(entry[2]) == 3, 'the first revoked entry has no extensions'
    ext = entry[2][2][2][0]  # SEQUENCE { OID, [BOOLEAN], OCTET STRING }
    assert ext[2][1][0] == 0x04, 'the extension is already marked critical'
    ext[2].insert(1, [0x01, b'\xff', None])
    tbs_der = encode(tbs)
    sig = subprocess.run(['openssl', 'dgst', '-sha256', '-sign', key], input=tbs_der,
                         capture_output=True, check=True).stdout
    out = encode([0x30, b'', [tbs, sig_alg, [0x03, b'\x00' + sig, None]]])
    b64 = base64.b64encode(out).decode()
    with open(dst, 'w') as f:
        f.write('-----BEGIN X509 CRL-----\n')
        for i in range(0, len(b64), 64):
            f.write(b64[i:i + 64] + '\n')
        f.write('-----END X509 CRL-----\n')


main()
