#!/usr/bin/python3
"""test_mailctl_errors.py: checks how `mailctl store` refuses what it cannot
do, and prints TAP.

Usage: test_mailctl_errors.py MAILCTL WORKDIR

mailctl.c promises exit status 2 for a usage error and 1 for a failed
operation, with the message on standard error. Every refusal here is
checked for its status, for a message naming the problem, for an empty
standard output where the command prints nothing on failure, and for a
store left as it was (stats output identical, verify still passing).

1. Usage errors: missing, extra and unknown arguments and options, bad
   quota and sample numbers, for every command.
2. Store paths that are not stores: a regular file, a missing path, an
   empty directory, a directory whose data.mdb is not LMDB.
3. Unknown accounts and mailboxes, and names the store refuses.
4. Import sources of the wrong shape: a file where a Maildir is expected,
   a Maildir without cur/ or new/, an mbox without a From_ line, an mbox
   that is a directory, an empty mbox, an mbox of one empty message,
   unreadable entries in cur/, a keyword letter dovecot-keywords does not
   define, a Maildir++ folder whose name is no mailbox name.
5. Export destinations that cannot be written: a regular file, a missing
   parent, a tmp/ that is a file, a cur/ entry or dovecot-keywords that is
   a directory, a mailbox whose name Maildir++ cannot hold; and the
   warning for keywords beyond the 26 Maildir letters.
6. Export from a store whose stored blob no longer decompresses.
"""
import os
import random
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                "tests", "scripts"))
from corvid_tap import Tap  # noqa: E402

MAILCTL, WORK = sys.argv[1], sys.argv[2]

tap = Tap(diag_lines=20)
check = tap.check


def mailctl(*args):
    # A command that hangs is a failed case, not a lost TAP stream.
    try:
        return subprocess.run([MAILCTL, *args], capture_output=True, text=True, timeout=20)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(args, -1, "", "(timed out after 20 s)")


def run(*args):
    return mailctl("store", *args)


def show(r):
    return f"status {r.returncode}\nstdout: {r.stdout}\nstderr: {r.stderr}"


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def maildir(path, files, keywords=None):
    """A Maildir at path with files {name in cur/: bytes}."""
    for sub in ("cur", "new", "tmp"):
        os.makedirs(os.path.join(path, sub), exist_ok=True)
    for name, data in files.items():
        write(os.path.join(path, "cur", name), data)
    if keywords is not None:
        write(os.path.join(path, "dovecot-keywords"), keywords.encode())
    return path


