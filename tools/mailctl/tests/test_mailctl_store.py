#!/usr/bin/python3
"""test_mailctl_store.py: checks `mailctl store` end to end and prints TAP.

Usage: test_mailctl_store.py MAILCTL MKCORPUS WORKDIR [COUNT]

1. create, add-account (with quotas), and their refusals (a second create,
   a duplicate account, a missing store, usage errors).
2. COUNT (default 300) mkcorpus messages imported once from a Maildir and
   once from the mbox of the same seed; both mailboxes exported to Maildirs,
   whose files must hold exactly the bytes of the source Maildir's files
   (the mbox with its mboxrd quoting undone and CRLF line ends restored),
   with the Maildir flags and dates carried over from the Maildir import.
3. stats: the counts and the sharing of identical bodies between the two
   imports; verify on the good store; collect, which finds nothing released; the same Maildir imported with and
   without --no-transform, stats showing Base64 bodies stored decoded and
   the smaller size.
4. An import into an account whose quota stops it part way: exit status 1,
   the refused messages named, the store still consistent.
5. verify on a damaged copy of the store (one byte of a stored body flipped
   in data.mdb): exit status 1 and a message saying the store failed.
6. The progress bar appears when standard error is a terminal (a pty) and
   not otherwise.
7. train --recompress: a dictionary trained on the stored mail, every blob
   re-encoded with it, stats reporting it (and the mail taking less space
   than plain zstd did), verify passing and an export still giving back
   every byte; recompress then finds nothing left; train on an empty store
   fails with a clear message.
8. Keywords: a Maildir whose file names carry Dovecot keyword letters
   (dovecot-keywords) imports with them into three mailboxes, and the
   export of the whole account as Maildir++ (INBOX, .Lists, .Lists.dev)
   gives every message back with its flags and keyword names; that tree
   imports into another account as a whole and exports identically.
"""
import os
import pty
import random
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                "tests", "scripts"))
from corvid_tap import Tap  # noqa: E402

MAILCTL, MKCORPUS, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
COUNT = int(sys.argv[4]) if len(sys.argv) > 4 else 300

tap = Tap(diag_lines=20)
check = tap.check


def run(*args, **kw):
    return subprocess.run([MAILCTL, "store", *args], capture_output=True, text=True,
                          timeout=120, **kw)


def maildir_files(d):
    """{name: bytes} for every file in cur/ and new/."""
    out = {}
    for sub in ("cur", "new"):
        p = os.path.join(d, sub)
        for n in os.listdir(p):
            with open(os.path.join(p, n), "rb") as f:
                out[n] = f.read()
    return out


