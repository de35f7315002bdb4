"""pgp_decrypt_ref.py: an independent OpenPGP decryptor for the tests of
libmsgcrypt's encryption engine, written from RFC 9580 and RFC 9980 over
Python's `cryptography` package (OpenSSL inside): ASCII armor, packets with
partial body lengths, PKESK v3 and v6 for X25519 (25), X448 (26),
ML-KEM-768+X25519 (35) and ML-KEM-1024+X448 (36), and SEIPD v1 (AES-CFB
with MDC) and v2 (AES-OCB, AES-GCM in chunks). It shares no code with the
C library; every check that a reader must make raises RefError.

Used as a module (decrypt(), SecretKey, load_secret_subkeys()) and as a
command: `pgp_decrypt_ref.py SECRET_KEY.asc MESSAGE` prints the literal data
to stdout.
"""

import base64
import hashlib
import hmac
import struct
import sys

from cryptography.hazmat.primitives import hashes, keywrap
from cryptography.hazmat.primitives.asymmetric import mlkem, x448, x25519
from cryptography.hazmat.decrepit.ciphers.modes import CFB
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms
from cryptography.hazmat.primitives.ciphers.aead import AESGCM, AESOCB3
from cryptography.hazmat.primitives.kdf.hkdf import HKDF


class RefError(Exception):
    pass


def unarmor(data):
    """Returns the binary content of the first armored block of `data`, or
    `data` itself when it is not armored."""
    if not data.lstrip().startswith(b"-----BEGIN PGP "):
        return data
    lines = data.decode("ascii").splitlines()
    i = next(n for n, l in enumerate(lines) if l.startswith("-----BEGIN PGP "))
    i += 1
    while i < len(lines) and lines[i].strip() and ":" in lines[i]:
        i += 1
    body, crc = [], None
    for l in lines[i:]:
        if l.startswith("-----END PGP "):
            break
        if l.startswith("="):
            crc = l[1:]
            continue
        body.append(l.strip())
    raw = base64.b64decode("".join(body), validate=True)
    if crc is not None:
        c = 0xB704CE
        for b in raw:
            c ^= b << 16
            for _ in range(8):
                c <<= 1
                if c & 0x1000000:
                    c ^= 0x1864CFB
        if base64.b64decode(crc) != (c & 0xFFFFFF).to_bytes(3, "big"):
            raise RefError("armor CRC mismatch")
    return raw


def packets(data):
    """Yields (tag, body) for each packet of `data`."""
    pos = 0
    while pos < len(data):
        h = data[pos]
        pos += 1
        if not h & 0x80:
            raise RefError("not a packet header")
        if h & 0x40:
            tag, pieces = h & 0x3F, []
            while True:
                l0 = data[pos]
                pos += 1
                partial = False
                if l0 < 192:
                    n = l0
                elif l0 < 224:
                    n = ((l0 - 192) << 8) + data[pos] + 192
                    pos += 1
                elif l0 == 255:
                    n = struct.unpack(">I", data[pos:pos + 4])[0]
                    pos += 4
                else:
                    n = 1 << (l0 & 31)
                    partial = True
                    if not pieces and n < 512:
                        raise RefError("first partial piece below 512 octets")
                if pos + n > len(data):
                    raise RefError("truncated packet")
                pieces.append(data[pos:pos + n])
                pos += n
                if not partial:
                    break
            body = b"".join(pieces)
        else:
            tag = (h >> 2) & 15
            lt = h & 3
            if lt == 3:
                raise RefError("indeterminate old-format length")
            sz = 1 << lt
            n = int.from_bytes(data[pos:pos + sz], "big")
            pos += sz
            body = data[pos:pos + n]
            pos += n
        yield tag, body


ECC_LEN = {25: 32, 26: 56, 35: 32, 36: 56}
MLKEM_CT_LEN = {35: 1088, 36: 1568}
SYM_KEY_LEN = {7: 16, 8: 24, 9: 32}


