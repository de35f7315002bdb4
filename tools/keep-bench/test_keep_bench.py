#!/usr/bin/python3
"""test_keep_bench.py: keep-bench, the instrument behind keepd's figures, as TAP.

Usage: test_keep_bench.py KEEP_BENCH KEEP_NULL KEEPD WORKDIR

keep-bench measures; this checks that what it reports is what happened, on
loopback only, each run a second or two:
1. Refusals: unknown or malformed option values, stray operands, a missing
   --port, --pubsub without --rate, --tls outside the closed loop (exit 2,
   the option named, nothing on stdout); a server that is not there (exit 1).
2. keepd: the closed loop of every operation (with --server-pid, and --route
   over two shards), the open loop (every request sent is answered, the
   percentiles in order), pub/sub fan-out (every delivery arrives) and TLS.
3. The open loop charges a stalled server: keepd stopped (SIGSTOP) for 300 ms
   of a three-second run shows in p99 and max; nothing is lost.
4. Error answers count as refused, never as fast answers: keepd out of memory
   refuses SETs, and the run reports them (and p99.9 as infinitely late).
5. redis-server (RESP): closed and open loop of the mix, pub/sub, and --fill,
   whose keys redis-cli then counts; keep-null: the open loop's floor.
"""
import json
import os
import signal
import shutil
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests",
                                "scripts"))
from corvid_tap import Tap  # noqa: E402

BENCH, NULL, KEEPD, WORK = sys.argv[1:5]
# A run of `--seconds 1` ends within its second plus the one-second drain;
# sanitized builds and a loaded machine get the rest.
RUN_TIMEOUT = 60
START_TIMEOUT = 10
INFINITE_US = 1e12  # what keep-bench prints for a percentile never answered
tap = Tap()
os.makedirs(WORK, exist_ok=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(argv, port_file=None):
    """Starts a server; returns (proc, port) once it reports or accepts on
    its port, or (proc, None)."""
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                         cwd=WORK)
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline and p.poll() is None:
        if port_file and os.path.exists(port_file) and os.path.getsize(port_file) > 0:
            with open(port_file) as f:
                return p, int(f.read())
        time.sleep(0.02)
    return p, None


def start_keepd(*args):
    port_file = os.path.join(WORK, "keepd.port")
    if os.path.exists(port_file):
        os.unlink(port_file)
    return start([KEEPD, "--plaintext", "--port", "0", "--port-file", port_file,
                  "--lock-quarantine", "0", *args], port_file)


def start_null():
    port_file = os.path.join(WORK, "null.port")
    if os.path.exists(port_file):
        os.unlink(port_file)
    return start([NULL, "--port", "0", "--port-file", port_file], port_file)


def start_redis():
    port = free_port()
    p = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1",
                          "--save", "", "--appendonly", "no", "--dir", WORK],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline and p.poll() is None:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return p, port
        time.sleep(0.05)
    return p, None


def stop(p):
    if p.poll() is None:
        p.send_signal(signal.SIGCONT)
        p.terminate()
    try:
        p.communicate(timeout=START_TIMEOUT)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()


def bench(*args):
    """Runs keep-bench; (status, [JSON objects], stderr), status None on a
    timeout."""
    try:
        r = subprocess.run([BENCH, *[str(a) for a in args]], capture_output=True, text=True,
                           timeout=RUN_TIMEOUT, cwd=WORK)
    except subprocess.TimeoutExpired as e:
        return None, [], str(e)
    rows = []
    for line in r.stdout.splitlines():
        try:
            rows.append(json.loads(line))
        except ValueError:
            rows.append({"unparsed": line})
    return r.returncode, rows, r.stderr


def one_result(name, status, rows, err, checks):
    """One case: exit 0, one JSON line per expected result, each check
    (text, predicate over the rows) true."""
    problems = []
    if status != 0:
        problems.append(f"exit {status}: {err.strip()}")
    if any("unparsed" in r for r in rows) or not rows:
        problems.append(f"output not JSON lines: {rows}")
    else:
        for text, ok in checks:
            try:
                good = ok(rows)
            except (KeyError, IndexError, TypeError, ZeroDivisionError) as e:
                good = False
                text += f" ({type(e).__name__}: {e})"
            if not good:
                problems.append("not " + text)
    return tap.check(not problems, name, "\n".join(problems + [f"rows: {rows}"]))


def percentiles_ordered(r):
    return r["p50_us"] <= r["p99_us"] <= r["p999_us"] <= r.get("max_us", r["p999_us"])


def open_loop_sound(r, sent):
    """Checks of an open-loop result in which nothing was refused."""
    return [("every request sent", lambda rows: rows[0]["sent"] == sent),
            ("every request answered", lambda rows: rows[0]["answered"] == sent),
            ("nothing refused", lambda rows: rows[0]["refused"] == 0),
            ("percentiles in order, finite",
             lambda rows: percentiles_ordered(rows[0]) and rows[0]["max_us"] < INFINITE_US)]


