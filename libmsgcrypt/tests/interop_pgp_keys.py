#!/usr/bin/env python3
"""interop_pgp_keys.py: `msgcrypt describe` on OpenPGP keys made by real
tools during the test: GnuPG 2.2 (RSA 2048/3072/4096, NIST P-256/384/521
ECDSA+ECDH, legacy Ed25519/Curve25519; expired, soon-expiring, revoked and
sign-only keys; DSA/Elgamal and Brainpool, which are parsed and reported
unusable), Sequoia sq 0.27 (cv25519, rsa3k), RNP 0.16, OpenPGP.js 6 (v4 and v6
Ed25519/X25519, Ed448/X448, NIST) and Proton's OpenPGP.js (RFC 9980). Each key's fingerprint, user
ID, description and warnings are checked against what the generating tool
says, and tampered, truncated and secret inputs must fail with exit status 1,
nothing on stdout and a reason on stderr. TAP on stdout.

usage: interop_pgp_keys.py MSGCRYPT VECTORS_DIR
"""
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "tests", "scripts"))
from corvid_tap import Tap  # noqa: E402

TOOL = sys.argv[1]
VECTORS = sys.argv[2]
tap = Tap()


def check(name, cond, detail=""):
    # str(): a failure shows its detail even when that is an empty bytes.
    return tap.check(cond, name, str(detail))


def run(args, **kw):
    return subprocess.run(args, capture_output=True, timeout=120, **kw)


def describe(path, *extra, now=None):
    args = [TOOL, "describe", path, *extra]
    if now is not None:
        args += ["--now", str(now)]
    return run(args)


def describe_json(path, *extra, now=None):
    r = describe(path, "--json", *extra, now=now)
    if r.returncode != 0:
        return None, r
    return json.loads(r.stdout)["certificates"], r


def codes(cert):
    return sorted(w["code"] for w in cert["warnings"])


def packets(data):
    """Yield (start, body_start, end, tag) for every packet of `data`."""
    i = 0
    while i < len(data):
        start, b = i, data[i]
        if b & 0x40:
            tag = b & 0x3F
            l0 = data[i + 1]
            if l0 < 192:
                n, i = l0, i + 2
            elif l0 < 224:
                n, i = ((l0 - 192) << 8) + data[i + 2] + 192, i + 3
            else:
                n, i = int.from_bytes(data[i + 2:i + 6], "big"), i + 6
        else:
            tag, lt = (b >> 2) & 0x0F, b & 3
            size = [1, 2, 4][lt]
            n, i = int.from_bytes(data[i + 1:i + 1 + size], "big"), i + 1 + size
        yield start, i, i + n, tag
        i += n


class Gpg:
    def __init__(self, home):
        self.home = home
        os.makedirs(home, mode=0o700)

    def __call__(self, *args, faked=None):
        cmd = ["gpg", "--homedir", self.home, "--batch", "--pinentry-mode", "loopback",
               "--passphrase", ""]
        if faked:
            cmd += ["--faked-system-time", faked]
        return run(cmd + list(args))

    def gen(self, uid, algo, usage, expire, faked=None):
        r = self("--quick-gen-key", uid, algo, usage, expire, faked=faked)
        assert r.returncode == 0, r.stderr.decode()
        return self.fpr(uid)

    def fpr(self, uid):
        out = self("--with-colons", "--list-keys", uid).stdout.decode()
        return [line.split(":")[9] for line in out.splitlines() if line.startswith("fpr:")]

    def export(self, uid, path, armor=True):
        r = self(*(["--armor"] if armor else []), "--export", uid)
        with open(path, "wb") as f:
            f.write(r.stdout)
        return path

    def stop(self):
        run(["gpgconf", "--homedir", self.home, "--kill", "gpg-agent"])


