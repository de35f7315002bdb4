"""An independent CMS decryptor (RFC 5652, 5083, 5084, 8017/4055, 9629, 9936)
for libmsgcrypt's tests, written from the RFCs over Python's cryptography
package: it reads a DER ContentInfo of type EnvelopedData or
AuthEnvelopedData, finds the RecipientInfo addressed to the given key (by
issuer and serial number or subject key identifier), recovers the
content-encryption key (RSA PKCS#1 v1.5 or OAEP key transport; ECDH on
P-256/384/521 with the X9.63 KDF and X25519/X448 with HKDF key agreement
(RFC 5753, RFC 8418); ML-KEM-768 and -1024 KEMRecipientInfo with
HKDF-SHA256; AES key wrap throughout) and decrypts
AES-CBC or AES-GCM content. It shares no code with the C engine; it checks
structure strictly (definite minimal lengths, versions) and raises
CmsError on anything it does not expect.

Usage as a program: cms_decrypt_ref.py CERT.pem KEY.pem < msg.der > plain
"""
import sys

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, x448, x25519
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.kdf.x963kdf import X963KDF
from cryptography.hazmat.primitives.keywrap import aes_key_unwrap


class CmsError(Exception):
    pass


def oid(dotted):
    arcs = [int(a) for a in dotted.split('.')]
    out = bytearray([40 * arcs[0] + arcs[1]])
    for a in arcs[2:]:
        chunk = [a & 0x7f]
        a >>= 7
        while a:
            chunk.append(0x80 | (a & 0x7f))
            a >>= 7
        out += bytes(reversed(chunk))
    return bytes(out)


OID_DATA = oid('1.2.840.113549.1.7.1')
OID_ENVELOPED = oid('1.2.840.113549.1.7.3')
OID_AUTH_ENVELOPED = oid('1.2.840.113549.1.9.16.1.23')
OID_RSA = oid('1.2.840.113549.1.1.1')
OID_OAEP = oid('1.2.840.113549.1.1.7')
OID_MGF1 = oid('1.2.840.113549.1.1.8')
OID_SHA1 = oid('1.3.14.3.2.26')
OID_SHA256 = oid('2.16.840.1.101.3.4.2.1')
OID_ORI_KEM = oid('1.2.840.113549.1.9.16.13.3')
OID_HKDF_SHA256 = oid('1.2.840.113549.1.9.16.3.28')
OID_EC = oid('1.2.840.10045.2.1')
OID_X25519 = oid('1.3.101.110')
OID_X448 = oid('1.3.101.111')
CURVES = {oid('1.2.840.10045.3.1.7'): ec.SECP256R1(), oid('1.3.132.0.34'): ec.SECP384R1(),
          oid('1.3.132.0.35'): ec.SECP521R1()}
KA_X963 = {oid('1.3.132.1.11.%d' % i): h for i, h in
           ((1, hashes.SHA256), (2, hashes.SHA384), (3, hashes.SHA512))}
KA_HKDF = {oid('1.2.840.113549.1.9.16.3.%d' % i): h for i, h in
           ((19, hashes.SHA256), (20, hashes.SHA384), (21, hashes.SHA512))}
OID_MLKEM = {oid('2.16.840.1.101.3.4.4.%d' % i): i for i in (1, 2, 3)}
WRAP = {oid('2.16.840.1.101.3.4.1.5'): 16, oid('2.16.840.1.101.3.4.1.25'): 24,
        oid('2.16.840.1.101.3.4.1.45'): 32}
CBC = {oid('2.16.840.1.101.3.4.1.2'): 16, oid('2.16.840.1.101.3.4.1.42'): 32}
GCM = {oid('2.16.840.1.101.3.4.1.6'): 16, oid('2.16.840.1.101.3.4.1.46'): 32}


