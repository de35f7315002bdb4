#!/usr/bin/python3
"""test_cli_errors.py: the refusals of the `ftsearch` tool, printed as TAP.
test_cli.py and test_queue.py cover what it does when it succeeds.

Usage: test_cli_errors.py FTSEARCH WORKDIR

Every refused command must exit 2 for a usage error or 1 for a failure, say
on stderr what is wrong, print nothing on stdout (scripts read it) and leave
the index it names as it was: its file's bytes are compared before and after
each refusal, and account 7's stats and answers once all are done.
1. Usage: missing, extra and unknown arguments and options, bad --account
   numbers, unknown fields, store-side bounds (--batch, --workers).
2. Paths that are not an index (a directory, junk, an empty file, missing).
3. Input that cannot be read (missing or non-directory --mkcorpus and
   --maildir, a message that vanished), a store that cannot be opened, an
   unknown store account, an indexer lock held by someone else.
4. Queries that do not parse, at the offset of the problem, and the query
   limits (length, depth, terms, prefix expansion); a message too large for
   a batch is skipped with a message naming it while the others are indexed.

"""
import fcntl
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                "tests", "scripts"))
from corvid_tap import Tap  # noqa: E402

FTSEARCH, WORK = sys.argv[1:3]
tap = Tap()
USAGE, FAILURE = 2, 1

MESSAGES = {
    "a.eml": ("Alice <alice@example.org>", "quarterly budget review",
              "The budget for the harbour project is approved."),
    "b.eml": ("Carol <carol@example.org>", "lunch", "Shall we meet at the harbour for lunch?"),
    "c.eml": ("Dave <dave@example.org>", "Re: quarterly budget review",
              "Approved budgets need signatures."),
}
SNAPSHOT_QUERIES = ["harbour", "budget", "lunch", "zeppelin"]


def run(*args):
    return subprocess.run([FTSEARCH, *args], capture_output=True, text=True, timeout=60)


def write_message(path, sender, subject, body):
    with open(path, "w") as f:
        f.write(f"From: {sender}\nTo: bob@example.org\nSubject: {subject}\n"
                f"Date: Mon, 2 Nov 2026 10:00:00 +0000\n\n{body}\n")


def answers(index):
    """Account 7's stats and the answers to a few queries."""
    state = {"stats": run("stats", index, "--account", "7").stdout}
    for q in SNAPSHOT_QUERIES:
        state[q] = run("query", index, "--account", "7", q).stdout
    return state


def file_bytes(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return None


def refused(name, args, status, needles, index=None):
    """Runs ftsearch with args and checks a clean refusal: exit `status`,
    every needle on stderr, nothing on stdout, the bytes of `index` (the
    shared one unless given) unchanged. Opening an index without committing
    does not write its file, so the bytes are a strict and cheap witness."""
    index = index or INDEX
    before = file_bytes(index)
    p = run(*args)
    after = file_bytes(index)
    problems = []
    if p.returncode != status:
        problems.append(f"exit {p.returncode}, want {status}")
    problems += [f"stderr lacks {n!r}" for n in needles if n not in p.stderr]
    if p.stdout:
        problems.append(f"stdout not empty: {p.stdout[:200]!r}")
    if after != before:
        problems.append("the index file changed")
    return tap.check(not problems, name, "; ".join(problems) + f"\nstderr: {p.stderr[:400]}")


shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK + "/eml")
for file_name, fields in MESSAGES.items():
    write_message(f"{WORK}/eml/{file_name}", *fields)
INDEX = WORK + "/idx"
p = run("index", INDEX, "--account", "7", "--mkcorpus", WORK + "/eml")
if p.returncode != 0:
    print(f"Bail out! could not build the index: {p.stderr}")
    sys.exit(1)
base = answers(INDEX)
if "documents 3" not in base["stats"] or base["harbour"].split() != ["1", "2"]:
    print(f"Bail out! unexpected index: {base}")
    sys.exit(1)

# 1. Usage errors: exit 2, the usage or the problem on stderr.
refused("no arguments: usage, exit 2", [], USAGE, ["usage:"])
refused("a command without INDEX: usage, exit 2", ["stats"], USAGE, ["usage:"])
refused("an option in place of the command: usage, exit 2",
        ["--account", "7", "stats", INDEX], USAGE, ["usage:"])
refused("queue run without INDEX: usage, exit 2", ["queue", "run"], USAGE, ["usage:"])
refused("an unknown option is named, exit 2",
        ["stats", INDEX, "--account", "7", "--bogus"], USAGE, ["'--bogus'", "usage:"])
