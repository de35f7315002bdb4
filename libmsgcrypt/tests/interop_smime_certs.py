#!/usr/bin/env python3
"""interop_smime_certs.py MSGCRYPT GEN_SCRIPT: S/MIME certificates against
the openssl command line (a separate process; never linked into ours).

1. Random certificates made by openssl (RSA, EC P-256/384/521, X25519,
   X448; names with RFC 4514 special characters, UTF-8, multi-valued RDNs and
   emailAddress; 0-3 SAN addresses; serials of 1-20 bytes, some with the top
   bit set) are described by `msgcrypt describe --cert --json`, and every
   field is compared with what `openssl x509` prints: SHA-256 fingerprint,
   subject and issuer (RFC 2253 form), serial, validity, addresses.
2. The validation scenarios of smime_certs_gen.sh are judged by both
   `msgcrypt describe --trust --crl` and `openssl verify -purpose
   smimeencrypt`, which must agree on valid/invalid for each, except where a
   difference is documented (name constraints, which we refuse).
Prints TAP."""
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "tests", "scripts"))
from corvid_tap import Tap  # noqa: E402

tool, gen = sys.argv[1], sys.argv[2]
rng = random.Random(int(os.environ.get("SMIME_INTEROP_SEED", "9935")))
tmp = tempfile.mkdtemp(prefix="smime-interop-")
tap = Tap()
ok = tap.check


def run(args, **kw):
    return subprocess.run(args, capture_output=True, timeout=120, **kw)


def ossl(*args):
    r = run(["openssl", *args])
    if r.returncode != 0:
        raise RuntimeError("openssl %s: %s" % (" ".join(args), r.stderr.decode(errors="replace")))
    return r.stdout.decode()