def tlv(buf, pos=0):
    """Reads one DER element at pos: (tag, content, whole, next_pos)."""
    if pos + 2 > len(buf):
        raise CmsError('truncated element')
    tag, n = buf[pos], buf[pos + 1]
    if tag & 0x1f == 0x1f:
        raise CmsError('high tag number')
    p = pos + 2
    if n & 0x80:
        k = n & 0x7f
        if k == 0 or k > 4 or p + k > len(buf) or buf[p] == 0:
            raise CmsError('bad length')
        n = int.from_bytes(buf[p:p + k], 'big')
        if n < 0x80:
            raise CmsError('non-minimal length')
        p += k
    if p + n > len(buf):
        raise CmsError('length past the end')
    return tag, buf[p:p + n], buf[pos:p + n], p + n


def seq(buf):
    """Splits the contents of a constructed element into its elements."""
    out, pos = [], 0
    while pos < len(buf):
        tag, content, whole, pos = tlv(buf, pos)
        out.append((tag, content, whole))
    return out


def expect(el, tag):
    if el[0] != tag:
        raise CmsError('tag %#x where %#x was expected' % (el[0], tag))
    return el[1]


def small_int(el):
    v = expect(el, 0x02)
    if len(v) != 1:
        raise CmsError('version too large')
    return v[0]


class Key:
    """A recipient: certificate (for rid) and private key."""

    def __init__(self, cert_pem, key_pem):
        self.cert = x509.load_pem_x509_certificate(cert_pem)
        self.key = serialization.load_pem_private_key(key_pem, None)
        tbs = seq(tlv(self.cert.tbs_certificate_bytes)[1])
        i = 1 if tbs[0][0] == 0xa0 else 0
        self.serial = tbs[i][1]
        self.issuer = tbs[i + 2][2]
        try:
            self.ski = self.cert.extensions.get_extension_for_class(
                x509.SubjectKeyIdentifier).value.digest
        except x509.ExtensionNotFound:
            self.ski = None

    def matches(self, rid):
        if rid[0] == 0x80:
            return self.ski is not None and rid[1] == self.ski
        ias = seq(expect(rid, 0x30))
        return len(ias) == 2 and ias[0][2] == self.issuer and expect(ias[1], 0x02) == self.serial


def _hash(alg_el):
    a = seq(expect(alg_el, 0x30))
    o = expect(a[0], 0x06)
    if len(a) == 2 and a[1][2] != b'\x05\x00':
        raise CmsError('hash parameters')
    if o == OID_SHA256:
        return hashes.SHA256()
    if o == OID_SHA1:
        return hashes.SHA1()
    raise CmsError('hash')


def ktri_cek(ri, key):
    f = seq(ri)
    version = small_int(f[0])
    if version != (2 if f[1][0] == 0x80 else 0):
        raise CmsError('KTRI version %d' % version)
    if not key.matches(f[1]):
        return None
    alg = seq(expect(f[2], 0x30))
    ek = expect(f[3], 0x04)
    a = expect(alg[0], 0x06)
    if a == OID_RSA:
        if len(alg) != 2 or alg[1][2] != b'\x05\x00':
            raise CmsError('rsaEncryption parameters')
        return key.key.decrypt(ek, padding.PKCS1v15())
    if a == OID_OAEP:
        h, mgf_h = hashes.SHA1(), hashes.SHA1()
        for el in seq(expect(alg[1], 0x30)):
            if el[0] == 0xa0:
                h = _hash(tlv(el[1])[:2])
            elif el[0] == 0xa1:
                m = seq(expect(tlv(el[1])[:2], 0x30))
                if expect(m[0], 0x06) != OID_MGF1:
                    raise CmsError('MGF')
                mgf_h = _hash(m[1])
            else:
                raise CmsError('OAEP label')
        return key.key.decrypt(ek, padding.OAEP(padding.MGF1(mgf_h), h, None))
    raise CmsError('key transport algorithm')


