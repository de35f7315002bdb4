#!/usr/bin/python3
"""dovecot_compare.py: the store benchmark's bulk operations on libmailstore
and on Dovecot 2.3 (doveadm, mdbox) over the same messages, in one run.

Usage: dovecot_compare.py BENCH_STORE [MAILBOX_SIZE [WORKDIR]]
       (defaults 250000 and a fresh directory under /tmp)

Dovecot's side: a private Dovecot instance (its own configuration, base_dir
and log under WORKDIR, no protocols, so no listener but its unix sockets;
mail as user nobody in an mdbox under WORKDIR), the MAILBOX_SIZE messages
that bench_store fills its large mailbox with (bench_store --write-mbox),
imported into INBOX with `doveadm import`, then in one IMAP session (the
imap binary of Debian's dovecot-imapd, pre-authenticated on a pipe, each
command timed from sending it to its tagged OK, the response read and
dropped): SELECT INBOX with UID FETCH 1:* (FLAGS) (open-list), FETCH 1:*
(FLAGS) again (fetch-flags), SORT (DATE) and THREAD REFERENCES, each a
first call; then, each timed as one doveadm process: move UIDs 1:25000 to
another mailbox, expunge UIDs 25001:50000, add \\Seen to every message, add
the keyword $Junk to every message. A doveadm process that does nothing (mailbox
status) is timed too: process start and user lookup, included in Dovecot's
figures and listed separately.

libmailstore's side: `bench_store MAILBOX_SIZE 0` (no delivery runs).

Output: the JSON lines of both (corvid_bench.h format; Dovecot's with impl
"dovecot-2.3-mdbox"), then a side-by-side table on standard error. Needs
root (the Dovecot master drops to nobody), doveadm (Debian's dovecot-core)
and /usr/lib/dovecot/imap (dovecot-imapd). The instance is stopped on exit.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

BENCH = sys.argv[1]
SIZE = int(sys.argv[2]) if len(sys.argv) > 2 else 250000
WORK = sys.argv[3] if len(sys.argv) > 3 else tempfile.mkdtemp(prefix="ms-dovecot-")
NOBODY = 65534

CONF = """base_dir = {w}/run
state_dir = {w}/state
log_path = {w}/dovecot.log
mail_location = mdbox:~/mdbox
first_valid_uid = 1
ssl = no
protocols =
default_internal_user = nobody
default_login_user = nobody
userdb {{
  driver = static
  args = uid={u} gid={u} home={w}/home/%u
}}
passdb {{
  driver = static
  args = nopassword=y
}}
"""


def emit(bench, impl, items, ns):
    line = {"bench": bench, "impl": impl, "bytes": 0, "items": items, "ns": ns,
            "median_ns": ns, "reps": 1, "mb_per_s": 0.0,
            "items_per_s": round(items * 1e9 / ns, 1) if ns else 0.0}
    print(json.dumps(line, separators=(",", ":")), flush=True)
    return line


IMAP = "/usr/lib/dovecot/imap"
READ_OPS = ("open-list", "fetch-flags", "sort-date", "thread-references")


class Imap:
    """A pre-authenticated imap process on pipes; cmd() times one command."""

    def __init__(self, conf):
        self.p = subprocess.Popen([IMAP, "-c", conf, "-u", "bench"], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.fd = self.p.stdout.fileno()
        self.n = 0
        self.got = 0
        self.read_to(b"* PREAUTH")

    def read_to(self, end):
        """Reads until a line that starts with `end`, dropping the rest; returns that line."""
        tail = b"\n"
        while True:
            chunk = os.read(self.fd, 1 << 20)
            self.got += len(chunk)
            if not chunk:
                sys.exit(f"dovecot_compare: imap closed the connection waiting for {end!r}")
            tail = tail[-4096:] + chunk
            i = tail.find(b"\n" + end)
            if i >= 0:
                j = tail.find(b"\n", i + 1)
                while j < 0:
                    more = os.read(self.fd, 4096)
                    if not more:
                        sys.exit("dovecot_compare: imap closed the connection")
                    tail += more
                    j = tail.find(b"\n", i + 1)
                return tail[i + 1:j].rstrip(b"\r")

    def cmd(self, *lines):
        """Sends each command and waits for its tagged reply; returns the ns of all of them."""
        t0 = time.monotonic_ns()
        self.got = 0
        for line in lines:
            self.n += 1
            tag = b"t%d" % self.n
            self.p.stdin.write(tag + b" " + line.encode() + b"\r\n")
            self.p.stdin.flush()
            reply = self.read_to(tag + b" ")
            if not reply.startswith(tag + b" OK"):
                sys.exit(f"dovecot_compare: imap {line!r}: {reply!r}")
        ns = time.monotonic_ns() - t0
        print(f"# dovecot imap {' + '.join(lines)}: {self.got} bytes of response",
              file=sys.stderr)
        return ns

    def close(self):
        self.p.stdin.write(b"z LOGOUT\r\n")
        self.p.stdin.close()
        self.p.wait(timeout=30)


def main():
    if not shutil.which("doveadm"):
        sys.exit("dovecot_compare: doveadm not found (Debian package dovecot-core)")
    os.makedirs(WORK, exist_ok=True)
    conf = os.path.join(WORK, "dovecot.conf")
    for d in ("run", "state", "home", "src"):
        os.makedirs(os.path.join(WORK, d), exist_ok=True)
    with open(conf, "w") as f:
        f.write(CONF.format(w=WORK, u=NOBODY))
    os.chmod(WORK, 0o755)
    mbox = os.path.join(WORK, "src", "inbox")
    subprocess.run([BENCH, "--write-mbox", mbox, str(SIZE)], check=True)
    for d in ("home", "src"):
        for root, dirs, files in os.walk(os.path.join(WORK, d)):
            for n in dirs + files:
                os.chown(os.path.join(root, n), NOBODY, NOBODY)
        os.chown(os.path.join(WORK, d), NOBODY, NOBODY)

    def doveadm(*args):
        t0 = time.monotonic_ns()
        subprocess.run(["doveadm", "-c", conf, *args], check=True, stdout=subprocess.DEVNULL)
        return time.monotonic_ns() - t0

    results = {}
    subprocess.run(["dovecot", "-c", conf], check=True)
    try:
        time.sleep(0.5)
        doveadm("mailbox", "create", "-u", "bench", "Other")
        ns = doveadm("import", "-u", "bench", f"mbox:{WORK}/src:INBOX={mbox}", "", "mailbox",
                     "INBOX")
        emit("fill-import", "dovecot-2.3-mdbox", SIZE, ns)
        results["noop"] = min(doveadm("mailbox", "status", "-u", "bench", "messages", "INBOX")
                              for _ in range(5))
        emit("doveadm-noop", "dovecot-2.3-mdbox", 1, results["noop"])
        imap = Imap(conf)
        try:
            results["open-list"] = imap.cmd("SELECT INBOX", "UID FETCH 1:* (FLAGS)")
            results["fetch-flags"] = imap.cmd("FETCH 1:* (FLAGS)")
            results["sort-date"] = imap.cmd("SORT (DATE) US-ASCII ALL")
            results["thread-references"] = imap.cmd("THREAD REFERENCES US-ASCII ALL")
        finally:
            imap.close()
        for op in READ_OPS:
            emit(op, "dovecot-2.3-mdbox", SIZE, results[op])
        results["move-25000"] = doveadm("move", "-u", "bench", "Other", "mailbox", "INBOX",
                                        "uid", "1:25000")
        emit("move-25000", "dovecot-2.3-mdbox", 25000, results["move-25000"])
        results["expunge-25000"] = doveadm("expunge", "-u", "bench", "mailbox", "INBOX", "uid",
                                           "25001:50000")
        emit("expunge-25000", "dovecot-2.3-mdbox", 25000, results["expunge-25000"])
        results["mark-all-seen"] = doveadm("flags", "add", "-u", "bench", "\\Seen", "mailbox",
                                           "INBOX", "all")
        emit("mark-all-seen", "dovecot-2.3-mdbox", SIZE - 50000, results["mark-all-seen"])
        results["keyword-all"] = doveadm("flags", "add", "-u", "bench", "$Junk", "mailbox",
                                         "INBOX", "all")
        emit("keyword-all", "dovecot-2.3-mdbox", SIZE - 50000, results["keyword-all"])
        st = subprocess.run(["doveadm", "-c", conf, "mailbox", "status", "-u", "bench",
                             "messages unseen", "INBOX"], capture_output=True, text=True)
        print(f"# dovecot INBOX after: {st.stdout.strip()}", file=sys.stderr)
    finally:
        subprocess.run(["doveadm", "-c", conf, "stop"], check=False)

    ours = {}
    out = subprocess.run([BENCH, str(SIZE), "0"], check=True, capture_output=True, text=True)
    for line in out.stdout.splitlines():
        print(line, flush=True)
        r = json.loads(line)
        ours[r["bench"]] = r["ns"]

    print(f"\n{'operation (mailbox of %d)' % SIZE:32} {'libmailstore':>14} {'Dovecot mdbox':>14}"
          f" {'ratio':>8}", file=sys.stderr)
    for op in (*READ_OPS, "move-25000", "expunge-25000", "mark-all-seen", "keyword-all"):
        a, b = ours.get(op), results.get(op)
        if a and b:
            print(f"{op:32} {a / 1e6:11.1f} ms {b / 1e6:11.1f} ms {b / a:7.1f}x", file=sys.stderr)
    if "collect-25000" in ours:
        print(f"{'collect-25000 (deferred blobs)':32} {ours['collect-25000'] / 1e6:11.1f} ms"
              f" {'(n/a)':>14}", file=sys.stderr)
    print(f"{'doveadm process, no work':32} {'':>14} {results['noop'] / 1e6:11.1f} ms",
          file=sys.stderr)
    if len(sys.argv) <= 3:
        shutil.rmtree(WORK, ignore_errors=True)


if __name__ == "__main__":
    main()
