#!/usr/bin/python3
"""test_queue.py: `ftsearch queue run/status/rebuild` and `ftsearch index
--store` over a real libmailstore store (filled by mailctl) and real indexes
on disk, printed as TAP.

Usage: test_queue.py FTSEARCH MAILCTL MKCORPUS WORKDIR

1. mkcorpus messages imported with mailctl: queue status shows them queued,
   nothing indexed; queue run drains the queue (status: queued 0, every
   message indexed).
2. index --store builds a second index from the store alone: the same
   documents for a set of words as the queue-built one, and each query finds
   something (so the comparison is not between two empty indexes).
3. A second import (another mailbox): queued again; queue rebuild re-indexes
   the account from the store, after which the queue still holds the entries
   (rebuild leaves it alone) and queue run applies them idempotently: the
   documents stay equal to a fresh index --store of the whole account.
4. Refusals: an unknown account (exit 1), usage errors (exit 2).
5. The progress bar appears on a terminal (a pty) and not otherwise.
6. A message whose stored body is damaged is given up after its attempts,
   logged, and shown by status (last_failed_message, last_error), while the
   messages queued after it are indexed.
"""
import os
import pty
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                "tests", "scripts"))
from corvid_tap import Tap  # noqa: E402

FTSEARCH, MAILCTL, MKCORPUS, WORK = sys.argv[1:5]
tap = Tap()


def check(name, ok, detail=""):
    return tap.check(ok, name, detail)


def run(*args, expect=0):
    p = subprocess.run(list(args), capture_output=True, text=True, timeout=120)
    if p.returncode != expect:
        raise SystemExit(f"Bail out! {args}: exit {p.returncode}, stderr {p.stderr}")
    return p


def status(index, store):
    out = run(FTSEARCH, "queue", "status", index, "--store", store, "--account", "bob").stdout
    return dict(line.split(" ", 1) for line in out.splitlines())


def docs(index, word):
    out = run(FTSEARCH, "query", index, "--account", "1", word).stdout
    return [int(x) for x in out.split()]


WORDS = ["meeting", "project", "the", "report", "budget", "please", "thanks", "team"]

shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
store, idx, fresh, fresh2 = (os.path.join(WORK, n) for n in ("st", "idx", "fresh", "fresh2"))
md1, md2 = os.path.join(WORK, "md1"), os.path.join(WORK, "md2")
run(MKCORPUS, "--seed", "11", "--count", "200", "--format", "maildir", "--out", md1,
    "--max-size", "65536")
run(MKCORPUS, "--seed", "12", "--count", "120", "--format", "maildir", "--out", md2,
    "--max-size", "65536")
run(MAILCTL, "store", "create", store)
run(MAILCTL, "store", "add-account", store, "bob")
run(MAILCTL, "store", "import", store, "bob", "INBOX", "--maildir", md1)

# 1.
s = status(idx, store)
check("status before run: 200 queued, 0 indexed",
      s["queued"] == "200" and s["indexed"] == "0" and s["failed"] == "0", str(s))
p = run(FTSEARCH, "queue", "run", idx, "--store", store, "--workers", "2", "--batch", "64")
check("queue run reports 200 entries indexed", "200 entries: 200 indexed" in p.stderr, p.stderr)
s = status(idx, store)
check("status after run: 0 queued, 200 indexed", s["queued"] == "0" and s["indexed"] == "200",
      str(s))

# 2.
run(FTSEARCH, "index", fresh, "--store", store, "--account", "bob")
same = all(docs(idx, w) == docs(fresh, w) for w in WORDS)
nonempty = sum(1 for w in WORDS if docs(idx, w)) >= len(WORDS) - 2
check("index --store equals the queue-built index", same)
check("the compared queries find documents", nonempty)

# 3.
run(MAILCTL, "store", "import", store, "bob", "Later", "--maildir", md2)
s = status(idx, store)
check("second import queued", s["queued"] == "120" and s["indexed"] == "200", str(s))
p = run(FTSEARCH, "queue", "rebuild", idx, "--store", store, "--account", "bob")
s = status(idx, store)
check("rebuild indexes the whole account, leaves the queue",
      s["indexed"] == "320" and s["queued"] == "120", str(s) + p.stderr)
run(FTSEARCH, "queue", "run", idx, "--store", store)
run(FTSEARCH, "index", fresh2, "--store", store, "--account", "bob")
s = status(idx, store)
check("queue run after rebuild: idempotent", s["queued"] == "0" and s["indexed"] == "320", str(s))
check("queue + rebuild equals a fresh index of the account",
      all(docs(idx, w) == docs(fresh2, w) for w in WORDS))
