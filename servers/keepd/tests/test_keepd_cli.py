#!/usr/bin/python3
"""test_keepd_cli.py: how the keepd daemon refuses a bad start-up, printed as TAP.

Usage: test_keepd_cli.py KEEPD WORKDIR

An administrator's mistakes, each against the real keepd binary, on loopback
only:
1. Usage errors: unknown options, a missing value, stray operands, `keygen`
   with too few or too many files (exit 2, usage on stderr).
2. Bad option values: negative, trailing letters, overflow, out of range,
   malformed secrets, pins, member lists and listen addresses (exit 2,
   "bad value for --OPTION: VALUE").
3. Cluster lists that do not name this member, and a heartbeat UDP port that
   is already taken (exit 2 / 1).
4. Listen addresses keepd cannot bind, a TCP port already taken, a port file
   that cannot be written (exit 1).
5. TLS: no key, a key beside --plaintext, key and client files that are
   missing, a directory or not keys; keygen where it cannot write (exit 2 / 1).
6. Configuration files that are missing, a directory, malformed or out of
   range, key by key (exit 1, the file, line and key named).
7. For contrast, starts that must succeed (plaintext, TLS, a config file with
   a typo'd key, a one-member cluster, --help): each on an ephemeral loopback
   port, stopped with SIGTERM, exit 0.

Every keepd run has a timeout of a few seconds: a keepd that starts when it
should have refused is killed and its case fails. After each refusal the
port keepd was given must not accept connections.

"""
import os
import shutil
import signal
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                "tests", "scripts"))
from corvid_tap import Tap  # noqa: E402

KEEPD, WORK = sys.argv[1:3]
# A refusal happens before any thread starts: well under a second even under
# ASan. A keepd still running after this long has started instead.
REFUSAL_TIMEOUT = 5
START_TIMEOUT = 10
tap = Tap()