# 1. Refusals.
def refused(name, args, status, needle):
    st, rows, err = bench(*args)
    problems = []
    if st != status:
        problems.append(f"exit {st}, expected {status}")
    if needle not in err:
        problems.append(f"stderr lacks {needle!r}: {err.strip()}")
    if rows:
        problems.append(f"stdout not empty: {rows}")
    tap.check(not problems, name, "\n".join(problems))


closed_port = free_port()  # nothing listens there
base = ["--proto", "keep", "--op", "get", "--port", str(closed_port), "--seconds", "0.2"]
for opt, value in [("proto", "redis"), ("op", "mixed"), ("port", "0"), ("port", "70000"),
                   ("port", "80x"), ("threads", "0"), ("threads", "-1"), ("threads", "257"),
                   ("pipeline", "0"), ("keys", "ten"), ("value-size", "2000000"),
                   ("seconds", "0"), ("seconds", "-1"), ("seconds", "1s"), ("seconds", "nan"),
                   ("rate", "0"), ("rate", "0x10"), ("rate", " 5"), ("server-pid", "0"),
                   ("fill", "0"), ("pubsub", "10001"), ("spin-us", "inf"), ("tick-us", "+1")]:
    refused(f"--{opt} {value!r} is refused", base + [f"--{opt}", value], 2,
            f"bad value for --{opt}: {value}")
refused("a stray operand is refused", base + ["extra"], 2, "usage:")
refused("an unknown option is refused", base + ["--speed", "1"], 2, "usage:")
refused("--port is required", ["--proto", "keep", "--op", "get"], 2, "--port is required")
refused("--pubsub needs --rate", base + ["--pubsub", "2"], 2, "--pubsub needs --rate")
refused("an open loop shorter than its connections is refused",
        base + ["--rate", "1", "--threads", "4"], 2, "--rate times --seconds")
refused("no server: the closed loop fails", base, 1, "keep-bench: ")
refused("no server: the open loop fails", base + ["--rate", "100"], 1, "keep-bench: connection 0")
refused("no server: the fill fails", base + ["--fill", "10"], 1, "cannot connect to 127.0.0.1")
refused("no server: pub/sub fails", base + ["--pubsub", "2", "--rate", "100"], 1,
        "cannot connect subscriber 0")

