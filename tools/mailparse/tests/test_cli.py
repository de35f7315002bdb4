#!/usr/bin/python3
"""test_cli.py: the command line of `mailparse` (usage, refusals, read and
write failures, several files, bench over trees, MAILPARSE_IMPL), printed as
TAP. test_dump.py checks the values of dump --json; this script checks what
the tool does around them.

Usage: test_cli.py MAILPARSE WORKDIR

Every case asserts the exit status, standard output (empty on a refusal) and
a standard error message naming the file or value at fault:
1. Usage: no arguments, an unknown command, -h/--help, dump --help, unknown
   dump options (before any file is dumped), dump without a file.
2. dump failures: a directory, a path through a regular file, an unreadable
   file (skipped as root, who reads everything), a file over the 1 GiB limit
   (a sparse file; skipped under ASan, where reading 1 GiB takes ~20 s), a
   file that does not fit the address space (RLIMIT_AS), an empty file and a
   pipe (/dev/stdin), which are read.
3. Several files: the output is the concatenation of the single-file
   outputs, in text and JSON alike; a failing file in the middle leaves the
   others dumped and makes the status 1.
4. Write errors: a dump or body larger than stdio's buffer sent to /dev/full.
5. bench: exact counts over nested folders (one round with --seconds 1e-9),
   dot names skipped, empty files and folders, a file named twice, sockets,
   dangling links, folders it cannot open (RLIMIT_NOFILE), --seconds bounds,
   order and repetition.
6. MAILPARSE_IMPL: each implementation this CPU supports is used and dumps
   the same; unsupported, unknown and empty names.
7. Faults found with this script (check_found): small output to a full
   device, a FIFO in a folder, bench options, an unknown command's name, a
   directory's error.
"""
import json
import os
import platform
import resource
import shutil
import socket
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                "tests", "scripts"))
from corvid_tap import Tap  # noqa: E402

TOOL, WORK = sys.argv[1:3]
tap = Tap(diag_indent="  ", diag_lines=12)

# MAX_FILE of mailparse.c.
MAX_FILE = 1 << 30
NOT_SUPPORTED = b"not supported by the selected implementation"
USAGE = b"usage: mailparse dump [--json] FILE..."

SMALL = (b"From: Ann <ann@example.org>\r\nTo: bob@example.net\r\nSubject: hi\r\n"
         b"Date: Mon, 1 Jan 2024 10:00:00 +0100\r\n\r\nHello\r\n")
MULTI = (b"From: a@example.org\r\nSubject: report\r\n"
         b"Content-Type: multipart/mixed; boundary=\"b\"\r\n\r\n"
         b"--b\r\nContent-Type: text/plain; charset=utf-8\r\n"
         b"Content-Transfer-Encoding: quoted-printable\r\n\r\nGr=C3=BC=C3=9Fe\r\n"
         b"--b\r\nContent-Type: application/pdf; name=r.pdf\r\n"
         b"Content-Transfer-Encoding: base64\r\n\r\nJVBERi0xLjQK\r\n--b--\r\n")
# A dump and a body of this one are larger than stdio's buffer, so that a
# failed write shows in fwrite() rather than at exit.
BIG = b"From: a@example.org\r\nSubject: big\r\n\r\n" + b"".join(
    b"line %d of a body long enough to overflow a stdio buffer\r\n" % i for i in range(400))


class Result:
    def __init__(self, returncode, stdout, stderr):
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


def run(*args, env=None, stdout=subprocess.PIPE, stdin=None, preexec_fn=None, timeout=60):
    """Runs the tool; a run that outlives `timeout` gives returncode None."""
    full_env = dict(os.environ)
    full_env.pop("MAILPARSE_IMPL", None)
    full_env.update(env or {})
    try:
        p = subprocess.run([TOOL, *args], stdout=stdout, stderr=subprocess.PIPE, stdin=stdin,
                           env=full_env, preexec_fn=preexec_fn, timeout=timeout)
        return Result(p.returncode, p.stdout if p.stdout is not None else b"", p.stderr)
    except subprocess.TimeoutExpired:
        return Result(None, b"", b"(timed out after %d s)" % timeout)


def show(r):
    return "exit %r\nstdout %r\nstderr %r" % (r.returncode, r.stdout[:300], r.stderr[:600])