def free_port(kind=socket.SOCK_STREAM):
    """A loopback port nobody uses right now (the kernel's pick, released)."""
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def accepts(port, host="127.0.0.1"):
    """Whether something accepts TCP connections on host:port."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as s:
        s.settimeout(1)
        try:
            s.connect((host, port))
            return True
        except OSError:
            return False


def run_keepd(args, timeout=REFUSAL_TIMEOUT):
    """Runs keepd to its end; None if it had to be killed (it did not exit)."""
    try:
        return subprocess.run([KEEPD, *args], capture_output=True, text=True, timeout=timeout,
                              cwd=WORK)
    except subprocess.TimeoutExpired:
        return None  # subprocess.run has killed and reaped it


def refused(name, args, status, needles, port=None, stdout_empty=True):
    """One case: keepd exits `status` promptly, its stderr holds every needle,
    and `port` (the one it was told to use) accepts nothing afterwards."""
    p = run_keepd(args)
    if p is None:
        return tap.check(False, name, f"keepd {args} still running after {REFUSAL_TIMEOUT} s")
    problems = []
    if p.returncode != status:
        problems.append(f"exit {p.returncode}, expected {status}")
    problems += [f"stderr lacks {n!r}" for n in needles if n not in p.stderr]
    if stdout_empty and p.stdout:
        problems.append(f"stdout not empty: {p.stdout!r}")
    if port is not None and accepts(port):
        problems.append(f"port {port} accepts connections")
    return tap.check(not problems, name, "\n".join(problems + [f"args {args}",
                                                              f"stderr: {p.stderr}"]))


def start(args):
    """Starts keepd on an ephemeral loopback port; returns (proc, port) or
    (proc, None) when it did not report a port in time."""
    port_file = os.path.join(WORK, "port")
    if os.path.exists(port_file):
        os.unlink(port_file)
    p = subprocess.Popen([KEEPD, "--port", "0", "--port-file", port_file, *args],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=WORK)
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline and p.poll() is None:
        if os.path.exists(port_file):
            with open(port_file) as f:
                return p, int(f.read())
        time.sleep(0.02)
    return p, None


def stop(p):
    """SIGTERM, then (exit status, stdout, stderr); status None if keepd had
    to be killed."""
    if p.poll() is None:
        p.send_signal(signal.SIGTERM)
    try:
        out, err = p.communicate(timeout=START_TIMEOUT)
        return p.returncode, out, err
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        return None, out, err


def started(name, args, needles=(), host="127.0.0.1"):
    """One case: keepd starts on loopback `host`, accepts a connection, stops
    on SIGTERM with exit 0, mentions every needle, and its port is closed
    after."""
    p, port = start(args)
    serving = port is not None and accepts(port, host)
    status, _, err = stop(p)
    problems = []
    if not serving:
        problems.append(f"not serving (port {port})")
    if status != 0:
        problems.append(f"exit {status} after SIGTERM, expected 0")
    if "shutting down" not in err:
        problems.append("no shutdown message")
    problems += [f"stderr lacks {n!r}" for n in needles if n not in err]
    if port is not None and accepts(port, host):
        problems.append(f"port {port} still accepts connections")
    return tap.check(not problems, name, "\n".join(problems + [f"args {args}", f"stderr: {err}"]))


def write(path, text):
    with open(path, "w") as f:
        f.write(text)
    return path


shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
key = os.path.join(WORK, "cluster.key")
garbage = write(os.path.join(WORK, "garbage.pem"), "-----BEGIN PRIVATE KEY-----\nnot base64!\n"
                "-----END PRIVATE KEY-----\n")
# The client list reads only PUBLIC KEY blocks (other lines are comments).
bad_clients = write(os.path.join(WORK, "clients.pem"), "-----BEGIN PUBLIC KEY-----\n"
                    "not base64!\n-----END PUBLIC KEY-----\n")
missing = os.path.join(WORK, "no-such-dir", "file")

# keygen first: the TLS cases below need a real key.
p = run_keepd(["keygen", key])
tap.check(p is not None and p.returncode == 0 and os.stat(key).st_mode & 0o777 == 0o600
          and os.path.exists(key + ".pub") and "BEGIN PUBLIC KEY" in p.stdout,
          "keygen writes a private key (0600), its .pub and prints the public key",
          p and p.stderr)

# 1. Usage errors.
port = free_port()
plain = ["--plaintext", "--port", str(port)]
refused("an unknown option is refused with the usage", plain + ["--bogus"], 2,
        ["'--bogus'", "usage: keepd"], port)
refused("an option without its value is refused", plain + ["--shards"], 2,
        ["'--shards' requires an argument", "usage: keepd"], port)
refused("a stray operand is named and refused with the usage", plain + ["stray"], 2,
        ["unexpected argument 'stray'", "usage: keepd"],
        port)
refused("keygen without a file is refused with the usage", ["keygen"], 2,
        ["keygen takes one FILE", "usage: keepd"])
two = [os.path.join(WORK, "k1"), os.path.join(WORK, "k2")]
refused("keygen with two files is refused with the usage", ["keygen", *two], 2,
        ["keygen takes one FILE", "usage: keepd"])
tap.check(not any(os.path.exists(k) for k in two), "a refused keygen writes no file")

# 2. Bad values: each names the option and the value.
BAD_VALUES = [
    ("port", ["-1", "80x", "65536", "18446744073709551616", ""]),
    ("shards", ["0", "65", "two", "-2"]),
    ("memory-cap", ["-1", "63K", "256Q", "256MB", "17179869184G", "8589934592G"]),
    ("max-value", ["0", "1025K", "1M1"]),
    ("max-lease", ["0", "4294967296", "5s", "-1"]),
    ("lock-quarantine", ["4294967296", "-5", "1.5"]),
    ("secret", ["00112233", "00112233445566778899aabbccddeeff00", "zz" * 16]),
    ("pin", ["always", ""]),
    ("member", ["1@127.0.0.1:7000", "x@127.0.0.1:7000/7001", "1@mail.example:7000/7001",
                "1@127.0.0.1:0/7001", "1@127.0.0.1:7000/70000", "1@[::1:7000/7001",
                "70000@127.0.0.1:7000/7001", "1@:7000/7001",
                ",".join(f"{i}@127.0.0.1:{7000 + i}/{8000 + i}" for i in range(17))]),
    ("self", ["one", "65536", "-1"]),
    ("handshake-timeout", ["0", "600001", "2s"]),
    ("busy-poll", ["1001", "-1"]),
    ("listen", ["1" * 64]),
]
for option, values in BAD_VALUES:
    for value in values:
        shown = value if len(value) <= 40 else value[:37] + "..."
        refused(f"--{option} {shown!r} is refused", plain + [f"--{option}", value], 2,
                [f"bad value for --{option}: {value}\n"], port)
refused("a member id listed twice is refused",
        plain + ["--member", "1@127.0.0.1:7000/7001", "--member", "1@127.0.0.1:7002/7003"], 2,
        ["bad value for --member: 1@127.0.0.1:7002/7003"], port)

# 3. Cluster lists.
tcp, udp = free_port(), free_port(socket.SOCK_DGRAM)
member = f"1@127.0.0.1:{tcp}/{udp}"
refused("--self naming no member is refused",
        ["--plaintext", "--member", member, "--member", "2@127.0.0.1:7002/7003", "--self", "3"],
        2, ["--self must name one of the --member ids"], tcp)
refused("--member without --self is refused", ["--plaintext", "--member", member], 2,
        ["--self must name one of the --member ids"], tcp)
refused("--self without --member is refused", plain + ["--self", "1"], 2,
        ["--self must name one of the --member ids"], port)
with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as taken:
    taken.bind(("127.0.0.1", 0))
    busy_udp = taken.getsockname()[1]
    refused("a heartbeat UDP port in use is refused",
            ["--plaintext", "--member", f"1@127.0.0.1:{tcp}/{busy_udp}", "--self", "1"], 1,
            [f"cannot use udp 127.0.0.1:{busy_udp}", "Address already in use"], tcp)

# 4. Addresses and ports keepd cannot use.
with socket.socket() as taken:
    taken.bind(("127.0.0.1", 0))
    taken.listen(1)
    busy = taken.getsockname()[1]
    refused("a TCP port already listened on is refused", ["--plaintext", "--port", str(busy)], 1,
            [f"cannot listen on 127.0.0.1:{busy}", "Address already in use"])
# With port 0 there is no probe of a fixed port: the shard's own listener
# is what fails.
refused("a malformed listen address is refused",
        ["--tls-key", key, "--port", "0", "--listen", "not-an-address"], 1,
        ["cannot listen on not-an-address:0", "Invalid argument"])
refused("a listen address of no local interface is refused",
        ["--tls-key", key, "--port", str(port), "--listen", "192.0.2.1"], 1,
        [f"cannot listen on 192.0.2.1:{port}", "Cannot assign requested address"], port)
refused("--plaintext on a malformed listen address is refused",
        plain + ["--listen", "not-an-address"], 2,
        ["not-an-address is not a loopback address"], port)
refused("--plaintext on a non-loopback IPv6 address is refused", plain + ["--listen", "::"], 2,
        [":: is not a loopback address"], port)
refused("a port file that cannot be written stops keepd", plain + ["--port-file", missing], 1,
        [f"cannot write {missing}: No such file or directory"], port)
port_dir = os.path.join(WORK, "port-dir")
os.makedirs(port_dir, exist_ok=True)
refused("a port file that is a directory stops keepd, named with the reason",
        plain + ["--port-file", port_dir], 1, [f"cannot write {port_dir}: Is a directory"], port)
tap.check(not os.path.exists(port_dir + ".tmp"), "a port file not written leaves no .tmp file")

# 5. TLS.
refused("neither a key nor --plaintext is refused", ["--port", str(port)], 2,
        ["TLS needs the cluster key: --tls-key FILE"], port)
refused("--plaintext beside --tls-key is refused", plain + ["--tls-key", key], 2,
        ["--plaintext and --tls-key exclude each other"], port)
tls = ["--port", str(port), "--tls-key"]
refused("a missing key file is refused", tls + [missing], 2,
        [f"cannot read {missing}", "No such file or directory"], port)
refused("a key file that is a directory is refused", tls + [WORK], 2,
        [f"cannot read {WORK}", "Is a directory"], port)
refused("a key file that holds no key is refused", tls + [garbage], 2,
        [f"{garbage}: not a PEM Ed25519 private key"], port)
refused("a missing client list is refused", tls + [key, "--tls-clients", missing], 2,
        [f"cannot read {missing}", "No such file or directory"], port)
refused("a client list that is a directory is refused", tls + [key, "--tls-clients", WORK], 2,
        [f"cannot read {WORK}", "Is a directory"], port)
refused("a malformed client list is refused", tls + [key, "--tls-clients", bad_clients], 2,
        [f"{bad_clients}: not a list of PEM Ed25519 public keys"], port)
refused("keygen into a missing directory fails", ["keygen", missing], 1,
        [f"keygen {missing}", "No such file or directory"])
with open(key) as f:
    before = f.read()
refused("keygen over an existing key fails", ["keygen", key], 1, [f"keygen {key}", "exists"])
with open(key) as f:
    tap.check(f.read() == before, "a refused keygen leaves the existing key as it was")

# 6. Configuration files.
conf = os.path.join(WORK, "keepd.conf")
refused("a missing config file is refused", plain + ["--config", missing], 1,
        [f"{missing}: cannot open"], port)
refused("a config file that is a directory is refused", plain + ["--config", WORK], 1,
        [f"{WORK}: is a directory"], port)
BAD_CONFIGS = [
    ("[keepd\n", f"{conf}:1: missing ']'"),
    ("[keepd]\nport = 1\nport = 2\n", f"{conf}:3: key 'keepd.port' is defined twice"),
    ("[keepd]\nport = 70000\n", f"{conf}:2: key 'keepd.port': 70000 is out of range"),
    ("[keepd]\nshards = 65\n", f"{conf}:2: key 'keepd.shards': 65 is out of range"),
    ("[keepd]\nmemory_cap = 1K\n", f"{conf}:2: key 'keepd.memory_cap': '1K'"),
    ("[keepd]\nmax_value = 2M\n", f"{conf}:2: key 'keepd.max_value': '2M'"),
    ("[keepd]\nmax_lease = 0\n", f"{conf}:2: key 'keepd.max_lease': '0'"),
    ("[keepd]\nlock_quarantine = forever\n",
     f"{conf}:2: key 'keepd.lock_quarantine': invalid duration 'forever'"),
    ("[keepd]\nmax_connections = 0\n", f"{conf}:2: key 'keepd.max_connections': 0 is out"),
    ("[keepd]\nself = 70000\n", f"{conf}:2: key 'keepd.self': 70000 is out of range"),
    ("[keepd]\npin = sometimes\n", f"{conf}:2: key 'keepd.pin': must be auto, yes or no"),
    ("[keepd]\nport = 7000\n\nsecret = 1234\n",
     f"{conf}:4: key 'keepd.secret': must be 32 hex digits"),
    ("[keepd]\nmembers = garbage\n",
     f"{conf}:2: key 'keepd.members': must list ID@HOST:PORT/UDPPORT"),
    ("[keepd]\nplaintext = maybe\n", f"{conf}:2: key 'keepd.plaintext': must be yes or no"),
    ("[keepd]\nlisten = " + "1" * 64 + "\n",
     f"{conf}:2: key 'keepd.listen': too long for an address"),
]
for text, needle in BAD_CONFIGS:
    write(conf, text)
    first = text.splitlines()[-1]
    refused(f"config {first!r} is refused", plain + ["--config", conf], 1, [needle], port)
write(conf, "[keepd]\nsecret = 00112233445566778899aabbccddeeZZ\n")
p = run_keepd(plain + ["--config", conf])
tap.check(p is not None and p.returncode == 1 and "keepd.secret" in p.stderr
          and "00112233" not in p.stderr, "a refused keepd.secret is not echoed",
          p.stderr if p is not None else "still running")

# 7. Starts that must succeed, for contrast.
started("plaintext on loopback starts and stops on SIGTERM", ["--plaintext", "--shards", "1"],
        ["keepd: listening on 127.0.0.1:"])
started("TLS with a key starts and stops on SIGTERM", ["--tls-key", key, "--shards", "1"],
        ["keepd: tls: 0 handshakes"])
started("plaintext on the IPv6 loopback starts and stops on SIGTERM",
        ["--plaintext", "--listen", "::1", "--shards", "1"], ["keepd: listening on [::1]:"], "::1")
write(conf, "[keepd]\nplaintext = yes\nlisten = 127.0.0.1\nshards = 1\nmemory_cap = 64M\n"
      "max_value = 4K\nmax_lease = 5s\nlock_quarantine = 0\nmax_connections = 100\n"
      "pin = no\nsecret = 00112233445566778899aabbccddeeff\ncolour = blue\n")
started("a valid config file starts keepd and warns about an unknown key",
        ["--config", conf], [f"{conf}:12: unknown setting keepd.colour ignored",
                             "memory cap 67108864 bytes", "lock quarantine 0 ms"])
tcp, udp = free_port(), free_port(socket.SOCK_DGRAM)
write(conf, f"[keepd]\nplaintext = yes\nshards = 1\nmembers = 1@127.0.0.1:{tcp}/{udp}\n"
      "self = 1\n")
p = subprocess.Popen([KEEPD, "--config", conf], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                     text=True, cwd=WORK)
deadline = time.monotonic() + START_TIMEOUT
while time.monotonic() < deadline and p.poll() is None and not accepts(tcp):
    time.sleep(0.05)
serving = accepts(tcp)
status, _, err = stop(p)
tap.check(serving and status == 0 and f"listening on 127.0.0.1:{tcp}" in err
          and not accepts(tcp),
          "a one-member cluster from the config file listens on its member port and stops",
          f"serving {serving}, exit {status}, stderr: {err}")
p = run_keepd(["--help"])
tap.check(p is not None and p.returncode == 0 and p.stdout.startswith("usage: keepd")
          and "--tls-key FILE" in p.stdout and "--member ID@HOST:PORT/UDPPORT" in p.stdout
          and p.stderr == "", "--help prints the usage on stdout and exits 0",
          p and f"exit {p.returncode}, stderr {p.stderr}")

# Forms getopt accepts for --config, and values strtoull or sscanf alone
# would have let through.
refused("--config=FILE reads FILE", plain + [f"--config={missing}"], 1,
        [f"{missing}: cannot open"], port)
refused("--conf FILE (getopt abbreviation) reads FILE", plain + ["--conf", missing], 1,
        [f"{missing}: cannot open"], port)
refused("--secret with non-hex digits is refused", plain + ["--secret", "0g" * 16], 2,
        ["bad value for --secret"], port)
refused("--secret with signs is refused", plain + ["--secret", "-1" * 16], 2,
        ["bad value for --secret"], port)
refused("--memory-cap ' -1' is refused", plain + ["--memory-cap", " -1"], 2,
        ["bad value for --memory-cap"], port)
refused("--port 1k is refused (a port is no size)", plain + ["--port", "1k"], 2,
        ["bad value for --port: 1k"], port)

shutil.rmtree(WORK, ignore_errors=True)
sys.exit(tap.done())