# 2-4. keepd.
keepd, port = start_keepd("--shards", "2")
if tap.check(port is not None, "keepd starts"):
    for op in ["get", "set", "incr", "mix"]:
        st, rows, err = bench("--proto", "keep", "--op", op, "--port", port, "--seconds", "0.5",
                              "--threads", "2", "--server-pid", keepd.pid)
        one_result(f"closed loop {op} against keepd", st, rows, err, [
            ("named for its operation",
             lambda rows, op=op: rows[0]["bench"] == f"closed-loop-{op}-t2-p16"),
            ("requests answered", lambda rows: rows[0]["items"] > 0),
            ("the server's CPU time per request",
             lambda rows: rows[1]["bench"].endswith("-cpu") and
             0 < rows[1]["server_cpu_us_per_req"] < 1e6)])
    st, rows, err = bench("--proto", "keep", "--op", "mix", "--port", port, "--seconds", "0.5",
                          "--threads", "2", "--route")
    one_result("closed loop routed to keepd's two shards", st, rows, err, [
        ("labelled routed", lambda rows: rows[0]["impl"] == "keepd-routed"),
        ("requests answered", lambda rows: rows[0]["items"] > 0)])
    st, rows, err = bench("--proto", "keep", "--op", "mix", "--port", port, "--seconds", "1",
                          "--threads", "2", "--rate", "2000")
    one_result("open loop of the mix against keepd", st, rows, err,
               open_loop_sound(rows, 2000) +
               [("the generator's own lateness reported",
                 lambda rows: 0 <= rows[0]["late_p99_us"] <= rows[0]["late_max_us"])])
    st, rows, err = bench("--proto", "keep", "--pubsub", 3, "--rate", 500, "--port", port,
                          "--seconds", "1")
    one_result("pub/sub fan-out from keepd", st, rows, err, [
        ("every delivery arrives",
         lambda rows: rows[0]["deliveries"] == rows[0]["delivered"] == 1500),
        ("percentiles in order", lambda rows: percentiles_ordered(rows[0]))])

    # 3. A stalled server is charged for every request it delayed.
    runner = subprocess.Popen([BENCH, "--proto", "keep", "--op", "get", "--port", str(port),
                               "--seconds", "3", "--threads", "2", "--rate", "2000"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # A second for keep-bench to start (more under sanitizers and load):
    # the stop must fall inside its three-second schedule.
    time.sleep(1.0)
    keepd.send_signal(signal.SIGSTOP)
    time.sleep(0.3)
    keepd.send_signal(signal.SIGCONT)
    try:
        out, err = runner.communicate(timeout=RUN_TIMEOUT)
        rows = [json.loads(line) for line in out.splitlines()]
        st = runner.returncode
    except (subprocess.TimeoutExpired, ValueError) as e:
        runner.kill()
        st, rows, err = None, [], str(e)
    # About 600 of the 6,000 requests fall due in the 300 ms stop; the first
    # 60 of them (p99 and up) wait at least 270 ms.
    one_result("a server stopped for 300 ms shows in p99 and max", st, rows, err, [
        ("every request answered", lambda rows: rows[0]["answered"] == rows[0]["sent"] == 6000),
        ("max at least 250 ms", lambda rows: rows[0]["max_us"] >= 250000),
        ("p99 at least 150 ms", lambda rows: rows[0]["p99_us"] >= 150000),
        ("p50 below the stall", lambda rows: rows[0]["p50_us"] < rows[0]["p99_us"])])
stop(keepd)

# 4. Error answers: a keepd with room for a few keys refuses most SETs.
keepd, port = start_keepd("--memory-cap", "1M")
if tap.check(port is not None, "keepd with a 1 MiB cap starts"):
    st, rows, err = bench("--proto", "keep", "--op", "set", "--port", port, "--seconds", "1",
                          "--threads", "2", "--rate", "2000", "--keys", "100000",
                          "--value-size", "1000")
    one_result("refused SETs are counted as refused, not answered", st, rows, err, [
        ("some refused", lambda rows: rows[0]["refused"] > 0),
        ("answered and refused add up to what was sent",
         lambda rows: rows[0]["answered"] + rows[0]["refused"] == rows[0]["sent"] == 2000),
        ("the refused are infinitely late",
         lambda rows: rows[0]["refused"] < 20 or rows[0]["max_us"] >= INFINITE_US)])
stop(keepd)

# TLS, closed loop.
key = os.path.join(WORK, "cluster.key")
for f in (key, key + ".pub"):
    if os.path.exists(f):
        os.unlink(f)
gen = subprocess.run([KEEPD, "keygen", key], capture_output=True, text=True, timeout=60)
tap.check(gen.returncode == 0, "keepd keygen makes the cluster key", gen.stderr)
port_file = os.path.join(WORK, "keepd.port")
if os.path.exists(port_file):
    os.unlink(port_file)
keepd, port = start([KEEPD, "--tls-key", key, "--port", "0", "--port-file", port_file,
                     "--lock-quarantine", "0"], port_file)
if tap.check(port is not None, "keepd with TLS starts"):
    st, rows, err = bench("--proto", "keep", "--op", "mix", "--port", port, "--seconds", "0.5",
                          "--threads", "2", "--tls", key)
    one_result("closed loop over TLS", st, rows, err, [
        ("labelled tls", lambda rows: rows[0]["impl"] == "keepd-tls"),
        ("requests answered", lambda rows: rows[0]["items"] > 0)])
    refused("--tls is refused in the open loop",
            ["--proto", "keep", "--op", "get", "--port", port, "--rate", "100", "--tls", key],
            2, "--tls is for keep/1 in the closed loop only")
stop(keepd)
refused("--tls refuses a file that is not a key",
        ["--proto", "keep", "--op", "get", "--port", "1", "--tls", BENCH], 2,
        "not a usable key file")

# 5. keep-null and redis-server.
null, port = start_null()
if tap.check(port is not None, "keep-null starts"):
    st, rows, err = bench("--proto", "keep", "--op", "mix", "--port", port, "--seconds", "1",
                          "--threads", "2", "--rate", "2000", "--impl", "null")
    one_result("open loop against keep-null", st, rows, err,
               open_loop_sound(rows, 2000) +
               [("labelled by --impl", lambda rows: rows[0]["impl"] == "null")])
stop(null)

if tap.check(shutil.which("redis-server") and shutil.which("redis-cli"),
             "redis-server and redis-cli are installed (Debian redis-server)"):
    redis, port = start_redis()
    if tap.check(port is not None, "redis-server starts"):
        st, rows, err = bench("--proto", "resp", "--op", "mix", "--port", port, "--seconds",
                              "0.5", "--threads", "2")
        one_result("closed loop of the mix against Redis", st, rows, err, [
            ("requests answered", lambda rows: rows[0]["items"] > 0),
            ("labelled resp", lambda rows: rows[0]["impl"] == "resp")])
        st, rows, err = bench("--proto", "resp", "--op", "mix", "--port", port, "--seconds",
                              "1", "--threads", "2", "--rate", "2000")
        one_result("open loop of the mix against Redis", st, rows, err,
                   open_loop_sound(rows, 2000))
        st, rows, err = bench("--proto", "resp", "--pubsub", 3, "--rate", 500, "--port", port,
                              "--seconds", "1")
        one_result("pub/sub fan-out from Redis", st, rows, err, [
            ("every delivery arrives",
             lambda rows: rows[0]["deliveries"] == rows[0]["delivered"] == 1500)])
        subprocess.run(["redis-cli", "-p", str(port), "flushall"], capture_output=True,
                       timeout=30)
        st, rows, err = bench("--proto", "resp", "--port", port, "--fill", 1000)
        size = subprocess.run(["redis-cli", "-p", str(port), "dbsize"], capture_output=True,
                              text=True, timeout=30).stdout.strip()
        one_result("--fill stores its keys in Redis", st, rows, err, [
            ("1,000 items reported", lambda rows: rows[0]["items"] == 1000),
            (f"Redis holds 1,000 keys (dbsize {size})", lambda rows: size == "1000")])
    stop(redis)

sys.exit(tap.done())