def refused(name, r, status, *needles):
    """A refusal: `status`, nothing on stdout, every needle on stderr."""
    ok = r.returncode == status and r.stdout == b"" and all(n in r.stderr for n in needles)
    return tap.check(ok, name, show(r))


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)
    return path


def limit(kind, value):
    return lambda: resource.setrlimit(kind, (value, value))


def bench_record(r):
    try:
        return json.loads(r.stdout.decode("ascii"))
    except ValueError:
        return {}


def is_sanitized():
    # ASan needs a huge address space and reads 1 GiB slowly: the cases that
    # limit the one or read the other are skipped for such a binary.
    with open(TOOL, "rb") as f:
        return b"__asan_init" in f.read()


def check_usage(small):
    r = run()
    refused("no arguments: usage on stderr, status 2", r, 2, USAGE)
    r = run("frobnicate", small)
    refused("unknown command: usage on stderr, status 2, nothing dumped", r, 2, USAGE)
    r = run("Dump", small)
    refused("commands are case-sensitive: 'Dump' is refused", r, 2, USAGE)
    help_out = run("--help")
    tap.check(help_out.returncode == 0 and help_out.stdout.startswith(USAGE) and
              b"Exit status:" in help_out.stdout and help_out.stderr == b"",
              "--help: the whole help on stdout, status 0", show(help_out))
    r = run("-h")
    tap.check(r.returncode == 0 and r.stdout == help_out.stdout and r.stderr == b"",
              "-h prints the same help as --help", show(r))
    r = run("dump", small, "--help")
    tap.check(r.returncode == 0 and r.stdout == help_out.stdout and r.stderr == b"",
              "dump FILE --help: the help, the file not dumped", show(r))
    r = run("dump", small, "--jsn")
    refused("dump FILE --jsn: unknown option named, status 2, FILE not dumped", r, 2,
            b"mailparse: unknown option --jsn\n", USAGE)
    r = run("dump", "--", small)
    refused("dump -- FILE: '--' is an unknown option too", r, 2, b"unknown option --\n")
    for args in (["dump"], ["dump", "--json"]):
        r = run(*args)
        refused("%s without a file: usage, status 2" % " ".join(args), r, 2, USAGE)


def check_dump_failures(small):
    folder = os.path.join(WORK, "a-folder")
    os.makedirs(folder, exist_ok=True)
    r = run("dump", "--json", folder)
    refused("dump of a directory: status 1, named", r, 1,
            b"mailparse: " + folder.encode() + b": cannot read: ")
    through = os.path.join(small, "inside.eml")
    r = run("dump", through)
    refused("dump of a path through a file: status 1, 'Not a directory'", r, 1,
            b"mailparse: " + through.encode() + b": cannot read: Not a directory\n")

    locked = write(os.path.join(WORK, "locked.eml"), SMALL)
    os.chmod(locked, 0)
    if os.geteuid() == 0:
        tap.check(True, "dump of an unreadable file # SKIP root reads files of mode 000")
    else:
        r = run("dump", locked)
        refused("dump of an unreadable file: status 1, 'Permission denied'", r, 1,
                b"mailparse: " + locked.encode() + b": cannot read: Permission denied\n")
    os.chmod(locked, 0o600)

    empty = write(os.path.join(WORK, "empty.eml"), b"")
    r = run("dump", "--json", empty)
    try:
        d = json.loads(r.stdout)
    except ValueError:
        d = {}
    tap.check(r.returncode == 0 and r.stderr == b"" and d.get("size") == 0 and
              d.get("headers") == [] and len(d.get("parts", [])) == 1 and
              d["parts"][0]["body"] == [0, 0] and d["parts"][0]["text"] == "",
              "dump --json of an empty file: one empty text/plain part, status 0", show(r))
    r = run("dump", empty)
    tap.check(r.returncode == 0 and
              r.stdout.startswith(b"== " + empty.encode() + b" (0 bytes)\n"),
              "dump of an empty file as text: status 0, '(0 bytes)'", show(r))

    with open(small, "rb") as f:
        r = run("dump", "--json", "/dev/stdin", stdin=f)
    try:
        d = json.loads(r.stdout)
    except ValueError:
        d = {}
    tap.check(r.returncode == 0 and d.get("file") == "/dev/stdin" and
              d.get("size") == len(SMALL) and d.get("preview") == "Hello",
              "dump of a pipe (/dev/stdin): read to its end", show(r))

    sanitized = is_sanitized()
    over = os.path.join(WORK, "over-limit.eml")
    if sanitized:
        tap.check(True, "dump of a file over 1 GiB # SKIP reading 1 GiB under ASan is too slow")
        tap.check(True, "bench of a file of exactly 1 GiB # SKIP reading 1 GiB under ASan is too "
                  "slow")
    else:
        with open(over, "wb") as f:
            f.truncate(MAX_FILE + 1)
        r = run("dump", "--json", over, small)
        os.unlink(over)
        lines = r.stdout.splitlines()
        tap.check(r.returncode == 1 and len(lines) == 1 and
                  json.loads(lines[0])["file"] == small and
                  r.stderr == b"mailparse: " + over.encode() + b": cannot read: File too large\n",
                  "dump of a file 1 byte over 1 GiB: 'File too large', status 1, the next "
                  "file still dumped", show(r))
        # Exactly the limit is read whole (bench: its dump would be 6 GiB).
        with open(over, "wb") as f:
            f.truncate(MAX_FILE)
        r = run("bench", "--seconds", "1e-9", over, timeout=120)
        os.unlink(over)
        rec = bench_record(r)
        tap.check(r.returncode == 0 and rec.get("items") == 1 and rec.get("bytes") == MAX_FILE,
                  "bench of a file of exactly 1 GiB: read and parsed whole", show(r))

    # 200 MiB does not fit 256 MiB of address space next to the 128 MiB
    # buffer that holds its first part: the buffer cannot grow.
    toobig = os.path.join(WORK, "no-room.eml")
    if sanitized:
        tap.check(True, "dump of a file larger than the address space # SKIP under ASan")
    else:
        with open(toobig, "wb") as f:
            f.truncate(200 << 20)
        r = run("dump", toobig, preexec_fn=limit(resource.RLIMIT_AS, 256 << 20))
        os.unlink(toobig)
        refused("dump with no memory for the file: status 1, 'Cannot allocate memory'", r, 1,
                b"mailparse: " + toobig.encode() + b": cannot read: Cannot allocate memory\n")