class SecretKey:
    """One decryption subkey: version, algorithm, fingerprint, the ECC key
    pair and, for 35 and 36, the ML-KEM private key."""

    def __init__(self, version, algo, fpr, ecc_secret, ecc_public, mlkem_key=None):
        self.version, self.algo, self.fpr = version, algo, fpr
        self.ecc_secret, self.ecc_public, self.mlkem = ecc_secret, ecc_public, mlkem_key

    @property
    def key_id(self):
        return self.fpr[-8:] if self.version == 4 else self.fpr[:8]

    def ecdh(self, ephemeral):
        if ECC_LEN[self.algo] == 32:
            k = x25519.X25519PrivateKey.from_private_bytes(self.ecc_secret)
            return k.exchange(x25519.X25519PublicKey.from_public_bytes(ephemeral))
        k = x448.X448PrivateKey.from_private_bytes(self.ecc_secret)
        return k.exchange(x448.X448PublicKey.from_public_bytes(ephemeral))


def fingerprint(version, public_body):
    if version == 4:
        return hashlib.sha1(b"\x99" + len(public_body).to_bytes(2, "big") + public_body).digest()
    return hashlib.sha256(b"\x9b" + len(public_body).to_bytes(4, "big") + public_body).digest()


def load_secret_subkeys(data):
    """Reads every unencrypted secret (sub)key of algorithm 25, 26, 35 or 36
    from a transferable secret key."""
    keys = []
    for tag, b in packets(unarmor(data)):
        if tag not in (5, 7) or b[5] not in ECC_LEN:
            continue
        version, algo = b[0], b[5]
        pos = 6 + (4 if version == 6 else 0)
        n = ECC_LEN[algo]
        pq_len = {35: 1184, 36: 1568}.get(algo, 0)
        ecc_pub = b[pos:pos + n]
        pub_end = pos + n + pq_len
        if b[pub_end] != 0:
            raise RefError("encrypted secret key")
        sec = b[pub_end + 1:]
        mk = None
        if pq_len:
            cls = mlkem.MLKEM768PrivateKey if algo == 35 else mlkem.MLKEM1024PrivateKey
            mk = cls.from_seed_bytes(sec[n:n + 64])
            if mk.public_key().public_bytes_raw() != b[pos + n:pub_end]:
                raise RefError("ML-KEM seed does not match the public key")
        keys.append(SecretKey(version, algo, fingerprint(version, b[:pub_end]), sec[:n], ecc_pub, mk))
    return keys


def kem_combine(mlkem_ss, ecdh_ss, ecdh_ct, ecdh_pub, algo):
    dom = b"OpenPGPCompositeKDFv1"
    return hashlib.sha3_256(mlkem_ss + ecdh_ss + ecdh_ct + ecdh_pub + bytes([algo]) + dom +
                            bytes([len(dom)])).digest()


def decrypt_pkesk(key, body, trace=None):
    """Returns (symmetric algorithm or None, session key), or None when the
    packet is for another key."""
    v = body[0]
    if v == 3:
        if body[1:9] != key.key_id and body[1:9] != bytes(8):
            return None
        pos = 9
    elif v == 6:
        n = body[1]
        if n != 0 and body[3:2 + n] != key.fpr:
            return None
        if n != 0 and body[2] != key.version:
            raise RefError("key version mismatch")
        pos = 2 + n
    else:
        raise RefError("PKESK version %d" % v)
    algo = body[pos]
    pos += 1
    if algo != key.algo:
        raise RefError("algorithm mismatch")
    n = ECC_LEN[algo]
    eph = body[pos:pos + n]
    pos += n
    ecdh_ss = key.ecdh(eph)
    if algo in (35, 36):
        ct = body[pos:pos + MLKEM_CT_LEN[algo]]
        pos += MLKEM_CT_LEN[algo]
        mlkem_ss = key.mlkem.decapsulate(ct)
        kek = kem_combine(mlkem_ss, ecdh_ss, eph, key.ecc_public, algo)
        if trace is not None:
            trace.update(mlkem_ss=mlkem_ss, ecdh_ss=ecdh_ss, kek=kek)
    else:
        ikm = eph + key.ecc_public + ecdh_ss
        if algo == 25:
            kek = HKDF(hashes.SHA256(), 16, None, b"OpenPGP X25519").derive(ikm)
        else:
            kek = HKDF(hashes.SHA512(), 32, None, b"OpenPGP X448").derive(ikm)
    size = body[pos]
    pos += 1
    if pos + size != len(body):
        raise RefError("PKESK length mismatch")
    sym = None
    if v == 3:
        sym = body[pos]
        pos += 1
        if sym not in SYM_KEY_LEN:
            raise RefError("cipher %d in a v3 PKESK" % sym)
    sk = keywrap.aes_key_unwrap(kek, body[pos:])
    if sym is not None and len(sk) != SYM_KEY_LEN[sym]:
        raise RefError("session key length does not match the cipher")
    return sym, sk