refused("an option without its value is named, exit 2",
        ["stats", INDEX, "--account"], USAGE, ["'--account' requires an argument"])
refused("stats with an extra argument: usage, exit 2",
        ["stats", INDEX, "--account", "7", "extra"], USAGE, ["usage:"])
refused("merge with an extra argument: usage, exit 2",
        ["merge", INDEX, "--account", "7", "extra"], USAGE, ["usage:"])
refused("query without QUERY: usage, exit 2", ["query", INDEX, "--account", "7"], USAGE,
        ["usage:"])
refused("query with two QUERY arguments: usage, exit 2",
        ["query", INDEX, "--account", "7", "harbour", "lunch"], USAGE, ["usage:"])
refused("index without --maildir or --mkcorpus: usage, exit 2",
        ["index", INDEX, "--account", "7"], USAGE, ["usage:"])
refused("an unknown command with INDEX and --account: usage, exit 2",
        ["frobnicate", INDEX, "--account", "7"], USAGE, ["usage:"])
for bad in ("-1", "4294967296", "99999999999999999999999"):
    refused(f"--account {bad} is refused, exit 2", ["stats", INDEX, "--account", bad], USAGE,
            ["--account"])
refused("--field with an unknown name is named, exit 2",
        ["query", INDEX, "--account", "7", "harbour", "--field", "nosuch"], USAGE,
        ["unknown field nosuch"])
refused("--field with an empty name, exit 2",
        ["query", INDEX, "--account", "7", "harbour", "--field", ""], USAGE, ["unknown field"])
p = run("stats", INDEX, "--help")
tap.check(p.returncode == 0 and p.stdout.startswith("usage:") and not p.stderr,
          "--help after a command prints the usage on stdout, exit 0",
          f"exit {p.returncode}, stderr {p.stderr!r}")

STORE = WORK + "/store"  # ms_store_open makes an empty store in an existing directory
os.makedirs(STORE)
refused("queue run --batch above 65536: usage, exit 2",
        ["queue", "run", INDEX, "--store", STORE, "--batch", "65537"], USAGE, ["usage:"])
refused("queue run --workers above 64: usage, exit 2",
        ["queue", "run", INDEX, "--store", STORE, "--workers", "65"], USAGE, ["usage:"])
refused("queue run with an extra argument: usage, exit 2",
        ["queue", "run", INDEX, "--store", STORE, "extra"], USAGE, ["usage:"])
refused("index --store without --account: usage, exit 2",
        ["index", INDEX, "--store", STORE], USAGE, ["usage:"])

# 2. Paths that are not an index: exit 1, the path and the reason.
not_index = WORK + "/not-index"
os.makedirs(not_index + "/dir")
with open(not_index + "/junk", "wb") as f:
    f.write(b"this is not an index\n" * 400)
open(not_index + "/empty", "wb").close()
junk = file_bytes(not_index + "/junk")
refused("stats on a directory: exit 1, named", ["stats", not_index + "/dir", "--account", "7"],
        FAILURE, [not_index + "/dir", "Is a directory"])
refused("stats on an empty file: exit 1, corrupt",
        ["stats", not_index + "/empty", "--account", "7"], FAILURE,
        [not_index + "/empty", "corrupt"])
refused("query on junk: exit 1, corrupt",
        ["query", not_index + "/junk", "--account", "7", "harbour"], FAILURE,
        [not_index + "/junk", "corrupt"])
refused("merge on junk: exit 1, corrupt", ["merge", not_index + "/junk", "--account", "7"],
        FAILURE, [not_index + "/junk", "corrupt"])
refused("index into junk: exit 1, corrupt",
        ["index", not_index + "/junk", "--account", "7", "--mkcorpus", WORK + "/eml"], FAILURE,
        [not_index + "/junk", "corrupt"])
tap.check(file_bytes(not_index + "/junk") == junk, "the junk file is left as it was")
# LMDB makes PATH-lock before it finds PATH is no index; nothing may be left.
left = sorted(n for n in os.listdir(not_index) if n.endswith("-lock")) + \
    sorted(n for n in os.listdir(WORK) if n.startswith("not-index") and n.endswith("-lock"))
tap.check(not left, "refused opens leave no lock file beside a directory, junk or empty file",
          f"left: {left}")
refused("query on a missing index: exit 1, named",
        ["query", WORK + "/none/idx", "--account", "7", "harbour"], FAILURE,
        [WORK + "/none/idx", "No such file"])
refused("stats on a missing file in an existing directory: exit 1, named",
        ["stats", WORK + "/missing-idx", "--account", "7"], FAILURE,
        [WORK + "/missing-idx", "No such file"])