st1 = run(FTSEARCH, "stats", idx, "--account", "1").stdout
st2 = run(FTSEARCH, "stats", fresh2, "--account", "1").stdout
words1 = [l for l in st1.splitlines() if l.startswith("words.") or l.startswith("documents")]
words2 = [l for l in st2.splitlines() if l.startswith("words.") or l.startswith("documents")]
check("same word counts per field (no document twice)", words1 == words2, f"{words1} {words2}")

# 4.
p = run(FTSEARCH, "queue", "status", idx, "--store", store, "--account", "nobody", expect=1)
check("unknown account: exit 1 with a message", "nobody" in p.stderr, p.stderr)
run(FTSEARCH, "queue", "frobnicate", idx, "--store", store, expect=2)
run(FTSEARCH, "queue", "status", idx, "--store", store, expect=2)
run(FTSEARCH, "queue", "run", idx, expect=2)
check("usage errors: exit 2", True)

# 5.
def with_pty(args):
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(args[0], args)
    out = b""
    while True:
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    os.waitpid(pid, 0)
    return out.decode(errors="replace")


out = with_pty([FTSEARCH, "index", os.path.join(WORK, "tty"), "--store", store, "--account", "bob"])
check("progress bar on a terminal", "100%" in out and "#" in out, out[-300:])
p = run(FTSEARCH, "index", os.path.join(WORK, "notty"), "--store", store, "--account", "bob")
check("no progress bar otherwise", "%" not in p.stderr, p.stderr)

# 6. A message whose stored body no longer decompresses is given up after
# its attempts, logged and shown by status, while the messages queued after
# it are indexed. It is imported alone first, so that the store holds one
# zstd frame to damage; the other two come after.
def maildir(path, bodies):
    for sub in ("cur", "new", "tmp"):
        os.makedirs(os.path.join(path, sub))
    for i, body in enumerate(bodies):
        with open(os.path.join(path, "cur", f"{1700000000 + i}.m{i}:2,S"), "wb") as f:
            f.write(body)


dstore, didx = os.path.join(WORK, "damaged-st"), os.path.join(WORK, "damaged-idx")
maildir(os.path.join(WORK, "dm1"), [b"Subject: quarterly\r\n\r\n" + b"".join(
    b"line %d of the quarterly report\r\n" % i for i in range(300))])
maildir(os.path.join(WORK, "dm2"), [b"Subject: birds\r\n\r\nwalrus\r\n",
                                    b"Subject: more birds\r\n\r\npelican\r\n"])
run(MAILCTL, "store", "create", dstore)
run(MAILCTL, "store", "add-account", dstore, "bob")
run(MAILCTL, "store", "import", dstore, "bob", "INBOX", "--maildir", os.path.join(WORK, "dm1"))
with open(os.path.join(dstore, "data.mdb"), "r+b") as f:
    data = f.read()
    at = data.find(b"\x28\xb5\x2f\xfd")
    check("the one zstd frame is found in data.mdb",
          at > 0 and data.find(b"\x28\xb5\x2f\xfd", at + 1) < 0)
    f.seek(at + 24)
    f.write(bytes(b ^ 0xFF for b in data[at + 24:at + 40]))
run(MAILCTL, "store", "import", dstore, "bob", "INBOX", "--maildir", os.path.join(WORK, "dm2"))
p = run(FTSEARCH, "queue", "run", didx, "--store", dstore)
check("queue run gives the damaged message up and indexes the others",
      "3 entries: 2 indexed, 0 removed, 0 already gone, 1 failed, 2 retries" in p.stderr,
      p.stderr)
s = status(didx, dstore)
check("status: nothing queued, 2 indexed, 1 failed: message 1, store is corrupt",
      s.get("queued") == "0" and s.get("indexed") == "2" and s.get("failed") == "1" and
      s.get("last_failed_message") == "1" and "store is corrupt" in s.get("last_error", ""),
      str(s))
check("the messages after it are found", docs(didx, "walrus") == [2] and
      docs(didx, "pelican") == [3], f"{docs(didx, 'walrus')} {docs(didx, 'pelican')}")
with open(didx + ".failed") as f:
    logged = f.read().split()
check("the failure log names account 1, message 1", logged[:2] == ["1", "1"], str(logged))

# The exit status stays 0 as it always was: meson fails the test on any 'not ok' line.
tap.done()
shutil.rmtree(WORK, ignore_errors=True)
