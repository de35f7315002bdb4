#!/usr/bin/python3
"""test_cli.py: the file side of the `ftsearch` tool (index --mkcorpus and
--maildir, query, stats, merge) over real indexes on disk, printed as TAP.
test_queue.py covers the store side.

Usage: test_cli.py FTSEARCH WORKDIR

The messages are written here, so every expected document is known:
1. index --mkcorpus numbers the .eml files from 1 in name order; queries
   (words, stems, phrases, prefixes, OR, NOT, fields, --field, --count,
   --top with scores, --explain) find exactly the messages that hold them.
2. index --maildir into a second account reads cur/ then new/ and numbers
   from --first-id; the first account's answers do not change.
3. stats counts the documents and words per field; merge with nothing
   deleted rewrites no block.
4. Refusals: a malformed query and missing options (exit 2), a missing
   index (exit 1).
"""
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                "tests", "scripts"))
from corvid_tap import Tap  # noqa: E402

FTSEARCH, WORK = sys.argv[1:3]
tap = Tap()

MESSAGES = {
    "a.eml": ("Alice <alice@example.org>", "bob@example.org", "quarterly budget review",
              "The budget for the harbour project is approved."),
    "b.eml": ("Carol <carol@example.org>", "bob@example.org", "lunch",
              "Shall we meet at the harbour for lunch?"),
    "c.eml": ("Dave <dave@example.org>", "alice@example.org", "Re: quarterly budget review",
              "Approved budgets need signatures."),
}


def check(name, ok, detail=""):
    return tap.check(ok, name, detail)


def run(*args, expect=0):
    p = subprocess.run([FTSEARCH, *args], capture_output=True, text=True, timeout=60)
    if p.returncode != expect:
        check(f"ftsearch {' '.join(args)} exits {expect}", False,
              f"exit {p.returncode}, stderr {p.stderr}")
    return p


def write_message(path, sender, to, subject, body):
    with open(path, "w") as f:
        f.write(f"From: {sender}\nTo: {to}\nSubject: {subject}\n"
                f"Date: Mon, 2 Nov 2026 10:00:00 +0000\n\n{body}\n")


def ids(index, account, query, *opts):
    out = run("query", index, "--account", str(account), query, *opts).stdout
    return [int(line) for line in out.split()]


shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK + "/eml")
for name, fields in MESSAGES.items():
    write_message(f"{WORK}/eml/{name}", *fields)
index = WORK + "/idx"

# 1. index --mkcorpus and queries with known answers.
p = run("index", index, "--account", "7", "--mkcorpus", WORK + "/eml")
check("index --mkcorpus indexes the three messages",
      p.returncode == 0 and "indexed 3 messages (0 skipped)" in p.stderr, p.stderr)
expect = {
    "harbour": [1, 2],
    "budget": [1, 3],  # "budgets" in c.eml stems to "budget"
    '"budget review"': [1, 3],
    '"review budget"': [],
    "harb*": [1, 2],
    "lunch OR signatures": [2, 3],
    "harbour -lunch": [1],
    "harbour NOT lunch": [1],
    "(lunch OR approved) AND harbour": [1, 2],
    "from:alice": [1],
    "to:alice": [3],
    "subject:lunch": [2],
    "nowhere": [],
}
for query, want in expect.items():
    got = ids(index, 7, query)
    check(f"query {query!r} finds {want}", got == want, f"got {got}")
check("--field subject limits the words to the subject",
      ids(index, 7, "harbour", "--field", "subject") == []
      and ids(index, 7, "lunch", "--field", "subject") == [2])
count = run("query", index, "--account", "7", "budget", "--count").stdout.split()
check("--count prints the number of documents", count == ["2"], f"got {count}")
top = run("query", index, "--account", "7", "budget", "--top", "1").stdout.split("\n")
doc, score = (top[0].split("\t") + [""])[:2]
check("--top 1 prints one of the documents with a positive score",
      len([t for t in top if t]) == 1 and doc in ("1", "3") and float(score or 0) > 0, f"{top}")
explain = run("query", index, "--account", "7", '"budget review"', "--explain").stderr
check("--explain describes the phrase and its documents",
      'phrase "budget review"' in explain and "2 documents" in explain, explain)

# 2. A Maildir into account 8, numbered from --first-id.
maildir = WORK + "/maildir"
for sub in ("cur", "new", "tmp"):
    os.makedirs(f"{maildir}/{sub}")
write_message(f"{maildir}/new/1.host", "Eve <eve@example.org>", "bob@example.org",
              "harbour tour", "The harbour tour starts at noon.")
write_message(f"{maildir}/cur/2.host:2,S", "Frank <frank@example.org>", "bob@example.org",
              "minutes", "Minutes of the meeting.")
p = run("index", index, "--account", "8", "--maildir", maildir, "--first-id", "100")
check("index --maildir indexes cur/ and new/", p.returncode == 0
      and "indexed 2 messages" in p.stderr, p.stderr)
check("--first-id numbers cur/ first, then new/",
      ids(index, 8, "minutes") == [100] and ids(index, 8, "harbour") == [101])
check("accounts are separate", ids(index, 7, "harbour") == [1, 2]
      and ids(index, 7, "minutes") == [] and ids(index, 8, "budget") == [])

# 3. stats and merge.
stats = dict(line.split(" ", 1) for line in
             run("stats", index, "--account", "7").stdout.splitlines() if " " in line)
check("stats counts 3 documents, none deleted",
      stats.get("documents") == "3" and stats.get("deleted") == "0", f"{stats}")
check("stats counts words per field",
      all(int(stats.get(f"words.{f}", "0")) > 0 for f in ("from", "to", "subject", "body")),
      f"{stats}")
p = run("merge", index, "--account", "7")
check("merge with nothing deleted rewrites no block", "0 blocks rewritten" in p.stderr, p.stderr)
check("the answers are the same after merge", ids(index, 7, "harbour") == [1, 2])

# 4. Refusals.
p = run("query", index, "--account", "7", "(", expect=2)
check("a malformed query exits 2 and says where",
      p.returncode == 2 and "malformed query at offset" in p.stderr, p.stderr)
p = run("query", index, expect=2)
check("a query without --account exits 2", p.returncode == 2 and "--account" in p.stderr)
p = run("frobnicate", expect=2)
check("an unknown command exits 2 with the usage", p.returncode == 2 and "usage:" in p.stderr)
p = run("stats", WORK + "/none/idx", "--account", "1", expect=1)
check("a missing index exits 1", p.returncode == 1 and "No such file" in p.stderr, p.stderr)

sys.exit(tap.done())