try:
    g = os.path.join(tmp, "gen")
    r = run(["sh", gen, g])
    if r.returncode != 0:
        print("Bail out! generator failed: " + r.stderr.decode(errors="replace")[-500:])
        sys.exit(1)

    # 1. Random certificates, field by field.
    keys = ["rsa2048", "p256", "p384", "p521", "x25519", "x448"]
    specials = ["a,b", "x+y", 'q"uote', "semi;colon", "<lt>", "#hash", " lead", "trail ",
                "back\\slash", "caf\u00e9", "\u65e5\u672c", "plain"]
    for i in range(24):
        kt = keys[i % len(keys)]
        kf = os.path.join(tmp, "k%d.key" % i)
        if kt.startswith("rsa"):
            ossl("genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", kf)
        elif kt.startswith("p"):
            ossl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-" + kt[1:], "-out", kf)
        else:
            ossl("genpkey", "-algorithm", kt, "-out", kf)
        pub = os.path.join(tmp, "k%d.pub" % i)
        ossl("pkey", "-in", kf, "-pubout", "-out", pub)
        cn = rng.choice(specials).replace("/", "")
        ou = rng.choice(specials)
        ou = ou.replace("/", "")

        def esc(v):  # openssl -subj wants \ and + escaped with a backslash
            return v.replace("\\", "\\\\").replace("+", "\\+")

        subj = "/O=Org %d/OU=%s+CN=%s" % (i, ou, cn)
        subj_arg = "/O=Org %d/OU=%s+CN=%s" % (i, esc(ou), esc(cn))
        if rng.random() < 0.5:
            subj += "/emailAddress=legacy%d@example.net" % i
            subj_arg += "/emailAddress=legacy%d@example.net" % i
        addrs = ["u%d.%d@example.org" % (i, k) for k in range(rng.randrange(4))]
        ext = os.path.join(tmp, "e%d.ext" % i)
        with open(ext, "w") as f:
            f.write("keyUsage=%s\n" % ("keyEncipherment" if kt.startswith("rsa") else "keyAgreement"))
            if addrs:
                f.write("subjectAltName=" + ",".join("email:" + a for a in addrs) + "\n")
        nbytes = rng.randrange(1, 21)
        serial = rng.getrandbits(8 * nbytes) | (1 << (8 * nbytes - 1 - rng.randrange(2)))
        csr = os.path.join(tmp, "c%d.csr" % i)
        ossl("req", "-new", "-key", os.path.join(g, "csrsigner.key"), "-utf8", "-subj", subj_arg,
             "-out", csr)
        crt = os.path.join(tmp, "c%d.pem" % i)
        ossl("x509", "-req", "-in", csr, "-force_pubkey", pub, "-CA", os.path.join(g, "int.pem"),
             "-CAkey", os.path.join(g, "int.key"), "-set_serial", str(serial), "-days",
             str(rng.randrange(1, 4000)), "-extfile", ext, "-out", crt)
        r = run([tool, "describe", "--cert", crt, "--json"])
        if r.returncode != 0:
            ok(False, "describe random cert %d (%s)" % (i, kt), r.stderr.decode(errors="replace"))
            continue
        d = json.loads(r.stdout)["certificates"][0]
        fpr = ossl("x509", "-in", crt, "-noout", "-fingerprint", "-sha256").strip().split("=", 1)[1]
        nameopt = "RFC2253,-esc_msb"
        subject = ossl("x509", "-in", crt, "-noout", "-subject", "-nameopt", nameopt)
        subject = subject.rstrip("\n").split("=", 1)[1] if subject.startswith("subject=") else subject
        issuer = ossl("x509", "-in", crt, "-noout", "-issuer", "-nameopt", nameopt)
        issuer = issuer.rstrip("\n").split("=", 1)[1]
        ser = ossl("x509", "-in", crt, "-noout", "-serial").strip().split("=", 1)[1]
        want_addrs = addrs + (["legacy%d@example.net" % i] if "emailAddress" in subj else [])
        desc = {"rsa2048": "S/MIME: RSA-2048", "p256": "S/MIME: EC P-256",
                "p384": "S/MIME: EC P-384", "p521": "S/MIME: EC P-521",
                "x25519": "S/MIME: X25519", "x448": "S/MIME: X448"}[kt]
        checks = [("fingerprint", d["fingerprint_sha256"], fpr),
                  ("subject", d["subject"], subject),
                  ("issuer", d["issuer"], issuer),
                  ("serial", d["serial"].lstrip("0") or "0", ser.lstrip("0") or "0"),
                  ("addresses", d["addresses"], want_addrs),
                  ("description", d["description"], desc)]
        for what, got, want in checks:
            ok(got == want, "random cert %d (%s) %s" % (i, kt, what), "got %r want %r" % (got, want))

    # 2. Validation verdicts against openssl verify.
    anchors = os.path.join(g, "anchors")
    crls = [os.path.join(g, "int.crl"), os.path.join(g, "root.crl")]
    scenarios = [  # leaf, intermediates, with CRLs, documented difference
        ("alice", ["int"], True, None), ("bob", ["int"], True, None),
        ("bob", ["int"], False, None), ("carol", ["int"], True, None),
        ("dave", ["int"], True, None), ("erin", ["int"], False, None),
        ("frank", ["int"], False, None), ("grace", [], False, None),
        ("pss", [], False, None), ("edleaf", [], False, None),
        ("deep", ["int", "sub"], False, None), ("notca", ["alice", "int"], False, None),
        ("mallory", ["other"], False, None), ("self", [], False, None),
        ("nc", ["ncca"], False, "name constraints: openssl applies them, we refuse the path"),
    ]
    for leaf, inter, with_crls, diff in scenarios:
        bundle = os.path.join(tmp, "b-%s.pem" % leaf)
        with open(bundle, "wb") as f:
            for n in [leaf] + inter:
                with open(os.path.join(g, n + ".pem"), "rb") as src:
                    f.write(src.read())
        args = [tool, "describe", "--cert", bundle, "--trust", anchors, "--json"]
        if with_crls:
            for c in crls:
                args += ["--crl", c]
        r = run(args)
        if r.returncode != 0:
            ours = "refused"
        else:
            certs = json.loads(r.stdout)["certificates"]
            mine = [c for c in certs if c["fingerprint_sha256"] ==
                    ossl("x509", "-in", os.path.join(g, leaf + ".pem"), "-noout", "-fingerprint",
                         "-sha256").strip().split("=", 1)[1]]
            ours = mine[0]["verdict"] if mine else "missing"
        cafile = os.path.join(tmp, "cafile.pem")
        with open(cafile, "wb") as f:
            for n in ["root", "edroot", "ed448root"]:
                with open(os.path.join(g, n + ".pem"), "rb") as src:
                    f.write(src.read())
        # OpenSSL's smimeencrypt purpose demands keyEncipherment of every key
        # type, while RFC 5480/8410 certificates for ECDH carry keyAgreement:
        # for those leaves only the chain is compared.
        agree = leaf in ("bob", "carol", "dave", "grace")
        v = ["openssl", "verify", "-purpose", "any" if agree else "smimeencrypt", "-CAfile", cafile]
        if inter:
            untrusted = os.path.join(tmp, "u-%s.pem" % leaf)
            with open(untrusted, "wb") as f:
                for n in inter:
                    with open(os.path.join(g, n + ".pem"), "rb") as src:
                        f.write(src.read())
            v += ["-untrusted", untrusted]
        if with_crls:
            crlfile = os.path.join(tmp, "crls.pem")
            with open(crlfile, "wb") as f:
                for c in crls:
                    with open(c, "rb") as src:
                        f.write(src.read())
            v += ["-crl_check_all", "-CRLfile", crlfile]
        v.append(os.path.join(g, leaf + ".pem"))
        o = run(v)
        theirs_ok = o.returncode == 0
        ours_ok = ours == "ok"
        name = "verdict %s%s: ours %s, openssl %s" % (
            leaf, " +crl" if with_crls else "", ours,
            "ok" if theirs_ok else o.stdout.decode(errors="replace").strip().splitlines()[-1:])
        if diff:
            ok(ours_ok != theirs_ok, name + " (documented: %s)" % diff)
        else:
            ok(ours_ok == theirs_ok, name, o.stderr.decode(errors="replace")[-300:])

    # 3. The tool on bad input: exit status 1 (2 for usage), a message on
    # stderr, nothing on stdout.
    garbage = os.path.join(tmp, "garbage")
    with open(garbage, "wb") as f:
        f.write(b"\x30\x82\xff\xff not a certificate")
    alice = os.path.join(g, "alice.pem")
    bad_cases = [
        ("garbage", ["--cert", garbage], 1),
        ("missing file", ["--cert", os.path.join(tmp, "nope.pem")], 1),
        ("Ed25519 certificate", ["--cert", os.path.join(g, "edroot.pem")], 1),
        ("certificate as CRL", ["--cert", alice, "--crl", alice], 1),
        ("garbage CRL", ["--cert", alice, "--crl", garbage], 1),
        ("missing trust dir", ["--cert", alice, "--trust", os.path.join(tmp, "nodir")], 1),
        ("--cert with FILE", ["--cert", alice, alice], 2),
        ("--trust without --cert", [alice, "--trust", os.path.join(g, "anchors")], 2),
    ]
    for name, args, want in bad_cases:
        r = run([tool, "describe", *args])
        ok(r.returncode == want and r.stdout == b"" and r.stderr != b"",
           "tool refuses %s (exit %d)" % (name, want),
           "exit %d stdout %r stderr %r" % (r.returncode, r.stdout[:200], r.stderr[:200]))
finally:
    shutil.rmtree(tmp, ignore_errors=True)

sys.exit(tap.done())
