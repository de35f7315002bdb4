#!/usr/bin/python3
"""differential.py: compares `mailparse dump --json` with Python's email
package (policy=default) over a corpus made by mkcorpus, and prints TAP.

Usage: differential.py MAILPARSE MKCORPUS WORKDIR [COUNT [SEED]]

For every message both parsers must find the same part tree (walked depth
first: same number of parts, same content type at each position, the same
parts being multipart) and every leaf must decode to the same bytes (SHA-256
compared). Intentional differences, each handled below and documented:

  1. Quoted-printable: RFC 2045 6.7 (3) says trailing spaces and tabs on an
     encoded line are deleted; Python's decoder keeps them after an encoded
     character. A QP leaf whose hashes differ is compared again with trailing
     whitespace stripped from each line of both decodings.
  2. A multipart whose first delimiter never appears: Python makes it a leaf
     (StartBoundaryNotFoundDefect), libmailparse a multipart with no
     children; both are accepted when the bodies agree.
  3. message/* other than rfc822 and global (for example message/partial,
     message/delivery-status): Python parses them as messages, libmailparse
     keeps them as leaves (RFC 2046 5.2.2/5.2.3: not a message). Such
     subtrees are compared at the top only.
  4. uuencode: Python decodes x-uuencode bodies; libmailparse keeps unknown
     encodings raw. Such leaves are compared by type only.
"""
import email
import email.policy
import hashlib
import json
import os
import subprocess
import sys


def py_parts(msg):
    out = []

    def walk(m):
        ctype = m.get_content_type()
        entry = {"type": ctype, "multipart": m.is_multipart(), "node": m}
        out.append(entry)
        if ctype.startswith("message/") and ctype not in ("message/rfc822", "message/global"):
            return  # difference 3: not descended
        if m.is_multipart():
            for sub in m.get_payload():
                walk(sub)

    walk(msg)
    return out


def our_parts(dump):
    parts = dump["parts"]
    out = []

    def walk(ix):
        p = parts[ix]
        out.append(p)
        for c in p["children"]:
            walk(c)

    walk(0)
    return out


def strip_lines(data):
    return b"\n".join(line.rstrip(b" \t\r") for line in data.split(b"\n"))


def main():
    tool, mkcorpus, work = sys.argv[1:4]
    count = int(sys.argv[4]) if len(sys.argv) > 4 else 300
    seed = sys.argv[5] if len(sys.argv) > 5 else "1"
    corpus = os.path.join(work, "corpus")
    os.makedirs(work, exist_ok=True)
    subprocess.run([mkcorpus, "--seed", seed, "--count", str(count), "--format", "eml",
                    "--out", corpus, "--max-size", "200000"], check=True,
                   stdout=subprocess.DEVNULL)
    files = sorted(os.path.join(corpus, f) for f in os.listdir(corpus))
    dumps = {}
    for i in range(0, len(files), 200):
        batch = files[i:i + 200]
        res = subprocess.run([tool, "dump", "--json"] + batch, check=True,
                             stdout=subprocess.PIPE)
        for line in res.stdout.decode("ascii").splitlines():
            d = json.loads(line)
            dumps[d["file"]] = d
    print("1..%d" % len(files))
    failed = 0
    stats = {"parts": 0, "leaves": 0, "qp_ws": 0}
    for n, path in enumerate(files, 1):
        with open(path, "rb") as f:
            data = f.read()
        problems = []
        ours = our_parts(dumps[path])
        theirs = py_parts(email.message_from_bytes(data, policy=email.policy.default))
        if len(ours) != len(theirs):
            problems.append("part count %d != python %d" % (len(ours), len(theirs)))
        for i, (o, t) in enumerate(zip(ours, theirs)):
            stats["parts"] += 1
            otype = o["type"] + "/" + o["subtype"]
            if otype != t["type"]:
                problems.append("part %d type %s != python %s" % (i, otype, t["type"]))
                continue
            o_multi = o["kind"] == "multipart" and o["children"]
            if bool(o_multi) != t["multipart"] and not otype.startswith("message/"):
                problems.append("part %d multipart %s != python %s" % (i, o_multi, t["multipart"]))
                continue
            if o["kind"] != "leaf" or t["multipart"]:
                continue
            if o["encoding"] == "unknown":
                continue  # difference 4
            stats["leaves"] += 1
            payload = t["node"].get_payload(decode=True) or b""
            if hashlib.sha256(payload).hexdigest() == o["sha256"]:
                continue
            if o["encoding"] == "quoted-printable":
                # Difference 1: compare with trailing whitespace removed.
                res = subprocess.run([tool, "body", path, str(o["index"])], check=True,
                                     stdout=subprocess.PIPE)
                if strip_lines(res.stdout) == strip_lines(payload):
                    stats["qp_ws"] += 1
                    continue
            problems.append("part %d (%s, %s) decoded sha256 differs: %d bytes, python %d" %
                            (i, otype, o["encoding"], o["decoded_size"], len(payload)))
        if problems:
            failed += 1
            print("not ok %d - %s" % (n, os.path.basename(path)))
            for p in problems[:5]:
                print("#   " + p)
        else:
            print("ok %d - %s" % (n, os.path.basename(path)))
    print("# %d parts, %d leaves compared, %d QP leaves equal after trailing-space rule" %
          (stats["parts"], stats["leaves"], stats["qp_ws"]))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