def main():
    tmp = tempfile.mkdtemp(prefix="interop_pgp_keys.")
    try:
        tests(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return tap.done()


def tests(tmp):
    gpg = Gpg(os.path.join(tmp, "gnupg"))
    now = int(time.time())

    # Classical keys of every kind GnuPG 2.2 makes: primary + encryption
    # subkey.
    kinds = [
        ("rsa2048", "rsa2048", "rsa2048", "OpenPGP v4: RSA-2048 (encryption subkey RSA-2048)",
         ["rsa-short"]),
        ("rsa3072", "rsa3072", "rsa3072", "OpenPGP v4: RSA-3072 (encryption subkey RSA-3072)", []),
        ("rsa4096", "rsa4096", "rsa4096", "OpenPGP v4: RSA-4096 (encryption subkey RSA-4096)", []),
        ("p256", "nistp256", "nistp256",
         "OpenPGP v4: ECDSA P-256 (encryption subkey ECDH P-256)", []),
        ("p384", "nistp384", "nistp384",
         "OpenPGP v4: ECDSA P-384 (encryption subkey ECDH P-384)", []),
        ("p521", "nistp521", "nistp521",
         "OpenPGP v4: ECDSA P-521 (encryption subkey ECDH P-521)", []),
        ("25519", "ed25519", "cv25519",
         "OpenPGP v4: EdDSALegacy Ed25519 (encryption subkey ECDH Curve25519Legacy)", []),
    ]
    # Each kind is generated in its own GnuPG home, all at once: RSA key
    # generation dominates the run time.
    def make(kind):
        name, prim, sub = kind[:3]
        home = Gpg(os.path.join(tmp, "gnupg-" + name))
        uid = "Test %s <%s@example.org>" % (name, name)
        fpr = home.gen(uid, prim, "sign", "2y")[0]
        r = home("--quick-add-key", fpr, sub, "encr", "2y")
        return home, uid, fpr, r

    with concurrent.futures.ThreadPoolExecutor(max_workers=len(kinds)) as pool:
        made = list(pool.map(make, kinds))
    all_fprs = []
    for (name, prim, sub, want, warns), (home, uid, fpr, r) in zip(kinds, made):
        check("gpg %s: add encryption subkey" % name, r.returncode == 0, r.stderr)
        fprs = home.fpr(uid)
        all_fprs.append(fpr)
        home.export(uid, os.path.join(tmp, name + ".gpg"), False)
        r = gpg("--import", os.path.join(tmp, name + ".gpg"))
        check("gpg %s: import into one keyring" % name, r.returncode == 0, r.stderr)
        home.stop()
        for armor in (True, False):
            path = gpg.export(uid, os.path.join(tmp, "%s.%s" % (name, "asc" if armor else "gpg")),
                              armor)
            certs, r = describe_json(path, "--address", "%s@EXAMPLE.org" % name)
            form = "armored" if armor else "binary"
            check("gpg %s %s: describe succeeds" % (name, form), certs is not None, r.stderr)
            if certs is None:
                continue
            c = certs[0]
            check("gpg %s %s: description" % (name, form), c["description"] == want,
                  c["description"])
            check("gpg %s %s: fingerprints as gpg prints them" % (name, form),
                  [k["fingerprint"] for k in c["keys"]] == fprs, (c["keys"], fprs))
            check("gpg %s %s: user ID" % (name, form), c["user_ids"] == [uid], c["user_ids"])
            check("gpg %s %s: expiry in two years" % (name, form),
                  c["expires"] > now + 700 * 86400, c["expires"])
            check("gpg %s %s: warnings" % (name, form), codes(c) == warns, c["warnings"])
            check("gpg %s %s: encryption subkey selected" % (name, form),
                  [k["recipient"] for k in c["keys"]] == [False, True], c["keys"])
        # An address that is not on the key.
        certs, r = describe_json(os.path.join(tmp, name + ".asc"), "--address", "x@example.org")
        check("gpg %s: no-address-match" % name,
              certs is not None and "no-address-match" in codes(certs[0]), r.stdout)

    # Many keys in one armored export, then in one binary export.
    for armor in (True, False):
        path = os.path.join(tmp, "all." + ("asc" if armor else "gpg"))
        r = gpg(*(["--armor"] if armor else []), "--export")
        with open(path, "wb") as f:
            f.write(r.stdout)
        certs, r = describe_json(path)
        check("gpg export of %d keys (%s)" % (len(kinds), "armored" if armor else "binary"),
              certs is not None and [c["fingerprint"] for c in certs] == all_fprs,
              r.stderr)

    # Plain text output has the description first and the fingerprint.
    r = describe(os.path.join(tmp, "rsa3072.asc"))
    lines = r.stdout.decode().splitlines()
    check("text output", r.returncode == 0 and lines[0] == kinds[1][3] and
          lines[1] == "fingerprint: " + all_fprs[1], r.stdout + r.stderr)

    # Expiring within 14 days: still usable, with a warning.
    uid = "Soon <soon@example.org>"
    fpr = gpg.gen(uid, "ed25519", "sign", "7d")[0]
    gpg("--quick-add-key", fpr, "cv25519", "encr", "7d")
    certs, r = describe_json(gpg.export(uid, os.path.join(tmp, "soon.asc")))
    check("gpg key expiring in 7 days: expires-soon",
          certs is not None and codes(certs[0]) == ["expires-soon"], r.stdout + r.stderr)

    # Expired: made two years ago with one year of validity.
    uid = "Old <old@example.org>"
    fpr = gpg.gen(uid, "ed25519", "sign", "1y", faked="20241101T000000!")[0]
    gpg("--quick-add-key", fpr, "cv25519", "encr", "1y", faked="20241101T000001!")
    path = gpg.export(uid, os.path.join(tmp, "old.asc"))
    r = describe(path)
    check("gpg expired key: exit 1, nothing on stdout, says expired",
          r.returncode == 1 and r.stdout == b"" and b"expired" in r.stderr, r.stderr)
    certs, r = describe_json(path, now=1750000000)  # mid-2025: valid then
    check("gpg expired key: valid before it expired", certs is not None, r.stderr)

    # Revoked with the revocation certificate gpg stored at generation.
    uid = "Revoked <revoked@example.org>"
    fpr = gpg.gen(uid, "ed25519", "sign", "2y")[0]
    gpg("--quick-add-key", fpr, "cv25519", "encr", "2y")
    rev_path = os.path.join(gpg.home, "openpgp-revocs.d", fpr + ".rev")
    rev = open(rev_path, encoding="ascii").read().replace(":-----BEGIN", "-----BEGIN")
    with open(os.path.join(tmp, "rev.asc"), "w", encoding="ascii") as f:
        f.write(rev)
    r = gpg("--import", os.path.join(tmp, "rev.asc"))
    check("gpg: import revocation", r.returncode == 0, r.stderr)
    r = describe(gpg.export(uid, os.path.join(tmp, "revoked.asc")))
    check("gpg revoked key: exit 1, says revoked",
          r.returncode == 1 and r.stdout == b"" and b"revoked" in r.stderr, r.stderr)

    # Wrong key flags: a signing-only key (and a signing subkey) cannot
    # receive.
    uid = "Signer <signer@example.org>"
    fpr = gpg.gen(uid, "ed25519", "sign", "2y")[0]
    gpg("--quick-add-key", fpr, "ed25519", "sign", "2y")
    r = describe(gpg.export(uid, os.path.join(tmp, "signer.asc")))
    check("gpg sign-only key: exit 1, no-encryption-key",
          r.returncode == 1 and r.stdout == b"" and b"no-encryption-key" in r.stderr, r.stderr)

    # Algorithms that are parsed but not used: DSA with Elgamal, RSA-1024,
    # Brainpool.
    for name, prim, sub, want in [
            ("dsa", "dsa1024", "elg1024", [b"unsupported-algorithm", b"DSA is obsolete",
                                           b"weak-algorithm"]),
            ("rsa1024", "rsa1024", "rsa1024", [b"unsupported-algorithm", b"RSA-1024",
                                               b"too weak", b"weak-algorithm"]),
            ("brainpool", "brainpoolP256r1", "brainpoolP256r1",
             [b"unsupported-algorithm", b"brainpoolP256r1", b"not supported"])]:
        uid = "%s <%s@example.org>" % (name, name)
        fpr = gpg.gen(uid, prim, "sign", "2y")[0]
        gpg("--quick-add-key", fpr, sub, "encr", "2y")
        r = describe(gpg.export(uid, os.path.join(tmp, name + ".asc")))
        check("gpg %s key: exit 1, parsed and reported unusable with the reason" % name,
              r.returncode == 1 and r.stdout == b"" and all(w in r.stderr for w in want)
              and fpr.encode() in r.stderr, r.stderr)

    # Self-signatures over SHA-224 and SHA-384 (--cert-digest-algo), by an
    # Ed25519 and by an RSA primary key (whose PKCS#1 encoding names the
    # hash): the key and its subkey verify; a flipped bit in the subkey
    # binding's last byte (the signature) loses the subkey.
    for digest, algo, prim in (("SHA224", 11, "ed25519"), ("SHA384", 9, "ed25519"),
                               ("SHA224", 11, "rsa2048"), ("SHA384", 9, "rsa2048")):
        uid = "Digest %s %s <%s-%s@example.org>" % (digest, prim, digest.lower(), prim)
        r = gpg("--cert-digest-algo", digest, "--quick-gen-key", uid, prim, "sign", "2y")
        fpr = gpg.fpr(uid)[0]
        gpg("--cert-digest-algo", digest, "--quick-add-key", fpr, "cv25519", "encr", "2y")
        path = gpg.export(uid, os.path.join(tmp, digest + prim + ".gpg"), armor=False)
        data = open(path, "rb").read()
        sigs = [(body, end) for _, body, end, tag in packets(data) if tag == 2]
        check("gpg --cert-digest-algo %s (%s): every self-signature uses it" % (digest, prim),
              len(sigs) == 2 and all(data[b] == 4 and data[b + 3] == algo for b, _ in sigs),
              [(data[b], data[b + 3]) for b, _ in sigs])
        certs, r = describe_json(path)
        check("gpg %s self-signatures (%s): valid, the subkey a recipient" % (digest, prim),
              certs is not None and all(k["valid"] for k in certs[0]["keys"]) and
              sum(k["recipient"] for k in certs[0]["keys"]) == 1, r.stdout + r.stderr)
        bad = bytearray(data)
        bad[sigs[-1][1] - 1] ^= 0x01
        open(path, "wb").write(bytes(bad))
        r = describe(path)
        check("gpg %s (%s): a damaged subkey binding loses the subkey" % (digest, prim),
              r.returncode == 1 and b"no-encryption-key" in r.stderr, r.stderr)

    # Tampering: flip the last byte of each signature after the encryption
    # subkey, or of the subkey; the key loses its subkey.
    data = open(os.path.join(tmp, "p256.gpg"), "rb").read()
    seen_sub, n = False, 0
    for start, body, end, tag in packets(data):
        seen_sub |= tag == 14
        if not seen_sub:
            continue
        bad = bytearray(data)
        bad[end - 1] ^= 0x01
        path = os.path.join(tmp, "tampered.gpg")
        open(path, "wb").write(bytes(bad))
        r = describe(path)
        n += 1
        check("tampered packet %d (type %d): exit 1, nothing on stdout" % (n, tag),
              r.returncode == 1 and r.stdout == b"", r.stdout + r.stderr)
    # Tampered user-ID self-signature: the key stays, the user ID goes.
    for start, body, end, tag in packets(data):
        if tag == 2:
            bad = bytearray(data)
            bad[end - 1] ^= 0x01
            open(path, "wb").write(bytes(bad))
            certs, r = describe_json(path)
            check("tampered user-ID signature: reported as bad-signature",
                  certs is None or "bad-signature" in codes(certs[0]), r.stdout + r.stderr)
            break

    # Truncated input.
    path = os.path.join(tmp, "truncated.gpg")
    open(path, "wb").write(data[:len(data) // 2])
    r = describe(path)
    check("truncated key: exit 1, says truncated",
          r.returncode == 1 and r.stdout == b"" and b"truncated" in r.stderr, r.stderr)

    # Secret keys and non-keys.
    r = made[3][0]("--armor", "--export-secret-keys", all_fprs[3])
    made[3][0].stop()
    open(os.path.join(tmp, "secret.asc"), "wb").write(r.stdout)
    r = describe(os.path.join(tmp, "secret.asc"))
    check("secret key: exit 1, says secret key",
          r.returncode == 1 and r.stdout == b"" and b"secret key" in r.stderr, r.stderr)
    # A third-party certification (the P-256 key certifies the P-384 key's
    # user ID) is neither trusted nor reported as a bad signature.
    signer = made[3][0]
    signer("--import", os.path.join(tmp, "p384.gpg"))
    r = signer("--local-user", all_fprs[3], "--quick-sign-key", all_fprs[4])
    check("gpg: third-party certification made", r.returncode == 0, r.stderr)
    certs, r = describe_json(signer.export(all_fprs[4], os.path.join(tmp, "certified.asc")))
    check("gpg third-party certification: no warning, user ID kept",
          certs is not None and codes(certs[0]) == [] and len(certs[0]["user_ids"]) == 1,
          (certs, r.stderr))
    r = run(["gpg", "--homedir", signer.home, "--list-packets",
             os.path.join(tmp, "certified.asc")])
    check("gpg third-party certification: present in the export",
          r.stdout.count(b"sigclass 0x10") + r.stdout.count(b"sigclass 0x13") >= 2, r.stdout)
    signer.stop()
    r = describe(os.path.join(VECTORS, "rfc9580-appendixA", "a8_encrypted.asc"))
    check("a message is not a key: exit 1", r.returncode == 1 and r.stdout == b"", r.stderr)
    r = describe("/nonexistent/key.asc")
    check("missing file: exit 1", r.returncode == 1 and r.stdout == b"", r.stderr)
    gpg.stop()

    # Sequoia sq 0.27: its cipher suites but rsa4k (GnuPG covers RSA-4096).
    for suite, want in [
            ("cv25519", "OpenPGP v4: EdDSALegacy Ed25519 (encryption subkey ECDH Curve25519Legacy)"),
            ("rsa3k", "OpenPGP v4: RSA-3072 (encryption subkey RSA-3072)")]:
        key = os.path.join(tmp, "sq-%s.key" % suite)
        r = run(["sq", "key", "generate", "--userid", "<sq-%s@example.org>" % suite,
                 "--cipher-suite", suite, "--export", key])
        check("sq %s: generate" % suite, r.returncode == 0, r.stderr)
        cert = os.path.join(tmp, "sq-%s.asc" % suite)
        r = run(["sq", "key", "extract-cert", "--output", cert, key])
        check("sq %s: extract cert" % suite, r.returncode == 0, r.stderr)
        inspect = run(["sq", "inspect", cert]).stdout.decode()
        sq_fprs = [line.split()[-1] for line in inspect.splitlines()
                   if line.strip().startswith(("Fingerprint:", "Subkey:"))]
        certs, r = describe_json(cert)
        check("sq %s: describe" % suite, certs is not None and certs[0]["description"] == want,
              (certs, r.stderr))
        if certs:
            check("sq %s: fingerprints as sq prints them" % suite,
                  [k["fingerprint"] for k in certs[0]["keys"]] == sq_fprs,
                  (certs[0]["keys"], sq_fprs))
            # sq's signing subkey keeps its flag only if its back-signature
            # verified.
            check("sq %s: signing subkey's back-signature verified" % suite,
                  any(k["flags"] == 2 and k["valid"] for k in certs[0]["keys"][1:]),
                  certs[0]["keys"])
        r = describe(key)
        check("sq %s: the secret key is refused" % suite, r.returncode == 1, r.stderr)

    # RNP 0.16 with its defaults.
    home = os.path.join(tmp, "rnp")
    os.makedirs(home)
    r = run(["rnpkeys", "--homedir", home, "--generate-key", "--userid", "rnp <rnp@example.org>",
             "--password", ""])
    check("rnp: generate", r.returncode == 0, r.stderr)
    r = run(["rnpkeys", "--homedir", home, "--export-key", "rnp@example.org"])
    path = os.path.join(tmp, "rnp.asc")
    open(path, "wb").write(r.stdout)
    listing = run(["rnpkeys", "--homedir", home, "--list-keys"])
    certs, r = describe_json(path, "--address", "rnp@example.org")
    check("rnp: describe", certs is not None and certs[0]["description"].startswith("OpenPGP v4: "),
          r.stderr)
    if certs:
        out = listing.stdout.decode().replace(" ", "").upper()
        check("rnp: fingerprints as rnpkeys prints them",
              all(k["fingerprint"] in out for k in certs[0]["keys"]), (certs, out))
        check("rnp: user ID matches", "no-address-match" not in codes(certs[0]), certs[0])

    # OpenPGP.js 6 (v4 and v6 keys of RFC 9580's native algorithms, Ed448
    # included) and Proton's OpenPGP.js (RFC 9980 ML-DSA and ML-KEM keys,
    # and a v6 key with both an X25519 and an ML-KEM subkey, of which only
    # the post-quantum one may be chosen).
    modules = os.environ.get("CORVID_NODE_MODULES", "")
    check("CORVID_NODE_MODULES holds openpgp (quickstart.sh test installs it)",
          os.path.isdir(os.path.join(modules, "openpgp")), modules)
    gen = os.path.join(os.path.dirname(os.path.abspath(__file__)), "interop_pgp_keys_gen.mjs")
    for pkg, kind, version, want, recipients in [
            ("openpgp", "curve25519", "6", "OpenPGP v6: Ed25519 (encryption subkey X25519)", 1),
            ("openpgp", "curve448", "6", "OpenPGP v6: Ed448 (encryption subkey X448)", 1),
            ("openpgp", "curve25519", "4", "OpenPGP v4: Ed25519 (encryption subkey X25519)", 1),
            ("openpgp", "curve448", "4", "OpenPGP v4: Ed448 (encryption subkey X448)", 1),
            ("openpgp", "ecc-nistP521", "4",
             "OpenPGP v4: ECDSA P-521 (encryption subkey ECDH P-521)", 1),
            ("@protontech/openpgp", "pqc", "6",
             "OpenPGP v6: ML-DSA-65+Ed25519 (encryption subkey ML-KEM-768+X25519)", 1),
            ("@protontech/openpgp", "mixed-pqc", "6",
             "OpenPGP v6: Ed25519 (encryption subkey ML-KEM-768+X25519)", 1)]:
        name = "%s %s v%s" % (pkg, kind, version)
        r = run(["node", gen, pkg, kind, version], env=dict(os.environ, CORVID_NODE_MODULES=modules))
        check("%s: generate" % name, r.returncode == 0, r.stderr)
        if r.returncode != 0:
            continue
        made = json.loads(r.stdout)
        path = os.path.join(tmp, "js.asc")
        open(path, "w", encoding="ascii").write(made["armored"])
        certs, r = describe_json(path, "--address", "js@example.org")
        check("%s: describe" % name, certs is not None and certs[0]["description"] == want,
              (certs and certs[0]["description"], r.stderr))
        if not certs:
            continue
        c = certs[0]
        check("%s: fingerprints as OpenPGP.js computes them" % name,
              [k["fingerprint"] for k in c["keys"]] == made["fingerprints"],
              (c["keys"], made["fingerprints"]))
        check("%s: recipients" % name,
              sum(k["recipient"] for k in c["keys"]) == recipients and
              all(k["valid"] for k in c["keys"]), c["keys"])
        want_codes = ["limited-support"] if version == "6" or "25519" in kind or "448" in kind \
            else []
        check("%s: warnings" % name, codes(c) == want_codes, c["warnings"])

    # AEAD ciphersuites as OpenPGP.js announces them with EAX preferred:
    # every mode named (EAX, which libmsgcrypt never writes, included), in
    # the key's order, in both outputs.
    r = run(["node", gen, "openpgp", "curve25519-eax", "6"],
            env=dict(os.environ, CORVID_NODE_MODULES=modules))
    check("openpgp curve25519-eax v6: generate", r.returncode == 0, r.stderr)
    if r.returncode == 0:
        path = os.path.join(tmp, "js-eax.asc")
        open(path, "w", encoding="ascii").write(json.loads(r.stdout)["armored"])
        r = describe(path)
        want = (b"preferred ciphers: AES256 AES128 AES256-EAX AES128-EAX AES256-GCM AES128-GCM "
                b"AES256-OCB AES128-OCB\n")
        check("openpgp curve25519-eax v6: describe names EAX, GCM and OCB in the key's order",
              r.returncode == 0 and want in r.stdout, r.stdout + r.stderr)
        certs, r = describe_json(path)
        check("openpgp curve25519-eax v6: --json pref_aead in the key's order",
              certs is not None and
              certs[0].get("pref_aead") == [[9, 1], [7, 1], [9, 3], [7, 3], [9, 2], [7, 2]],
              (certs and certs[0].get("pref_aead"), r.stderr))

    # The RFC sample keys through the tool.
    for rel in ["rfc9580-appendixA/a3_cert.asc", "openpgp-pqc/v6-mldsa-87-sample-pk.asc"]:
        certs, r = describe_json(os.path.join(VECTORS, rel))
        check("%s: limited-support" % rel,
              certs is not None and "limited-support" in codes(certs[0]), r.stderr)


if __name__ == "__main__":
    sys.exit(main())