def kari_cek(ri, key):
    f = seq(ri)
    if small_int(f[0]) != 3:
        raise CmsError('KARI version')
    okey = seq(expect(tlv(expect(f[1], 0xa0))[:2], 0xa1))
    alg = seq(expect(okey[0], 0x30))
    bits = expect(okey[1], 0x03)
    if bits[:1] != b'\x00':
        raise CmsError('BIT STRING padding')
    eph = bits[1:]
    rest = f[2:]
    ukm = None
    if rest[0][0] == 0xa1:
        ukm = expect(tlv(rest[0][1])[:2], 0x04)
        rest = rest[1:]
    kea = seq(expect(rest[0], 0x30))
    reks = seq(expect(rest[1], 0x30))
    if len(rest) != 2:
        raise CmsError('KARI fields')
    ek = None
    for rek in reks:
        rid, enc = seq(expect(rek, 0x30))
        if rid[0] == 0xa0:
            ok = key.ski is not None and expect(seq(rid[1])[0], 0x04) == key.ski
        else:
            ok = key.matches(rid)
        if ok:
            ek = expect(enc, 0x04)
    if ek is None:
        return None
    a = expect(alg[0], 0x06)
    if a == OID_EC:
        if len(alg) == 2 and (alg[1][2] == b'\x05\x00' or alg[1][0] != 0x06):
            raise CmsError('id-ecPublicKey parameters (neither absent nor a named curve)')
        curve = key.key.curve
        if len(alg) == 2 and type(CURVES.get(alg[1][1])) is not type(curve):
            raise CmsError('originator curve')
        z = key.key.exchange(ec.ECDH(), ec.EllipticCurvePublicKey.from_encoded_point(curve, eph))
    elif a in (OID_X25519, OID_X448):
        if len(alg) != 1:
            raise CmsError('X25519/X448 parameters must be absent')
        cls = x25519.X25519PublicKey if a == OID_X25519 else x448.X448PublicKey
        z = key.key.exchange(cls.from_public_bytes(eph))
    else:
        raise CmsError('originator key algorithm')
    ka = expect(kea[0], 0x06)
    wrap_el = kea[1]
    wrap = seq(expect(wrap_el, 0x30))
    kek_len = WRAP.get(expect(wrap[0], 0x06))
    if kek_len is None or len(wrap) != 1:
        raise CmsError('wrap algorithm')
    # ECC-CMS-SharedInfo ::= SEQUENCE { keyInfo, entityUInfo [0] OPTIONAL,
    # suppPubInfo [2] } with the key length in bits (RFC 5753 §7.2).
    body = wrap_el[2]
    if ukm is not None:
        body += b'\xa0' + der_len(len(ukm) + 2) + b'\x04' + der_len(len(ukm)) + ukm
    body += b'\xa2\x06\x04\x04' + (kek_len * 8).to_bytes(4, 'big')
    info = b'\x30' + der_len(len(body)) + body
    if ka in KA_X963 and a == OID_EC:
        kek = X963KDF(KA_X963[ka](), kek_len, info).derive(z)
    elif ka in KA_HKDF and a != OID_EC:
        kek = HKDF(KA_HKDF[ka](), kek_len, ukm, info).derive(z)
    else:
        raise CmsError('key agreement scheme')
    return aes_key_unwrap(kek, ek)


def kemri_cek(ori, key):
    f = seq(ori)
    if expect(f[0], 0x06) != OID_ORI_KEM:
        return None
    k = seq(expect(f[1], 0x30))
    if small_int(k[0]) != 0:
        raise CmsError('KEMRI version')
    if not key.matches(k[1]):
        return None
    kem = seq(expect(k[2], 0x30))
    if len(kem) != 1 or expect(kem[0], 0x06) not in OID_MLKEM:
        raise CmsError('KEM algorithm')
    ct = expect(k[3], 0x04)
    kdf = seq(expect(k[4], 0x30))
    if len(kdf) != 1 or expect(kdf[0], 0x06) != OID_HKDF_SHA256:
        raise CmsError('KDF')
    kek_len_el = k[5]
    kek_len = int.from_bytes(expect(kek_len_el, 0x02), 'big')
    rest = k[6:]
    ukm = b''
    if rest and rest[0][0] == 0xa0:
        ukm = rest[0][2]
        rest = rest[1:]
    wrap_el, ek_el = rest
    wrap = seq(expect(wrap_el, 0x30))
    if len(wrap) != 1 or WRAP.get(expect(wrap[0], 0x06)) != kek_len:
        raise CmsError('wrap algorithm or kekLength')
    ss = key.key.decapsulate(ct)
    # CMSORIforKEMOtherInfo ::= SEQUENCE { wrap, kekLength, ukm [0] OPTIONAL }
    body = wrap_el[2] + kek_len_el[2] + ukm
    info = b'\x30' + der_len(len(body)) + body
    kek = HKDF(hashes.SHA256(), kek_len, b'', info).derive(ss)
    return aes_key_unwrap(kek, expect(ek_el, 0x04))