def check_several(small, multi):
    singles = {}
    for mode in ([], ["--json"]):
        for path in (small, multi):
            singles[(tuple(mode), path)] = run("dump", *mode, path).stdout
    for mode, what in (([], "text"), (["--json"], "JSON")):
        r = run("dump", *mode, small, multi, small)
        want = singles[(tuple(mode), small)] + singles[(tuple(mode), multi)] + \
            singles[(tuple(mode), small)]
        tap.check(r.returncode == 0 and r.stderr == b"" and r.stdout == want and want != b"",
                  "dump %s of 3 files: the single dumps, in order, a file named twice twice"
                  % what, show(r))
    r = run("dump", small, multi, "--json")
    want = singles[(("--json",), small)] + singles[(("--json",), multi)]
    tap.check(r.returncode == 0 and r.stdout == want,
              "dump FILE FILE --json: the option applies to files before it", show(r))
    lines = want.decode("ascii").splitlines()
    tap.check(len(lines) == 2 and [json.loads(x)["file"] for x in lines] == [small, multi],
              "dump --json: one line per file, each naming its file", want[:200])
    text = singles[((), small)] + singles[((), multi)]
    tap.check(text.startswith(b"== %s (%d bytes)\n" % (small.encode(), len(SMALL))) and
              b"\n== %s (%d bytes)\n" % (multi.encode(), len(MULTI)) in text and
              text.count(b"\n== ") == 1,
              "dump as text: each file starts with '== FILE (N bytes)'", text[:200])

    missing = os.path.join(WORK, "missing.eml")
    folder = os.path.join(WORK, "a-folder")
    r = run("dump", small, missing, folder, multi)
    tap.check(r.returncode == 1 and
              r.stdout == singles[((), small)] + singles[((), multi)] and
              r.stderr == b"mailparse: " + missing.encode() +
              b": cannot read: No such file or directory\n" + b"mailparse: " +
              folder.encode() + b": cannot read: Is a directory\n",
              "dump text: 2 failures in the middle are named, in order, the other files "
              "dumped, status 1", show(r))
    r = run("dump", "--json", missing, missing)
    refused("dump --json of only failing files: status 1, each named", r, 1,
            (b"mailparse: " + missing.encode() + b": cannot read: No such file or directory\n")
            * 2)