def flags_of(name):
    return name.split(":2,", 1)[1] if ":2," in name else ""


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    md = os.path.join(WORK, "corpus-maildir")
    mbox = os.path.join(WORK, "corpus.mbox")
    for fmt, out in (("maildir", md), ("mbox", mbox)):
        subprocess.run([MKCORPUS, "--seed", "11", "--count", str(COUNT), "--format", fmt,
                        "--out", out], check=True, timeout=120)
    store = os.path.join(WORK, "store")

    # 1. create and accounts.
    r = run("create", store)
    check(r.returncode == 0 and os.path.exists(os.path.join(store, "data.mdb")),
          "create makes a store", r.stderr)
    r = run("create", store)
    check(r.returncode == 1 and "already" in r.stderr, "a second create is refused", r.stderr)
    r = run("add-account", store, "alice")
    check(r.returncode == 0 and "id 1" in r.stdout, "add-account", r.stdout + r.stderr)
    r = run("add-account", store, "alice")
    check(r.returncode == 1 and "exists" in r.stderr, "a duplicate account is refused", r.stderr)
    r = run("add-account", store, "bob", "--quota-messages", "5", "--quota-bytes", "100000000")
    check(r.returncode == 0, "add-account with quotas", r.stderr)
    r = run("add-account", store, "carol", "--quota-messages", "x")
    check(r.returncode == 2, "a bad number is a usage error", r.stderr)
    r = run("stats", os.path.join(WORK, "nothing"))
    check(r.returncode == 1 and "no store" in r.stderr, "a missing store is reported, not created",
          r.stderr)
    check(not os.path.exists(os.path.join(WORK, "nothing", "data.mdb")), "nothing was created")
    r = run("frobnicate", store)
    check(r.returncode == 2, "an unknown command is a usage error")

    # 2. import both forms, export, compare bytes.
    r = run("import", store, "alice", "INBOX", "--maildir", md)
    check(r.returncode == 0 and f"imported {COUNT} messages" in r.stdout,
          "import a Maildir", r.stdout + r.stderr)
    check("[" not in r.stderr, "no progress bar when standard error is not a terminal",
          r.stderr)
    r = run("import", store, "alice", "Archive", "--mbox", mbox)
    check(r.returncode == 0 and f"imported {COUNT} messages" in r.stdout,
          "import an mbox", r.stdout + r.stderr)
    out1, out2 = os.path.join(WORK, "export-inbox"), os.path.join(WORK, "export-archive")
    r = run("export", store, "alice", "INBOX", "--maildir", out1)
    check(r.returncode == 0 and f"exported {COUNT} messages" in r.stdout, "export INBOX",
          r.stdout + r.stderr)
    r = run("export", store, "alice", "Archive", "--maildir", out2)
    check(r.returncode == 0, "export Archive", r.stderr)
    src = maildir_files(md)
    e1, e2 = maildir_files(out1), maildir_files(out2)
    src_bodies = sorted(src.values())
    check(sorted(e1.values()) == src_bodies, "Maildir import and export keep every byte",
          f"{len(e1)} exported, {len(src)} source")
    check(sorted(e2.values()) == src_bodies,
          "mbox import (mboxrd unquoted, CRLF) exports the Maildir's bytes",
          f"{len(e2)} exported; first difference: " +
          next((repr(a[:200]) + " vs " + repr(b[:200])
                for a, b in zip(sorted(e2.values()), src_bodies) if a != b), "count"))
    by_body = {}
    for n, b in src.items():
        by_body.setdefault(b, []).append(n)
    flags_ok = dates_ok = True
    for n, b in e1.items():
        names = by_body.get(b, [])
        if not any(set(flags_of(s).replace("P", "")) == set(flags_of(n)) for s in names):
            flags_ok = False
        if not any(s.split(".", 1)[0] == n.split(".", 1)[0] for s in names):
            dates_ok = False
    check(flags_ok, "Maildir flags survive import and export (S R F T D; P has no IMAP flag)")
    check(dates_ok, "internal dates come from the Maildir names and go back into them")
    # Files in the export's cur/ carry the internal date as their time.
    some = next(iter(e1))
    st = os.stat(os.path.join(out1, "cur", some))
    check(int(st.st_mtime) == int(some.split(".", 1)[0]), "exported file time is the date")

    # 3. stats and verify.
    r = run("stats", store)
    stats = dict(re.findall(r"^([a-z ,]+): (\d+(?:\.\d+)?)$", r.stdout, re.M))
    check(r.returncode == 0 and stats.get("messages") == str(2 * COUNT) and
          stats.get("accounts") == "2" and stats.get("mailboxes") == "2",
          "stats counts accounts, mailboxes and messages", r.stdout + r.stderr)
    check(stats.get("blobs") == str(len(set(src.values()))),
          "identical bodies from the two imports share blobs", r.stdout)
    check(int(stats.get("bytes", 0)) == 2 * sum(len(b) for b in src.values()),
          "stats bytes is the sum of the message sizes", r.stdout)
    check(float(stats.get("compression ratio", 0)) > 1.2, "bodies are compressed", r.stdout)
    r = run("verify", store)
    check(r.returncode == 0 and "ok" in r.stdout, "verify passes on a good store", r.stderr)
    # Nothing was expunged, so there is nothing to collect (mailctl has no
    # expunge; libmailstore's tests collect released blobs).
    r = run("collect", store)
    check(r.returncode == 0 and r.stdout.strip() == "released 0 blob references" and
          stats.get("released, not collected") == "0",
          "collect on a store where nothing was expunged releases nothing", r.stdout + r.stderr)
    r = run("collect", store, "extra")
    check(r.returncode == 2, "collect with an extra argument is a usage error", r.stderr)
    r = run("collect", os.path.join(WORK, "nothing"))
    check(r.returncode == 1 and "no store" in r.stderr, "collect reports a missing store", r.stderr)
    r = run("stats", store)
    check(r.returncode == 0 and f"messages: {2 * COUNT}" in r.stdout, "collect kept every message",
          r.stdout)

    # 3b. Base64 bodies stored decoded: the same Maildir in a store with
    # them and one without (--no-transform); stats show the gain.
    sizes = {}
    for name, extra in (("xf", []), ("plain", ["--no-transform"])):
        path = os.path.join(WORK, "store-" + name)
        os.makedirs(path)
        r = run("create", path)
        r2 = run("add-account", path, "alice")
        r3 = run("import", path, "alice", "INBOX", "--maildir", md, *extra)
        check(r.returncode == 0 and r2.returncode == 0 and r3.returncode == 0,
              f"import into a store {name}", r3.stdout + r3.stderr)
        r = run("stats", path)
        sizes[name] = dict(re.findall(r"^([a-z ,]+): (\d+)", r.stdout, re.M))
    xf, plain = sizes["xf"], sizes["plain"]
    check(int(xf.get("decoded bodies", 0)) > 0 and int(xf.get("transformed blobs", 0)) > 0 and
          plain.get("decoded bodies") == "0" and plain.get("transformed blobs") == "0",
          "stats count the Base64 bodies stored decoded, none with --no-transform",
          f"{xf} {plain}")
    check(int(xf.get("blob bytes stored", 0)) < int(plain.get("blob bytes stored", 0)),
          "storing Base64 decoded makes the stored mail smaller",
          f"{plain.get('blob bytes stored')} -> {xf.get('blob bytes stored')}")
    r = run("verify", os.path.join(WORK, "store-xf"))
    check(r.returncode == 0, "verify passes with transformed blobs", r.stderr)
    r = run("recompress", os.path.join(WORK, "store-plain"), "--no-transform", "extra")
    check(r.returncode == 2, "recompress --no-transform with an extra argument is a usage error",
          r.stderr)

    # 4. quota stops an import part way.
    r = run("import", store, "bob", "INBOX", "--maildir", md)
    check(r.returncode == 1 and "imported 5 messages" in r.stdout and
          "quota" in r.stderr, "an import over quota stores what fits and names the rest",
          r.stdout + r.stderr[:500])
    r = run("verify", store)
    check(r.returncode == 0, "the store is consistent after the refused messages", r.stderr)

    # 5. damage: a message of random bytes is stored verbatim by zstd (it
    # cannot compress it), so its bytes can be found in data.mdb and one
    # flipped.
    rnd = random.Random(5)
    noise = bytes(rnd.randrange(256) for _ in range(6000))
    nd = os.path.join(WORK, "noise")
    for sub in ("cur", "new", "tmp"):
        os.makedirs(os.path.join(nd, sub))
    with open(os.path.join(nd, "cur", "1700000000.noise:2,S"), "wb") as f:
        f.write(b"Subject: noise\r\n\r\n" + noise)
    r = run("import", store, "alice", "Noise", "--maildir", nd)
    check(r.returncode == 0, "import a message of random bytes", r.stderr)
    bad = os.path.join(WORK, "damaged")
    shutil.copytree(store, bad)
    with open(os.path.join(bad, "data.mdb"), "r+b") as f:
        data = f.read()
        at = data.find(noise[3000:3064])
        check(at > 0, "the random bytes are found in the data file")
        f.seek(at)
        f.write(bytes([data[at] ^ 0xFF]))
    r = run("verify", bad)
    check(r.returncode == 1 and "FAILED" in r.stderr and "corrupt" in r.stderr and
          "content damaged" in r.stderr,
          "verify fails with a clear message naming the damaged blob", r.stdout + r.stderr)
    r = run("verify", store)
    check(r.returncode == 0, "the undamaged original still verifies", r.stderr)

    # 6. the progress bar on a terminal.
    master, slave = pty.openpty()
    p = subprocess.Popen([MAILCTL, "store", "import", store, "alice", "Again", "--maildir", md],
                         stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    seen = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    p.wait(timeout=120)
    os.close(master)
    check(p.returncode == 0 and b"\rimport [" in seen and b"100%" in seen,
          "a progress bar is drawn on a terminal", seen[-300:])

    # 6b. summarize: every message delivered by this library already has its
    # summary, so nothing is left to do; the bar is drawn on a terminal only.
    r = run("summarize", store)
    check(r.returncode == 0 and "summarized 0 messages" in r.stdout and "[" not in r.stderr,
          "summarize finds every summary stored at delivery", r.stdout + r.stderr)
    r = run("summarize", store, "extra")
    check(r.returncode == 2, "summarize with extra arguments is a usage error", r.stderr)
    r = run("summarize", os.path.join(WORK, "nothing"))
    check(r.returncode == 1 and "no store" in r.stderr, "summarize of a missing store", r.stderr)
    master, slave = pty.openpty()
    p = subprocess.Popen([MAILCTL, "store", "summarize", store], stdout=subprocess.PIPE,
                         stderr=slave)
    os.close(slave)
    seen = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    p.wait(timeout=120)
    os.close(master)
    check(p.returncode == 0 and b"\rsummarize [" in seen and b"100%" in seen,
          "summarize draws its bar on a terminal", seen[-300:])

    # 7. dictionaries.
    def stats_of(path):
        r = run("stats", path)
        return dict(re.findall(r"^([a-z ,]+): (\d+(?:\.\d+)?)", r.stdout, re.M))

    before = stats_of(store)
    check(before.get("dictionaries") == "0" and before.get("blobs with a dictionary") == "0",
          "no dictionary before training", before)
    r = run("train", store, "--recompress")
    check(r.returncode == 0 and "trained dictionary 1" in r.stdout and
          f"recompressed {before.get('blobs')} blobs" in r.stdout,
          "train --recompress trains dictionary 1 and re-encodes every blob",
          r.stdout + r.stderr)
    after = stats_of(store)
    check(after.get("dictionaries") == "1" and
          after.get("blobs with a dictionary") == before.get("blobs") and
          after.get("dictionary blob bytes raw") == before.get("blob bytes raw"),
          "stats report the dictionary and the blobs compressed with it", after)
    check(after.get("search queue") == after.get("messages"),
          "every imported message waits in the search queue", after)
    check(int(after.get("blob bytes stored", 0)) < int(before.get("blob bytes stored", 0)) and
          float(after.get("dictionary compression ratio", 0)) >
          float(before.get("compression ratio", 0)),
          "the dictionary makes the stored mail smaller",
          f"{before.get('blob bytes stored')} -> {after.get('blob bytes stored')}")
    r = run("verify", store)
    check(r.returncode == 0, "verify passes with dictionary blobs", r.stderr)
    out3 = os.path.join(WORK, "export-dict")
    r = run("export", store, "alice", "INBOX", "--maildir", out3)
    check(r.returncode == 0 and sorted(maildir_files(out3).values()) == src_bodies,
          "an export after recompression gives back every byte", r.stderr)
    r = run("recompress", store)
    check(r.returncode == 0 and "recompressed 0 blobs" in r.stdout,
          "recompress finds nothing left", r.stdout + r.stderr)
    empty = os.path.join(WORK, "empty")
    run("create", empty)
    r = run("train", empty)
    check(r.returncode == 1 and "too little stored mail" in r.stderr,
          "training an empty store fails with a clear message", r.stderr)
    r = run("train", store, "--samples")
    check(r.returncode == 2, "train with a missing number is a usage error", r.stderr)

    # 7b. a message larger than a chunk (256 KiB) is stored in chunks: stats
    # count it, verify checks it, export gives back its bytes.
    bigsrc = os.path.join(WORK, "big-maildir")
    for sub in ("cur", "new", "tmp"):
        os.makedirs(os.path.join(bigsrc, sub))
    rnd_big = random.Random(9)
    words = ["report", "budget", "the", "and", "meeting", "attached", "review"]
    big_body = ("Subject: big\r\n\r\n" + "".join(
        rnd_big.choice(words) + ("\r\n" if i % 11 == 10 else " ")
        for i in range(200000))).encode()
    with open(os.path.join(bigsrc, "cur", "3000.big.host:2,S"), "wb") as f:
        f.write(big_body)
    bigstore = os.path.join(WORK, "big-store")
    run("create", bigstore)
    run("add-account", bigstore, "bea")
    r = run("import", bigstore, "bea", "INBOX", "--maildir", bigsrc)
    check(r.returncode == 0 and "imported 1 messages" in r.stdout, "import a large message",
          r.stdout + r.stderr)
    st = stats_of(bigstore)
    check(len(big_body) > 4 * 262144 and st.get("chunked blobs") == "1" and
          st.get("chunked blob bytes raw") == str(len(big_body)) and
          int(st.get("chunked blob bytes stored", 0)) < len(big_body) // 2,
          "stats count the large message as a chunked blob", st)
    r = run("verify", bigstore)
    check(r.returncode == 0, "verify passes with a chunked blob", r.stderr)
    r = run("export", bigstore, "bea", "INBOX", "--maildir", os.path.join(WORK, "e-big"))
    check(r.returncode == 0 and
          list(maildir_files(os.path.join(WORK, "e-big")).values()) == [big_body],
          "a chunked message exports byte for byte", r.stderr)

    # 8. keywords through Maildir (dovecot-keywords letters) and the export
    # of a whole account as Maildir++.
    kwsrc = os.path.join(WORK, "kw-maildir")
    for sub in ("cur", "new", "tmp"):
        os.makedirs(os.path.join(kwsrc, sub))
    with open(os.path.join(kwsrc, "dovecot-keywords"), "w") as f:
        f.write("0 $Junk\n1 Work\n2 $Forwarded\n3 bad name\n")
    want = {}  # body -> (system flags, keyword names)
    rnd = random.Random(5)
    for i in range(40):
        letters = "".join(sorted(rnd.sample("abc", rnd.randrange(0, 4))))
        sysf = rnd.choice(["", "S", "FS", "R", "D", "T", "DFRST"])  # every system flag
        body = f"Subject: kw {i}\r\n\r\nbody {i}\r\n".encode()
        with open(os.path.join(kwsrc, "cur", f"{2000 + i}.K{i}.host:2,{sysf}{letters}"),
                  "wb") as f:
            f.write(body)
        names = {{"a": "$Junk", "b": "Work", "c": "$Forwarded"}[c] for c in letters}
        want[body] = (sysf, names)
    kwstore = os.path.join(WORK, "kw-store")
    run("create", kwstore)
    run("add-account", kwstore, "kim")
    r = run("import", kwstore, "kim", "INBOX", "--maildir", kwsrc)
    check(r.returncode == 0 and "imported 40 messages" in r.stdout and "bad name" in r.stderr,
          "a Maildir with dovecot-keywords imports; a bad keyword line is reported",
          r.stdout + r.stderr)
    run("import", kwstore, "kim", "Lists", "--maildir", kwsrc)
    r = run("import", kwstore, "kim", "Lists/dev", "--maildir", kwsrc)
    check(r.returncode == 0, "import into a second-level mailbox", r.stderr)

    def read_back(d):
        """{body: (system flags, keyword names)} of an exported Maildir."""
        table = {}
        kf = os.path.join(d, "dovecot-keywords")
        if os.path.exists(kf):
            for line in open(kf):
                n, name = line.rstrip("\n").split(" ", 1)
                table[chr(ord("a") + int(n))] = name
        got = {}
        for name, body in maildir_files(d).items():
            fl = flags_of(name)
            got[body] = ("".join(c for c in fl if c.isupper()),
                         {table[c] for c in fl if c.islower()})
        return got

    out4 = os.path.join(WORK, "export-account")
    r = run("export", kwstore, "kim", "--maildir", out4)
    check(r.returncode == 0 and "exported 120 messages" in r.stdout,
          "a whole account exports", r.stdout + r.stderr)
    for sub in ("", ".Lists", ".Lists.dev"):
        d = os.path.join(out4, sub) if sub else out4
        got = read_back(d) if os.path.isdir(d) else {}
        check(got == want, f"Maildir++ folder '{sub or 'INBOX'}' has every message with its "
              "flags and keywords", f"{len(got)} of {len(want)}")
    r = run("verify", kwstore)
    check(r.returncode == 0, "verify passes after importing keywords", r.stderr)
    r = run("export", kwstore, "kim", "Lists", "--maildir", os.path.join(WORK, "e5"))
    check(r.returncode == 0 and read_back(os.path.join(WORK, "e5")) == want,
          "a single mailbox exports its keywords too", r.stderr)
    # The exported tree imports back as a whole account, parents first.
    run("add-account", kwstore, "kim2")
    r = run("import", kwstore, "kim2", "--maildir", out4)
    check(r.returncode == 0 and "imported 120 messages" in r.stdout,
          "a Maildir++ tree imports into a whole account", r.stdout + r.stderr)
    out6 = os.path.join(WORK, "export-account-again")
    r = run("export", kwstore, "kim2", "--maildir", out6)
    same = r.returncode == 0 and all(
        read_back(os.path.join(out6, sub) if sub else out6) == want
        for sub in ("", ".Lists", ".Lists.dev"))
    check(same, "and exports again with the same flags and keywords", r.stdout + r.stderr)
    r = run("verify", kwstore)
    check(r.returncode == 0, "verify passes after the account import", r.stderr)

    shutil.rmtree(WORK, ignore_errors=True)
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