def decrypt_seipd(body, sym, sk):
    """Returns (plaintext packets, description dict)."""
    if body[0] == 1:
        if sym is None:
            raise RefError("SEIPDv1 after a v6 PKESK")
        dec = Cipher(algorithms.AES(sk), CFB(bytes(16))).decryptor()
        pt = dec.update(body[1:]) + dec.finalize()
        if pt[14:16] != pt[16:18]:
            raise RefError("quick check failed")
        if pt[-22:-20] != b"\xd3\x14" or not hmac.compare_digest(
                hashlib.sha1(pt[:-20]).digest(), pt[-20:]):
            raise RefError("MDC mismatch")
        return pt[18:-22], {"seipd": 1, "sym": sym}
    if body[0] != 2:
        raise RefError("SEIPD version %d" % body[0])
    if sym is not None:
        raise RefError("SEIPDv2 after a v3 PKESK")
    sym, aead, c, salt = body[1], body[2], body[3], body[4:36]
    if len(sk) != SYM_KEY_LEN[sym] or c > 16:
        raise RefError("bad SEIPDv2 header")
    nonce_len = {2: 15, 3: 12}[aead]
    info = bytes([0xD2, 2, sym, aead, c])
    okm = HKDF(hashes.SHA256(), len(sk) + nonce_len - 8, salt, info).derive(sk)
    key, iv = okm[:len(sk)], okm[len(sk):]
    cipher = AESOCB3(key) if aead == 2 else AESGCM(key)
    data, final = body[36:-16], body[-16:]
    chunk = 1 << (c + 6)
    out, idx = [], 0
    for pos in range(0, len(data), chunk + 16):
        out.append(cipher.decrypt(iv + idx.to_bytes(8, "big"), data[pos:pos + chunk + 16], info))
        idx += 1
    pt = b"".join(out)
    cipher.decrypt(iv + idx.to_bytes(8, "big"), final, info + len(pt).to_bytes(8, "big"))
    return pt, {"seipd": 2, "sym": sym, "aead": aead, "chunk_octet": c}


def literal_data(pt):
    for tag, body in packets(pt):
        if tag == 11:
            n = body[1]
            return body[6 + n:]
    raise RefError("no literal data packet")


def decrypt(keys, message, trace=None):
    """Decrypts `message` (binary or armored) with the first of `keys` that
    a PKESK is addressed to; returns (literal data, description)."""
    found = None
    pkts = list(packets(unarmor(message)))
    for i, (tag, body) in enumerate(pkts):
        if tag == 1 and found is None:
            for k in keys:
                r = decrypt_pkesk(k, body, trace)
                if r is not None:
                    found = r
                    desc_pkesk = body[0]
                    break
        elif tag == 18:
            if found is None:
                raise RefError("no PKESK for our keys")
            if i != len(pkts) - 1:
                raise RefError("data after the SEIPD packet")
            pt, desc = decrypt_seipd(body, *found)
            desc["pkesk"] = desc_pkesk
            return literal_data(pt), desc
        elif tag not in (1, 3):
            raise RefError("unexpected packet %d" % tag)
    raise RefError("no SEIPD packet")


if __name__ == "__main__":
    keys = load_secret_subkeys(open(sys.argv[1], "rb").read())
    data, _ = decrypt(keys, open(sys.argv[2], "rb").read())
    sys.stdout.buffer.write(data)