def check_staging(small):
    # A dump is staged whole before it is printed, in a file: in memory, the
    # JSON of 16 MiB of NUL bytes (6 bytes each) did not fit 160 MiB of
    # address space, and the dump came out cut short with status 0.
    nul = os.path.join(WORK, "nul.eml")
    if is_sanitized():
        tap.check(True, "dump --json of 16 MiB of NUL bytes in 160 MiB # SKIP under ASan")
    else:
        write(nul, b"From: a@example.org\r\nSubject: nul\r\n\r\n" + b"\0" * (16 << 20))
        out = os.path.join(WORK, "nul.json")
        with open(out, "wb") as f:
            r = run("dump", "--json", nul, stdout=f,
                    preexec_fn=limit(resource.RLIMIT_AS, 160 << 20))
        try:
            with open(out, "rb") as f:
                d = json.loads(f.read())
        except ValueError:
            d = {}
        os.unlink(nul)
        os.unlink(out)
        text = d.get("parts", [{}])[0].get("text", "")
        tap.check(r.returncode == 0 and r.stderr == b"" and len(text) == 16 << 20 and
                  text.count("\0") == len(text),
                  "dump --json of 16 MiB of NUL bytes in 160 MiB of address space: whole and "
                  "valid", show(r))
    r = run("dump", "--json", small, env={"TMPDIR": os.path.join(WORK, "no-such-dir")})
    refused("dump with TMPDIR missing: status 1, 'cannot dump: No such file or directory'", r,
            1, b"mailparse: " + small.encode() + b": cannot dump: No such file or directory\n")


def check_write_errors(big):
    with open("/dev/full", "wb") as full:
        for mode in ([], ["--json"]):
            r = run("dump", *mode, big, stdout=full)
            refused("dump %s to a full device: status 1, 'cannot dump: Input/output error'"
                    % ("--json" if mode else "text"), r, 1,
                    b"mailparse: " + big.encode() + b": cannot dump: Input/output error\n")
        r = run("body", big, "0", stdout=full)
        refused("body to a full device: status 1, 'Input/output error'", r, 1,
                b"mailparse: " + big.encode() + b": Input/output error\n")