tap.check(not os.path.exists(WORK + "/missing-idx-lock"),
          "stats on a missing file leaves no lock file")
refused("queue run with INDEX a directory: exit 1, named",
        ["queue", "run", not_index + "/dir", "--store", STORE], FAILURE,
        [not_index + "/dir", "Is a directory"])

# 3. Input that cannot be read, stores that cannot be opened.
refused("--mkcorpus a missing directory: exit 1, named",
        ["index", INDEX, "--account", "7", "--mkcorpus", WORK + "/nowhere"], FAILURE,
        [WORK + "/nowhere", "No such file"])
refused("--mkcorpus a regular file: exit 1, named",
        ["index", INDEX, "--account", "7", "--mkcorpus", WORK + "/eml/a.eml"], FAILURE,
        [WORK + "/eml/a.eml", "Not a directory"])
refused("--maildir a missing directory: exit 1, named",
        ["index", INDEX, "--account", "7", "--maildir", WORK + "/nowhere"], FAILURE,
        [WORK + "/nowhere", "No such file"])
# A failed run into a path that was no index leaves nothing there: the next
# run must not find an empty index and take it for a real one.
fresh = WORK + "/fresh-idx"
refused("index into a new path from a missing directory: exit 1, named",
        ["index", fresh, "--account", "7", "--mkcorpus", WORK + "/nowhere"], FAILURE,
        [WORK + "/nowhere", "No such file"], index=fresh)
tap.check(not os.path.exists(fresh) and not os.path.exists(fresh + "-lock"),
          "the failed index run left no index or lock file at the new path")
# A message listed and then unreadable (here a dangling link): the run fails
# before its only commit, so the new text of document 1 never replaces the old.
vanished = WORK + "/vanished"
os.makedirs(vanished)
write_message(vanished + "/a.eml", "Zed <zed@example.org>", "zeppelin", "zeppelin flight")
os.symlink(WORK + "/gone.eml", vanished + "/b.eml")
refused("a message that cannot be read: exit 1, named, nothing committed",
        ["index", INDEX, "--account", "7", "--mkcorpus", vanished], FAILURE,
        [vanished + "/b.eml", "No such file", "indexing failed"])
refused("--store a missing directory: exit 1, named",
        ["queue", "status", INDEX, "--store", WORK + "/nostore", "--account", "bob"], FAILURE,
        [WORK + "/nostore", "No such file"])
refused("--store a regular file: exit 1, named",
        ["queue", "run", INDEX, "--store", WORK + "/eml/a.eml"], FAILURE,
        [WORK + "/eml/a.eml", "Not a directory"])
refused("index --store with an unknown account: exit 1, named",
        ["index", INDEX, "--store", STORE, "--account", "nobody"], FAILURE,
        ["account nobody", "no such item"])
refused("index --store into a new path with an unknown account: exit 1, named",
        ["index", fresh, "--store", STORE, "--account", "nobody"], FAILURE,
        ["account nobody", "no such item"], index=fresh)
tap.check(not os.path.exists(fresh) and not os.path.exists(fresh + "-lock"),
          "the failed store-side run left no index or lock file at the new path")
with open(INDEX + ".indexer", "a") as lock:
    fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    refused("queue run while another indexer holds the index: exit 1, says so",
            ["queue", "run", INDEX, "--store", STORE], FAILURE,
            ["queue run stopped: another indexer is working on " + INDEX,
             INDEX + ".indexer is locked"])

# 4. Queries that do not parse, and limits.
for query, offset in (("harbour AND", 11), ("from:", 5), ("a)", 1), ("subject:-x", 8),
                      ('"unterminated', 0), ("", 0)):
    refused(f"query {query!r} does not parse: exit 2 at offset {offset}",
            ["query", INDEX, "--account", "7", query], USAGE,
            [f"malformed query at offset {offset}: {query}"])
deep = "(" * 40 + "harbour" + ")" * 40
refused("a query nested deeper than 32: exit 2, limit at offset 32",
        ["query", INDEX, "--account", "7", deep], USAGE, ["limit was exceeded at offset 32"])
many = " ".join(f"w{i}" for i in range(65))
refused("a query of 65 words: exit 2, limit",
        ["query", INDEX, "--account", "7", many], USAGE, ["limit was exceeded at offset"])
refused("a query longer than 4096 bytes: exit 2, limit at offset 4096",
        ["query", INDEX, "--account", "7", "x" * 5000], USAGE,
        ["limit was exceeded at offset 4096"])