def der_len(n):
    if n < 0x80:
        return bytes([n])
    b = n.to_bytes((n.bit_length() + 7) // 8, 'big')
    return bytes([0x80 | len(b)]) + b


def decrypt(der, key):
    tag, ci, _, end = tlv(der)
    if tag != 0x30 or end != len(der):
        raise CmsError('not one ContentInfo')
    ci = seq(ci)
    ctype = expect(ci[0], 0x06)
    if ctype not in (OID_ENVELOPED, OID_AUTH_ENVELOPED):
        raise CmsError('content type')
    auth = ctype == OID_AUTH_ENVELOPED
    inner = seq(expect(ci[1], 0xa0))
    ed = seq(expect(inner[0], 0x30))
    version = small_int(ed[0])
    ris = seq(expect(ed[1], 0x31))
    wholes = [r[2] for r in ris]
    if wholes != sorted(wholes):
        raise CmsError('SET OF RecipientInfo not in DER order')
    cek = None
    any_ori = False
    for r in ris:
        if r[0] == 0x30:
            got = ktri_cek(r[1], key)
        elif r[0] == 0xa1:
            got = kari_cek(r[1], key)
        elif r[0] == 0xa4:
            any_ori = True
            got = kemri_cek(r[1], key)
        else:
            raise CmsError('RecipientInfo kind %#x' % r[0])
        cek = cek or got
    if auth:
        if version != 0:
            raise CmsError('AuthEnvelopedData version')
    else:
        want = 3 if any_ori else (0 if all(r[0] == 0x30 and r[1][2] == 0 for r in ris) else 2)
        if version != want:
            raise CmsError('EnvelopedData version %d, want %d' % (version, want))
    if cek is None:
        raise CmsError('no RecipientInfo for this key')
    eci = seq(expect(ed[2], 0x30))
    if expect(eci[0], 0x06) != OID_DATA:
        raise CmsError('inner content type')
    alg = seq(expect(eci[1], 0x30))
    ct = expect(eci[2], 0x80)
    a = expect(alg[0], 0x06)
    if not auth:
        if len(ed) != 3 or CBC.get(a) != len(cek):
            raise CmsError('content algorithm')
        iv = expect(alg[1], 0x04)
        d = Cipher(algorithms.AES(cek), modes.CBC(iv)).decryptor()
        pt = d.update(ct) + d.finalize()
        pad = pt[-1] if pt else 0
        if not 1 <= pad <= 16 or pt[-pad:] != bytes([pad]) * pad:
            raise CmsError('padding')
        return pt[:-pad]
    if len(ed) != 4 or GCM.get(a) != len(cek):
        raise CmsError('content algorithm or attributes')
    gp = seq(expect(alg[1], 0x30))
    nonce = expect(gp[0], 0x04)
    icv = 12
    if len(gp) == 2:
        icv = int.from_bytes(expect(gp[1], 0x02), 'big')
        if icv == 12:
            raise CmsError('DEFAULT value written out')
    mac = expect(ed[3], 0x04)
    if len(mac) != icv:
        raise CmsError('mac length')
    d = Cipher(algorithms.AES(cek), modes.GCM(nonce, mac, min_tag_length=12)).decryptor()
    return d.update(ct) + d.finalize()


if __name__ == '__main__':
    k = Key(open(sys.argv[1], 'rb').read(), open(sys.argv[2], 'rb').read())
    sys.stdout.buffer.write(decrypt(sys.stdin.buffer.read(), k))