def tree(path):
    """Every file and directory under path, relative, sorted."""
    out = []
    for root, dirs, files in os.walk(path):
        for n in dirs + files:
            out.append(os.path.relpath(os.path.join(root, n), path))
    return sorted(out)


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)

    def w(*parts):
        return os.path.join(WORK, *parts)

    # The store every refusal must leave alone: one account with a mailbox
    # holding two messages, one of them with a keyword.
    store = w("store")
    src = maildir(w("src"), {
        "1700000000.one:2,S": b"Subject: one\r\n\r\nfirst\r\n",
        "1700000001.two:2,Fa": b"Subject: two\r\n\r\nsecond\r\n",
    }, "0 Work\n")
    setup = [run("create", store), run("add-account", store, "alice"),
             run("import", store, "alice", "INBOX", "--maildir", src)]
    check(all(r.returncode == 0 for r in setup), "a small store to refuse things on",
          "\n".join(show(r) for r in setup))

    def stats():
        r = run("stats", store)
        return r.stdout if r.returncode == 0 else show(r)

    baseline = stats()

    def unchanged(what):
        now, v = stats(), run("verify", store)
        check(now == baseline and v.returncode == 0,
              f"{what}: the store is unchanged and still verifies",
              f"{show(v)}\nbefore:\n{baseline}\nafter:\n{now}")

    def field(name):
        for line in stats().splitlines():
            if line.startswith(name + ": "):
                return line.split(": ", 1)[1]
        return None

    # 1. Usage errors: status 2, the usage on standard error, nothing on
    # standard output.
    usage_cases = [
        ([], "no command"),
        (["create"], "create without a path"),
        (["create", w("a"), w("b")], "create with two paths"),
        (["add-account", store], "add-account without a name"),
        (["add-account", store, "carol", "--quota-files", "3"], "add-account, unknown option"),
        (["add-account", store, "carol", "--quota-bytes"],
         "add-account, option without its number"),
        (["add-account", store, "carol", "--quota-bytes", "-1"], "add-account, negative quota"),
        (["add-account", store, "carol", "--quota-messages", "12abc"],
         "add-account, quota with trailing letters"),
        (["add-account", store, "carol", "--quota-messages", ""], "add-account, empty quota"),
        (["add-account", store, "carol", "--quota-bytes", "18446744073709551616"],
         "add-account, quota beyond 64 bits"),
        (["import", store], "import with only a path"),
        (["import", store, "alice", "INBOX", "--maildir"], "import, --maildir without its DIR"),
        (["import", store, "alice", "INBOX", "--tar", src], "import, unknown source option"),
        (["import", store, "alice", "--mbox", w("x.mbox")],
         "import of a whole account from an mbox"),
        (["import", store, "alice", "INBOX", "--maildir", src, "extra"], "import, extra argument"),
        (["import", store, "alice", "INBOX", "--maildir", src, "--no-transform", "--no-transform"],
         "import, --no-transform twice"),
        (["export", store, "alice"], "export without a destination"),
        (["export", store, "alice", "INBOX", "--mbox", w("out")], "export to an mbox"),
        (["export", store, "alice", "INBOX", "extra", "--maildir", w("out")],
         "export, extra argument"),
        (["stats"], "stats without a path"),
        (["stats", store, "extra"], "stats, extra argument"),
        (["verify"], "verify without a path"),
        (["verify", store, store], "verify with two paths"),
        (["collect"], "collect without a path"),
        (["train"], "train without a path"),
        (["train", store, "--fast"], "train, unknown option"),
        (["train", store, "--samples", "many"], "train, --samples not a number"),
        (["train", store, "--samples", "-3"], "train, negative --samples"),
        (["recompress"], "recompress without a path"),
        (["summarize"], "summarize without a path"),
    ]
    for args, what in usage_cases:
        r = run(*args)
        check(r.returncode == 2 and r.stderr.startswith("usage: mailctl store") and
              r.stdout == "", f"usage error: {what}", show(r))
    check(not os.path.exists(w("a")) and not os.path.exists(w("out")),
          "usage errors create nothing")
    r = run("frobnicate", store)
    check(r.returncode == 2 and "unknown command 'frobnicate'" in r.stderr and r.stdout == "",
          "an unknown command is named", show(r))
    r = mailctl()
    check(r.returncode == 2 and r.stderr.startswith("usage: mailctl GROUP") and r.stdout == "",
          "mailctl without a group is a usage error", show(r))
    r = mailctl("frobnicate")
    check(r.returncode == 2 and "unknown group 'frobnicate'" in r.stderr and r.stdout == "",
          "an unknown group is named", show(r))
    r = run("--help")
    check(r.returncode == 0 and r.stdout.startswith("usage: mailctl store") and r.stderr == "",
          "store --help prints the usage on standard output", show(r))
    unchanged("after the usage errors")

    # 2. Paths that hold no store. A typo must never create one (only
    # create does), and a file that is there must not be touched.
    afile = w("afile")
    write(afile, b"not a store\n")
    for args in (["stats", afile], ["verify", afile], ["collect", afile], ["summarize", afile],
                 ["recompress", afile], ["train", afile], ["add-account", afile, "dan"],
                 ["import", afile, "alice", "INBOX", "--maildir", src],
                 ["export", afile, "alice", "INBOX", "--maildir", w("e0")]):
        r = run(*args)
        check(r.returncode == 1 and f"{afile}: no store there (Not a directory)" in r.stderr and
              r.stdout == "", f"{args[0]} on a regular file: no store there", show(r))
    check(read(afile) == b"not a store\n" and not os.path.exists(w("e0")),
          "the regular file is untouched and nothing was exported")
    r = run("create", afile)
    check(r.returncode == 1 and f"cannot create {afile}: Not a directory" in r.stderr and
          r.stdout == "", "create on a regular file fails", show(r))
    check(read(afile) == b"not a store\n", "create left the regular file alone")
    r = run("create", w("no-parent", "store"))
    check(r.returncode == 1 and "cannot create" in r.stderr and
          "No such file or directory" in r.stderr and r.stdout == "",
          "create under a missing directory fails", show(r))
    check(not os.path.exists(w("no-parent")), "and creates nothing")
    os.makedirs(w("emptydir"))
    r = run("verify", w("emptydir"))
    check(r.returncode == 1 and "no store there (No such file or directory)" in r.stderr and
          r.stdout == "", "verify of an empty directory: no store there", show(r))
    check(os.listdir(w("emptydir")) == [], "and the directory stays empty")
    # A data.mdb that is not LMDB: refused by the library, bytes untouched.
    noise = bytes((i * 7919 + 13) % 251 for i in range(20000))
    write(w("garbage", "data.mdb"), noise)
    for cmd in ("verify", "stats"):
        r = run(cmd, w("garbage"))
        check(r.returncode == 1 and f"cannot open {w('garbage')}: store is corrupt" in r.stderr and
              r.stdout == "", f"{cmd} of a data.mdb that is not a store", show(r))
    check(read(w("garbage", "data.mdb")) == noise, "the foreign data.mdb is left as it was")
    # An empty (truncated) data.mdb is no store: LMDB would make it a new one.
    write(w("truncated", "data.mdb"), b"")
    r = run("verify", w("truncated"))
    check(r.returncode == 1 and os.path.getsize(w("truncated", "data.mdb")) == 0 and
          f"{w('truncated')}: no store there (data.mdb is empty)" in r.stderr,
          "verify of an empty data.mdb fails and leaves it empty",
          f"{show(r)}\nsize now {os.path.getsize(w('truncated', 'data.mdb'))}")

    # 3. Unknown accounts and mailboxes, and refused names (from sources
    # that can be read: a source is opened before the mailbox is looked up).
    one_mbox = w("one.mbox")
    write(one_mbox, b"From a@b Mon Jan  1 00:00:00 2024\nSubject: s\n\nb\n")
    for args, what, needle in (
            (["import", store, "bob", "INBOX", "--maildir", src], "import into an unknown account",
             "account bob: no such item"),
            (["import", store, "bob", "--maildir", src],
             "whole-account import into an unknown account", "account bob: no such item"),
            (["import", store, "alice", "a//b", "--maildir", src],
             "import into a bad mailbox name", "mailbox a//b of alice: invalid argument"),
            (["import", store, "alice", "", "--mbox", one_mbox], "import into an empty mailbox name",
             "mailbox  of alice: invalid argument"),
            (["export", store, "bob", "INBOX", "--maildir", w("e1")],
             "export from an unknown account", "account bob: no such item"),
            (["export", store, "bob", "--maildir", w("e1")],
             "whole-account export from an unknown account", "account bob: no such item"),
            (["export", store, "alice", "Nope", "--maildir", w("e1")],
             "export of an unknown mailbox", "mailbox Nope of alice: no such item")):
        r = run(*args)
        check(r.returncode == 1 and f"{store}: {needle}" in r.stderr and r.stdout == "",
              f"{what} is refused", show(r))
    check(not os.path.exists(w("e1")), "a refused export creates no destination")
    r = run("add-account", store, "")
    check(r.returncode == 2 and "add-account: the account name is empty" in r.stderr and
          r.stdout == "", "an empty account name is refused as a usage error", show(r))
    unchanged("after the unknown names")

    # 4. Import sources of the wrong shape. None may store a message; each
    # names the path and why.
    messages = field("messages")
    mailboxes = field("mailboxes")
    os.makedirs(w("nocur", "new"))
    os.makedirs(w("nonew", "cur"))
    write(w("nonew", "cur", "1700000005.x:2,S"), b"Subject: x\r\n\r\nx\r\n")
    write(w("nofrom.mbox"), b"Subject: no envelope\n\nbody\n")
    write(w("blankfirst.mbox"), b"\nFrom a@b Mon Jan  1 00:00:00 2024\nSubject: s\n\nb\n")
    for i, (opt, path, needle, what) in enumerate((
            ("--maildir", afile, f"{afile}/cur: Not a directory", "a regular file as Maildir"),
            ("--maildir", w("missing"), f"{w('missing')}/cur: No such file or directory",
             "a missing Maildir"),
            ("--maildir", w("nocur"), f"{w('nocur')}/cur: No such file or directory",
             "a Maildir without cur/"),
            ("--maildir", w("nonew"), f"{w('nonew')}/new: No such file or directory",
             "a Maildir without new/"),
            ("--mbox", w("nofrom.mbox"),
             f"{w('nofrom.mbox')}: not an mbox (no From_ line at byte 0)",
             "an mbox without a From_ line"),
            ("--mbox", w("blankfirst.mbox"),
             f"{w('blankfirst.mbox')}: not an mbox (no From_ line at byte 0)",
             "an mbox starting with an empty line"),
            ("--mbox", w("missing.mbox"), f"{w('missing.mbox')}: No such file or directory",
             "a missing mbox"),
            ("--mbox", src, f"import: {src}: not a file", "a directory as mbox"))):
        r = run("import", store, "alice", f"Box{i}", opt, path)
        check(r.returncode == 1 and needle in r.stderr and r.stdout == "",
              f"import from {what} fails, naming it", show(r))
        check(field("messages") == messages and run("verify", store).returncode == 0,
              f"import from {what} stores nothing")
    # The source is opened before the mailbox is made.
    check(field("mailboxes") == mailboxes,
              "a refused import creates no mailbox", f"{mailboxes} -> {field('mailboxes')}")
    baseline = stats()

    r = run("import", store, "alice", "--maildir", w("missing"))
    check(r.returncode == 1 and f"import: {w('missing')}: No such file or directory" in r.stderr,
          "a whole-account import from a missing directory fails, naming it", show(r))
    unchanged("after the whole-account import from nothing")

    # An empty mbox is an mbox with no messages: not an error.
    write(w("empty.mbox"), b"")
    r = run("import", store, "alice", "INBOX", "--mbox", w("empty.mbox"))
    check(r.returncode == 0 and "imported 0 messages" in r.stdout and r.stderr == "",
          "an empty mbox imports nothing and succeeds", show(r))
    unchanged("after the empty mbox")

    # A From_ line with nothing after it is an empty message: skipped.
    write(w("fromonly.mbox"), b"From a@b Mon Jan  1 00:00:00 2024\n")
    r = run("import", store, "alice", "INBOX", "--mbox", w("fromonly.mbox"))
    check(r.returncode == 0 and "imported 0 messages" in r.stdout and r.stderr == "",
          "an mbox of one empty message imports nothing", show(r))
    unchanged("after the mbox of one empty message")

    # Entries of cur/ that cannot be read are named and counted; the rest
    # imports and the status says something failed.
    bad = maildir(w("badentries"), {"1700000010.good:2,S": b"Subject: good\r\n\r\ngood\r\n"})
    os.symlink(w("nowhere"), os.path.join(bad, "cur", "1700000011.dangling:2,S"))
    os.makedirs(os.path.join(bad, "cur", "1700000012.adir:2,S"))
    os.mkfifo(os.path.join(bad, "cur", "1700000013.fifo:2,S"))
    r = run("import", store, "alice", "INBOX", "--maildir", bad)
    check(r.returncode == 1 and "imported 1 messages" in r.stdout and "3 failed" in r.stdout and
          f"{bad}/cur/1700000011.dangling:2,S: No such file or directory" in r.stderr and
          f"{bad}/cur/1700000012.adir:2,S: Is a directory" in r.stderr and
          f"{bad}/cur/1700000013.fifo:2,S: not a regular file" in r.stderr,
          "unreadable Maildir entries are named and counted, the rest imported", show(r))
    check(int(field("messages")) == int(messages) + 1 and
          run("verify", store).returncode == 0, "exactly the readable message was stored")

    # A keyword letter without a dovecot-keywords line: the message is
    # stored, the keyword is not, and the status says so.
    kwless = maildir(w("kwless"), {"1700000020.k:2,Sb": b"Subject: k\r\n\r\nk\r\n"}, "0 Work\n")
    r = run("import", store, "alice", "INBOX", "--maildir", kwless)
    check(r.returncode == 1 and "imported 1 messages" in r.stdout and
          "1 without some keyword" in r.stdout,
          "a keyword letter dovecot-keywords does not define fails the import", show(r))
    check("keyword letter b is not in dovecot-keywords: 1 messages stored without it" in r.stderr,
          "the undefined keyword letter is named on standard error", show(r))

    # A Maildir++ folder whose name makes no mailbox name (".a..b" is
    # "a//b"): refused and named.
    maildir(w("badtree"), {})
    maildir(w("badtree", ".a..b"), {"1700000030.t:2,S": b"Subject: t\r\n\r\nt\r\n"})
    before = field("messages")
    r = run("import", store, "alice", "--maildir", w("badtree"))
    check(r.returncode == 1 and "import: mailbox a//b: invalid argument" in r.stderr,
          "a Maildir++ folder with no valid mailbox name is refused", show(r))
    check(field("messages") == before and run("verify", store).returncode == 0,
          "and none of its messages is stored")
    baseline = stats()

    # 5. Export destinations. The single-mailbox export of INBOX is known
    # good; its file names tell where the files would go.
    r = run("export", store, "alice", "INBOX", "--maildir", w("good"))
    names = sorted(os.listdir(w("good", "cur"))) if r.returncode == 0 else []
    check(r.returncode == 0 and len(names) == int(field("messages")), "a good export first",
          show(r))
    for args, what in ((["INBOX", "--maildir", afile], "a mailbox"),
                       (["--maildir", afile], "a whole account")):
        r = run("export", store, "alice", *args)
        check(r.returncode == 1 and f"cannot create {afile}/cur: Not a directory" in r.stderr and
              r.stdout == "", f"export of {what} to a regular file fails", show(r))
    check(read(afile) == b"not a store\n", "the regular file is untouched by the exports")
    r = run("export", store, "alice", "INBOX", "--maildir", w("no-parent", "out"))
    check(r.returncode == 1 and f"cannot create {w('no-parent', 'out')}: No such file" in r.stderr
          and r.stdout == "", "export under a missing directory fails", show(r))

    # tmp/ is a file: no message can be written through it.
    os.makedirs(w("tmpfile", "cur"))
    write(w("tmpfile", "tmp"), b"")
    r = run("export", store, "alice", "INBOX", "--maildir", w("tmpfile"))
    check(r.returncode == 1 and f"{names[0]}: Not a directory" in r.stderr and r.stdout == "",
          "export through a tmp/ that is a file fails, naming the message", show(r))
    check(os.listdir(w("tmpfile", "cur")) == [], "and delivers nothing to cur/")
    check(f"{w('tmpfile')}/tmp/{names[0]}: Not a directory" in r.stderr,
          "the failing tmp/ path is the one named", show(r))

    # cur/NAME is a directory: the final rename fails.
    os.makedirs(w("curdir", "cur", names[0]))
    r = run("export", store, "alice", "INBOX", "--maildir", w("curdir"))
    check(r.returncode == 1 and f"{w('curdir')}/cur/{names[0]}: Is a directory" in r.stderr and
          r.stdout == "", "export onto a directory in cur/ fails, naming it", show(r))
    check(os.listdir(w("curdir", "tmp")) == [],
          "a failed rename leaves nothing in tmp/", tree(w("curdir")))

    # dovecot-keywords is a directory, or its temporary file cannot be made.
    os.makedirs(w("kwdir", "dovecot-keywords"))
    r = run("export", store, "alice", "INBOX", "--maildir", w("kwdir"))
    check(r.returncode == 1 and f"{w('kwdir')}/dovecot-keywords: Is a directory" in r.stderr and
          r.stdout == "", "export onto a dovecot-keywords directory fails, naming it", show(r))
    check(os.listdir(w("kwdir", "tmp")) == [], "and leaves no temporary keyword file")
    os.makedirs(w("kwtmp", "tmp", "dovecot-keywords.mailctl"))
    r = run("export", store, "alice", "INBOX", "--maildir", w("kwtmp"))
    check(r.returncode == 1 and
          f"{w('kwtmp')}/tmp/dovecot-keywords.mailctl: Is a directory" in r.stderr and
          r.stdout == "", "export whose keyword file cannot be made fails, naming it", show(r))
    check(not os.path.exists(w("kwtmp", "dovecot-keywords")), "and writes no keyword file")

    unchanged("after the refused exports")

    # A mailbox name with '.' has no Maildir++ folder.
    r = run("import", store, "alice", "a.b", "--maildir", src)
    check(r.returncode == 0, "a mailbox named a.b", show(r))
    r = run("export", store, "alice", "--maildir", w("dotted"))
    check(r.returncode == 1 and "mailbox a.b: '.' cannot be kept in Maildir++" in r.stderr and
          r.stdout == "", "a whole-account export refuses a mailbox name with '.'", show(r))
    # Every name is checked before the first folder is written.
    check(not os.path.exists(w("dotted")),
          "a refused whole-account export writes nothing", tree(w("dotted")))
    r = run("export", store, "alice", "a.b", "--maildir", w("dotted-one"))
    check(r.returncode == 0 and len(os.listdir(w("dotted-one", "cur"))) == 2,
          "while that mailbox alone exports", show(r))

    # More keywords in a folder than Maildir's 26 letters: the export
    # succeeds, says how many settings it left out, and defines 26.
    many = []
    for n in (1, 2):
        kw = "".join(f"{i} K{n}x{i}\n" for i in range(26))
        many.append(maildir(w(f"many{n}"), {
            f"170000004{n}.m:2,{''.join(chr(97 + i) for i in range(26))}":
                f"Subject: m{n}\r\n\r\nm\r\n".encode()}, kw))
    ok = all(run("import", store, "alice", "Many", "--maildir", m).returncode == 0 for m in many)
    r = run("export", store, "alice", "Many", "--maildir", w("many-out"))
    lines = read(w("many-out", "dovecot-keywords")).splitlines() if r.returncode == 0 else []
    check(ok and r.returncode == 0 and "exported 2 messages" in r.stdout and
          "26 keyword settings beyond the 26 Maildir letters" in r.stderr and len(lines) == 26,
          "52 keywords in a folder: 26 exported, the rest reported", show(r))
    r = run("verify", store)
    check(r.returncode == 0, "the store verifies at the end", show(r))

    # 6. A store whose only blob no longer decompresses: export stops with
    # the library's verdict and writes no message. The blob is found by the
    # zstd frame magic (the store holds no other frame) and bytes inside
    # the frame are inverted.
    dz = w("damaged")
    body = b"Subject: words\r\n\r\n" + b"".join(
        b"line %d of the quarterly report\r\n" % i for i in range(300))
    one = maildir(w("one"), {"1700000050.z:2,S": body})
    ok = all(r.returncode == 0 for r in (run("create", dz), run("add-account", dz, "zoe"),
                                         run("import", dz, "zoe", "INBOX", "--maildir", one)))
    with open(os.path.join(dz, "data.mdb"), "r+b") as f:
        data = f.read()
        at = data.find(b"\x28\xb5\x2f\xfd")
        check(ok and at > 0 and data.find(b"\x28\xb5\x2f\xfd", at + 1) < 0,
              "the one compressed blob is found in data.mdb")
        f.seek(at + 24)
        f.write(bytes(b ^ 0xFF for b in data[at + 24:at + 40]))
    for args, what in ((["INBOX", "--maildir", w("dz-one")], "a mailbox"),
                       (["--maildir", w("dz-all")], "a whole account")):
        r = run("export", dz, "zoe", *args)
        out = args[-1]
        check(r.returncode == 1 and f"export from {dz}: store is corrupt" in r.stderr and
              r.stdout == "" and os.listdir(os.path.join(out, "cur")) == [],
              f"export of {what} from a damaged store fails and writes no message", show(r))

    # 7. A body zstd keeps in a raw block (bytes that do not compress):
    # damage there decompresses without complaint, and only the message's
    # SHA-256 tells. Export checks it and writes nothing it cannot vouch for.
    dr = w("damaged-raw")
    noise = random.Random(7).randbytes(6000)
    body = b"Subject: noise\r\nContent-Type: application/octet-stream\r\n\r\n" + noise
    one = maildir(w("noise"), {"1700000060.n:2,S": body})
    ok = all(r.returncode == 0 for r in (run("create", dr), run("add-account", dr, "zoe"),
                                         run("import", dr, "zoe", "INBOX", "--maildir", one)))
    r = run("export", dr, "zoe", "INBOX", "--maildir", w("dr-before"))
    check(ok and r.returncode == 0 and len(os.listdir(w("dr-before", "cur"))) == 1,
          "the undamaged incompressible message exports", show(r))
    with open(os.path.join(dr, "data.mdb"), "r+b") as f:
        data = f.read()
        at = data.find(noise[3000:3064])
        check(at > 0 and data.find(noise[3000:3064], at + 1) < 0,
              "the incompressible body is found verbatim in data.mdb")
        f.seek(at + 10)
        f.write(bytes([data[at + 10] ^ 0x01]))
    for args, what in ((["INBOX", "--maildir", w("dr-one")], "a mailbox"),
                       (["--maildir", w("dr-all")], "a whole account")):
        r = run("export", dr, "zoe", *args)
        out = args[-1]
        check(r.returncode == 1 and "UID 1 (message 1): its bytes do not match their SHA-256"
              in r.stderr and f"export from {dr}: store is corrupt" in r.stderr and
              r.stdout == "" and os.listdir(os.path.join(out, "cur")) == [],
              f"export of {what} with one flipped bit in a raw zstd block fails, naming it",
              show(r))
    r = run("verify", dr)
    check(r.returncode != 0, "verify finds the same damage", show(r))

    return tap.done()


if __name__ == "__main__":
    try:
        sys.exit(main())
    finally:
        shutil.rmtree(WORK, ignore_errors=True)