limits = WORK + "/limits"
os.makedirs(limits + "/prefix")
write_message(limits + "/prefix/a.eml", "a@example.org", "many",
              " ".join(f"zq{i:05d}" for i in range(20001)))
prefix_index = limits + "/prefix.idx"
p = run("index", prefix_index, "--account", "7", "--mkcorpus", limits + "/prefix")
tap.check(p.returncode == 0, "an index with 20001 words of one prefix", p.stderr)
refused("a prefix expanding to over 20000 words: exit 1, limit",
        ["query", prefix_index, "--account", "7", "zq*"], FAILURE, ["limit was exceeded"],
        index=prefix_index)
got = run("query", prefix_index, "--account", "7", "zq0000*").stdout.split()
tap.check(got == ["1"], "a narrower prefix of the same index answers", f"got {got}")

# A field over the analyser's 1,000,000 words cannot enter any batch: b.eml
# comes after a.eml, so the batch is committed and the add retried before the
# message is given up, and c.eml is still indexed.
os.makedirs(limits + "/huge")
write_message(limits + "/huge/a.eml", *MESSAGES["a.eml"])
write_message(limits + "/huge/b.eml", "h@example.org", "huge", "word " * 1000001)
write_message(limits + "/huge/c.eml", *MESSAGES["b.eml"])
huge_index = limits + "/huge.idx"
p = run("index", huge_index, "--account", "7", "--mkcorpus", limits + "/huge")
tap.check(p.returncode == 0 and "huge/b.eml: a configured limit was exceeded, skipped" in p.stderr
          and "indexed 2 messages (1 skipped)" in p.stderr and not p.stdout,
          "a message too large for a batch is skipped by name, exit 0",
          f"exit {p.returncode}, stderr {p.stderr}")
got = run("query", huge_index, "--account", "7", "harbour").stdout.split()
tap.check(got == ["1", "3"], "the messages around the skipped one are indexed", f"got {got}")
shutil.rmtree(limits)


tap.check(answers(INDEX) == base, "after all the refusals the index gives the same answers",
          f"{base} -> {answers(INDEX)}")


# Numbers, merge's path, half a Maildir and a directory among the messages
# (each wrong before the commit that added these checks).
def strict_inputs():
    for bad in ("7x", "abc", ""):
        refused(f"--account {bad!r} is not a number: exit 2", ["stats", INDEX, "--account", bad],
                USAGE, ["--account"])
    for bad in ("-1", "1x"):
        refused(f"--top {bad!r} is refused: exit 2",
                ["query", INDEX, "--account", "7", "harbour", "--top", bad], USAGE, ["--top"])
    refused("--first-id 4294967296 is refused: exit 2",
            ["index", INDEX, "--account", "7", "--mkcorpus", WORK + "/eml", "--first-id",
             "4294967296"], USAGE, ["--first-id"])
    refused("--first-id that would wrap past 4294967295 is refused: exit 2",
            ["index", INDEX, "--account", "7", "--mkcorpus", WORK + "/eml", "--first-id",
             "4294967295"], USAGE, ["--first-id 4294967295"])
    refused("--batch 0 is refused: exit 2",
            ["index", INDEX, "--account", "7", "--mkcorpus", WORK + "/eml", "--batch", "0"],
            USAGE, ["bad value for --batch: 0"])
    refused("--batch x is refused: exit 2",
            ["index", INDEX, "--account", "7", "--mkcorpus", WORK + "/eml", "--batch", "x"],
            USAGE, ["--batch"])
    refused("--workers 4294967297 is refused: exit 2",
            ["queue", "run", INDEX, "--store", STORE, "--workers", "4294967297"], USAGE,
            ["bad value for --workers: 4294967297"])
    missing = WORK + "/typo.idx"
    refused("merge on a missing index: exit 1", ["merge", missing, "--account", "7"], FAILURE,
            [missing])
    tap.check(not os.path.exists(missing), "merge on a missing index creates no index")
    maildir = WORK + "/halfmaildir"
    os.makedirs(maildir + "/cur")
    refused("--maildir without new/ names the missing new/",
            ["index", INDEX, "--account", "7", "--maildir", maildir], FAILURE, [maildir + "/new"])
    withdir = WORK + "/withdir"
    os.makedirs(withdir + "/sub.eml")
    write_message(withdir + "/a.eml", *MESSAGES["a.eml"])
    p = run("index", WORK + "/withdir.idx", "--account", "7", "--mkcorpus", withdir)
    tap.check("indexed 1 messages" in p.stderr,
              "a directory among the messages is not indexed as a message", p.stderr)


strict_inputs()

shutil.rmtree(WORK, ignore_errors=True)
sys.exit(tap.done())