def check_bench(small):
    tree = os.path.join(WORK, "tree")
    files = {
        "top.eml": SMALL,
        "a/one.eml": MULTI,
        "a/b/c/deep.eml": BIG,
        "a/b/empty.eml": b"",
        "e/f/g/deeper.eml": SMALL + b"more\r\n",
    }
    for name, data in files.items():
        write(os.path.join(tree, name), data)
    write(os.path.join(tree, ".hidden.eml"), b"skipped")
    write(os.path.join(tree, ".git", "objects", "x.eml"), b"skipped too")
    write(os.path.join(tree, "a", ".dot", "x.eml"), b"and this")
    os.makedirs(os.path.join(tree, "empty", "sub"), exist_ok=True)
    total = sum(len(d) for d in files.values())

    # --seconds 1e-9: one round exactly, so items and bytes are known.
    r = run("bench", "--seconds", "1e-9", tree)
    rec = bench_record(r)
    tap.check(r.returncode == 0 and r.stderr == b"" and rec.get("items") == len(files) and
              rec.get("bytes") == total and rec.get("bench") == "mailparse_parse",
              "bench over nested folders: %d files, %d bytes in one round (dot names, "
              "empty folders skipped, an empty file counted)" % (len(files), total), show(r))
    tap.check(set(rec) == {"bench", "impl", "bytes", "items", "ns", "msgs_per_s", "mb_per_s"}
              and rec.get("ns", 0) > 0 and
              abs(rec.get("mb_per_s", -1) - total * 1e3 / rec.get("ns", 1)) < 0.1,
              "bench: the documented keys, mb_per_s = bytes * 1e3 / ns", rec)

    r = run("bench", small, tree, small, "--seconds", "1e-9")
    rec = bench_record(r)
    tap.check(r.returncode == 0 and rec.get("items") == len(files) + 2 and
              rec.get("bytes") == total + 2 * len(SMALL),
              "bench FILE DIR FILE --seconds: files and folders mixed, a file named twice "
              "counted twice, the option after the paths", show(r))

    r = run("bench", "--seconds", "3600", "--seconds", "1e-9", small, timeout=30)
    rec = bench_record(r)
    tap.check(r.returncode == 0 and rec.get("items") == 1,
              "bench: the last --seconds wins", show(r))

    nothing = os.path.join(WORK, "nothing")
    write(os.path.join(nothing, ".only-dots"), SMALL)
    os.makedirs(os.path.join(nothing, "x", "y"), exist_ok=True)
    r = run("bench", nothing)
    refused("bench over folders holding only folders and dot files: status 1, 'no files'", r,
            1, b"mailparse: bench: no files under the given paths\n")

    missing = os.path.join(WORK, "missing.eml")
    r = run("bench", "--seconds", "3600", missing, timeout=30)
    refused("bench --seconds 3600 (the bound) is accepted: the path is what fails", r, 1,
            b"mailparse: " + missing.encode() + b": No such file or directory\n")
    r = run("bench", small, missing, timeout=30)
    refused("bench: a missing path after a good one: status 1, named", r, 1,
            missing.encode() + b": No such file or directory")
    for bad in ["3600.5", "", "0x", "1 ", "-0", "1e400"]:
        r = run("bench", "--seconds", bad, small)
        refused("bench --seconds %r is refused, status 2" % bad, r, 2,
                b"mailparse: bench: --seconds needs a number above 0, at most 3600\n")
    r = run("bench", small, "--seconds", "soon")
    refused("bench: a bad --seconds after files already read: status 2", r, 2,
            b"--seconds needs a number above 0")

    # Entries that are not regular files, inside a folder.
    sockdir = os.path.join(WORK, "with-socket")
    write(os.path.join(sockdir, "m.eml"), SMALL)
    sock_path = os.path.join(sockdir, "s.sock")
    if os.path.exists(sock_path):
        os.unlink(sock_path)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(sock_path)
    r = run("bench", "--seconds", "1e-9", sockdir)
    sock.close()
    refused("bench over a folder with a socket: status 1, the socket named", r, 1,
            b"mailparse: " + sock_path.encode() + b": not a regular file\n")
    linkdir = os.path.join(WORK, "with-dangling-link")
    write(os.path.join(linkdir, "m.eml"), SMALL)
    dangling = os.path.join(linkdir, "gone.eml")
    if not os.path.lexists(dangling):
        os.symlink("nowhere.eml", dangling)
    r = run("bench", "--seconds", "1e-9", linkdir)
    refused("bench over a folder with a dangling link: status 1, the link named", r, 1,
            b"mailparse: " + dangling.encode() + b": No such file or directory\n")

    # Each folder level holds a descriptor open: with 6, the fourth level
    # cannot be opened (0-2 are the standard streams).
    deep = os.path.join(WORK, "deep")
    write(os.path.join(deep, "1", "2", "3", "4", "5", "m.eml"), SMALL)
    r = run("bench", "--seconds", "1e-9", deep, preexec_fn=limit(resource.RLIMIT_NOFILE, 6))
    refused("bench over a folder it cannot open (no descriptor left): status 1, named", r, 1,
            b"mailparse: " + os.path.join(deep, "1", "2", "3").encode() +
            b": Too many open files\n")
    if os.geteuid() == 0:
        tap.check(True, "bench over a folder of mode 000 # SKIP root opens every folder")
    else:
        locked = os.path.join(WORK, "locked-folder")
        write(os.path.join(locked, "m.eml"), SMALL)
        os.chmod(locked, 0)
        r = run("bench", locked)
        os.chmod(locked, 0o700)
        refused("bench over a folder of mode 000: status 1, 'Permission denied'", r, 1,
                b"mailparse: " + locked.encode() + b": Permission denied\n")


# Priority order of libmailparse/src/scan.c; the last ones run on any CPU of
# the architecture, the others only where the CPU has their features.
if platform.machine() in ("x86_64", "AMD64"):
    IMPLS, BASELINE = ["avx512", "avx2", "sse2", "swar", "scalar"], {"sse2", "swar", "scalar"}
elif platform.machine() == "aarch64":
    IMPLS, BASELINE = ["neon", "swar", "scalar"], {"neon", "swar", "scalar"}
else:
    IMPLS, BASELINE = ["swar", "scalar"], {"swar", "scalar"}


def check_impls(small, multi):
    want = run("dump", "--json", multi, small).stdout
    usable = []
    for name in IMPLS:
        env = {"MAILPARSE_IMPL": name}
        r = run("bench", "--seconds", "1e-9", multi, env=env)
        if r.returncode == 0 or name in BASELINE:
            usable.append(name)
            rec = bench_record(r)
            d = run("dump", "--json", multi, small, env=env)
            tap.check(r.returncode == 0 and rec.get("impl") == name and rec.get("items") == 1
                      and d.returncode == 0 and d.stdout == want,
                      "MAILPARSE_IMPL=%s: bench names it, the dumps are the same" % name,
                      show(r) + "\n" + show(d))
        else:
            refused("MAILPARSE_IMPL=%s (not on this CPU): bench refuses, status 1" % name, r, 1,
                    b"mailparse: bench: a message does not parse: " + NOT_SUPPORTED + b"\n")
    best = usable[0] if usable else None
    r = run("bench", "--seconds", "1e-9", small)
    tap.check(bench_record(r).get("impl") == best,
              "MAILPARSE_IMPL unset: bench uses the first usable one, %s" % best, show(r))
    r = run("bench", "--seconds", "1e-9", small, env={"MAILPARSE_IMPL": ""})
    tap.check(bench_record(r).get("impl") == best, "MAILPARSE_IMPL empty: as unset", show(r))
    env = {"MAILPARSE_IMPL": "avx9000"}
    r = run("bench", "--seconds", "1e-9", small, env=env)
    refused("MAILPARSE_IMPL=avx9000: bench status 1, 'not supported'", r, 1,
            b"mailparse: bench: a message does not parse: " + NOT_SUPPORTED + b"\n")
    r = run("dump", "--json", small, multi, env=env)
    refused("MAILPARSE_IMPL=avx9000: dump names each file, status 1", r, 1,
            b"mailparse: " + small.encode() + b": cannot dump: " + NOT_SUPPORTED + b"\n" +
            b"mailparse: " + multi.encode() + b": cannot dump: " + NOT_SUPPORTED + b"\n")
    r = run("body", small, "0", env=env)
    refused("MAILPARSE_IMPL=avx9000: body status 1, names the file", r, 1,
            b"mailparse: " + small.encode() + b": " + NOT_SUPPORTED + b"\n")


def check_found(small):
    """Faults this script found, fixed with it: output smaller than stdio's
    buffer never flushed and checked, a FIFO in a folder blocking bench,
    bench taking options for paths, an unknown command not named, a
    directory read as "Input/output error"."""
    with open("/dev/full", "wb") as full:
        for args in (["dump", small], ["dump", "--json", small], ["--help"],
                     ["body", small, "0"], ["bench", "--seconds", "1e-9", small]):
            r = run(*args, stdout=full)
            tap.check(r.returncode not in (0, None) and r.stderr != b"",
                      "'mailparse %s > /dev/full' fails with a message"
                      % " ".join(args), show(r))
    fifo_dir = os.path.join(WORK, "with-fifo")
    write(os.path.join(fifo_dir, "m.eml"), SMALL)
    fifo = os.path.join(fifo_dir, "p.fifo")
    if not os.path.exists(fifo):
        os.mkfifo(fifo)
    r = run("bench", "--seconds", "1e-9", fifo_dir, timeout=10)
    tap.check(r.returncode is not None, "bench over a folder with a FIFO does not hang",
              show(r))
    r = run("bench", "--bogus", small)
    refused("bench --bogus is wrong usage (status 2), as dump --bogus", r, 2,
            b"unknown option --bogus")
    r = run("frobnicate")
    refused("an unknown command is named", r, 2, b"mailparse: unknown command 'frobnicate'")
    folder = os.path.join(WORK, "a-folder")
    r = run("dump", folder)
    refused("dump of a directory says 'Is a directory'", r, 1, b"Is a directory")


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    small = write(os.path.join(WORK, "small.eml"), SMALL)
    multi = write(os.path.join(WORK, "multi.eml"), MULTI)
    big = write(os.path.join(WORK, "big.eml"), BIG)
    try:
        check_usage(small)
        check_dump_failures(small)
        check_several(small, multi)
        check_staging(small)
        check_write_errors(big)
        check_bench(small)
        check_impls(small, multi)
        check_found(small)
    finally:
        shutil.rmtree(WORK, ignore_errors=True)
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
