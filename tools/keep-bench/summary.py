#!/usr/bin/env python3
# summary.py: the tables run.sh prints from keep-bench's JSON lines.
#   summary.py FILE            the tables
#   summary.py --next FILE     the rates run.sh's bisection should try next
#
# The 1 ms question ("the highest open-loop rate with p99 under 1 ms") is
# answered two ways (README.md, "Highest rate with p99 under 1 ms"):
# - median: a rate passes when the median p99 over its repeats is under
#   1 ms; only rates where keep-null (a server that answers at once: the
#   generator's and the machine's floor) also had a median p99 under 1 ms
#   (FLOOR_US) are judged, the others are skipped. The result is a bracket:
#   the highest rate passed and the next judged rate above it, which failed
#   (or "-" if none); judged rates below it that failed are listed.
# - strict: climbing the rates, every repeat's p99 under 1 ms, no floor
#   check (the criterion of earlier sessions, kept for comparison).
# Then keepd's ratios to Redis and memcached: the median top rates, the
# bounds the brackets allow, the p99.9 of both at keepd's top rate, server
# CPU time per request, closed-loop throughput, memory per key, pub/sub.
import json
import os
import statistics
import sys

# "null" is keep-null, a server that answers at once: the generator's floor.
IMPLS = ["null", "keepd", "resp", "memcached"]
NAMES = {"null": "keep-null", "keepd": "keepd", "resp": "redis-server",
         "memcached": "memcached"}
LIMIT_US = 1000.0
# A rate is judged where keep-null's median p99 is under this (env FLOOR_US;
# default the limit itself). A stricter bound (e.g. 500) leaves more of the
# millisecond to the server at the rates judged, and judges fewer rates.
FLOOR_US = float(os.environ.get("FLOOR_US", LIMIT_US))
# The bisection stops when a bracket is this narrow (relative to its bottom).
BISECT_RESOLUTION = 0.1


def open_runs(rows):
    """{impl: {rate: [run, ...]}} of the open-loop mix runs."""
    by = {}
    for r in rows:
        if r.get("bench", "").startswith("open-loop-mix") and "p99_us" in r:
            by.setdefault(r["impl"], {}).setdefault(r["rate"], []).append(r)
    return by


def med(runs, key):
    return statistics.median(r[key] for r in runs)


def floor_ok(by, rate):
    """A rate can be judged when keep-null's median p99 there is under the
    limit: above it the generator and the machine decide the p99."""
    null = by.get("null", {}).get(rate)
    return bool(null) and med(null, "p99_us") < FLOOR_US


def median_search(by, impl):
    """The knee among the judged rates: (the highest rate passed or 0, the
    next judged rate above it, which failed, or None, the lowest rate above
    the one passed that could not be judged or None, the judged rates below
    the one passed that failed). Not a climb that stops at the first
    failure: at low rates an idle vCPU's slow wake-ups fail servers now and
    then (README.md), and a median over repeats is no lucky pass."""
    rates = sorted(by.get(impl, {}))
    judged = [r for r in rates if floor_ok(by, r)]
    ok = {r for r in judged if med(by[impl][r], "p99_us") < LIMIT_US}
    passed = max(ok, default=0)
    failed = next((r for r in judged if r > passed), None)
    unjudged = next((r for r in rates if r > passed and r not in judged), None)
    dips = [r for r in judged if r < passed and r not in ok]
    return passed, failed, unjudged, dips


def strict_search(by, impl):
    """Climbs every rate; stops at the first one where any repeat's p99
    reached the limit: a lucky pass above a miss says nothing."""
    peak = 0
    for rate in sorted(by.get(impl, {})):
        if not all(r["p99_us"] < LIMIT_US for r in by[impl][rate]):
            break
        peak = rate
    return peak


def next_rates(path):
    """Prints "impl rate" per server (keepd, Redis) whose median bracket is
    still wider than BISECT_RESOLUTION: the middle of it, in steps of 1,000/s,
    unless that rate was run already (keep-null's floor was over the bound
    there, so running it again would not narrow the bracket)."""
    by = open_runs(load(path))
    for impl in ("keepd", "resp"):
        passed, failed, _, _ = median_search(by, impl)
        if passed and failed and failed - passed > BISECT_RESOLUTION * passed:
            mid = round((passed + failed) / 2000) * 1000
            if passed < mid < failed and mid not in by[impl]:
                print(impl, mid)


def load(path):
    return [json.loads(l) for l in open(path) if l.startswith("{")]


def main(path):
    rows = load(path)
    for r in rows:
        if "note" in r:
            print("#", r["note"])
    by = open_runs(rows)
    rates = sorted({rate for impl in by for rate in by[impl]})
    if rates:
        ticks = sorted({r.get("tick_us", 0) for impl in by for v in by[impl].values() for r in v})
        print("open loop, --tick-us %s; median p99 (us) over the repeats per rate "
              "(* keep-null's is over %.0f us: not judged; n = repeats):" %
              ("/".join("%.0f" % t for t in ticks), FLOOR_US))
        print("%9s %s" % ("rate/s", " ".join("%14s" % NAMES[i] for i in IMPLS)))
        for rate in rates:
            cells = []
            for impl in IMPLS:
                v = by.get(impl, {}).get(rate)
                cells.append("%14s" % ("%.0f n=%d" % (med(v, "p99_us"), len(v)) if v else "-"))
            print("%9.0f%s %s" % (rate, " " if floor_ok(by, rate) else "*", " ".join(cells)))
        generator_check(by, rates)
    table(rows, by)
    pubsub(rows)


def generator_check(by, rates):
    """The generator's own lateness (p99 of queued minus due time) and its
    CPU share, worst over the repeats: where they approach the latencies
    above, the generator was measured, not the server."""
    print("generator check, worst over repeats: late p99 us / CPU share of its CPU")
    for rate in rates:
        cells = []
        for impl in IMPLS:
            v = [r for r in by.get(impl, {}).get(rate, []) if "late_p99_us" in r]
            cells.append("%14s" % ("%.0f / %.2f" % (max(r["late_p99_us"] for r in v),
                                                    max(r["gen_cpu_share"] for r in v))
                                   if v else "-"))
        print("%9.0f  %s" % (rate, " ".join(cells)))


def table(rows, by):
    res = {}
    for impl in IMPLS:
        passed, failed, unjudged, dips = median_search(by, impl)
        runs = [r for v in by.get(impl, {}).values() for r in v]
        cpu = [r["server_cpu_us_per_req"] for r in runs if r.get("server_cpu_us_per_req", -1) >= 0]
        closed = [r["items_per_s"] for r in rows if r.get("impl") == impl and
                  r.get("bench", "").startswith("closed-loop-mix") and "items_per_s" in r]
        ccpu = [r["server_cpu_us_per_req"] for r in rows if r.get("impl") == impl and
                r.get("bench", "").endswith("-cpu")]
        mem = [r for r in rows if r.get("bench") == "memory" and r.get("impl") == impl]
        top = by.get(impl, {}).get(passed, [])
        res[impl] = dict(passed=passed, failed=failed, unjudged=unjudged, dips=dips,
                         strict=strict_search(by, impl),
                         p99=med(top, "p99_us") if top else None,
                         p999=med(top, "p999_us") if top else None,
                         cpu=statistics.median(cpu) if cpu else None,
                         ccpu=statistics.median(ccpu) if ccpu else None,
                         closed=statistics.median(closed) if closed else None,
                         mem=mem[0]["bytes_per_key"] if mem else None,
                         rss=mem[0].get("rss_bytes_per_key") if mem else None)

    def f(x, fmt="%.1f"):
        return "-" if x is None else fmt % x

    print("-- highest rate with p99 under %.0f us: median over repeats, judged where "
          "keep-null's is under %.0f us [passed, failed); strict: every repeat, no floor "
          "check" % (LIMIT_US, FLOOR_US))
    print("%-13s %17s %7s %8s %9s %8s %8s %10s %7s %7s" % (
        "server", "median [top,fail)", "strict", "p99 us", "p99.9 us", "cpu ol", "cpu cl",
        "closed/s", "B/key", "RSS B/k"))
    for impl in IMPLS:
        r = res[impl]
        bracket = "[%s,%s)" % ("%.0f" % r["passed"] if r["passed"] else "none",
                               f(r["failed"], "%.0f"))
        print("%-13s %17s %7s %8s %9s %8s %8s %10s %7s %7s" % (
            NAMES[impl], bracket, "%.0f" % r["strict"] if r["strict"] else "none",
            f(r["p99"], "%.0f"), f(r["p999"], "%.0f"), f(r["cpu"], "%.2f"), f(r["ccpu"], "%.2f"),
            f(r["closed"], "%.0f"), f(r["mem"]), f(r["rss"])))
        if r["dips"]:
            print("%13s   (failed below it at %s/s)" % ("", ", ".join("%.0f" % x for x in r["dips"])))
        if r["unjudged"] and not r["failed"] and impl != "null":
            print("%13s   (%s)" % ("", "keep-null's p99 was over %.0f us from %.0f/s on: the "
                                   "top rate is a lower bound" % (FLOOR_US, r["unjudged"])
                                   if r["passed"] else "keep-null's p99 was over %.0f us at "
                                   "every rate: none judged" % FLOOR_US))
    k = res["keepd"]
    for peer in ("resp", "memcached"):
        p = res[peer]
        out = []
        if k["passed"] and p["passed"]:
            out.append("median top rate keepd/peer %.2f" % (k["passed"] / p["passed"]))
            # The brackets bound the ratio: keepd's true top rate is at least
            # its last pass, the peer's below its first failure.
            lo = k["passed"] / p["failed"] if p["failed"] else None
            hi = k["failed"] / p["passed"] if k["failed"] else None
            out.append("bounds (%s, %s)" % (f(lo, "%.2f"), f(hi, "%.2f") if hi else "open"))
            if peer == "resp":
                verdict = ("met" if lo is not None and lo >= 2 else
                           "not met" if hi is not None and hi <= 2 else
                           "not decided at this resolution")
                out.append("2x goal: %s" % verdict)
        if k["strict"] and p["strict"]:
            out.append("strict keepd/peer %.2f" % (k["strict"] / p["strict"]))
        print("keepd vs %s: %s" % (NAMES[peer], ", ".join(out) or "n/a"))
        out = []
        # Tails at one rate where both ran: keepd's median top rate.
        kp = by.get("keepd", {}).get(k["passed"])
        pp = by.get(peer, {}).get(k["passed"])
        xp = by.get("null", {}).get(k["passed"])
        if kp and pp:
            out.append("at %.0f/s median p99.9 keepd %.0f us, peer %.0f us (peer/keepd %.2f; "
                       "keep-null %s); worst p99.9 keepd %.0f, peer %.0f" % (
                           k["passed"], med(kp, "p999_us"), med(pp, "p999_us"),
                           med(pp, "p999_us") / med(kp, "p999_us"),
                           "%.0f" % med(xp, "p999_us") if xp else "-",
                           max(r["p999_us"] for r in kp), max(r["p999_us"] for r in pp)))
        if k["closed"] and p["closed"]:
            out.append("closed-loop req/s keepd/peer %.2f" % (k["closed"] / p["closed"]))
        if k["ccpu"] and p["ccpu"]:
            out.append("closed-loop cpu/req keepd/peer %.2f" % (k["ccpu"] / p["ccpu"]))
        if k["mem"] and p["mem"]:
            out.append("bytes/key keepd/peer %.2f" % (k["mem"] / p["mem"]))
        if out:
            print("  " + "; ".join(out))
    routed = [r["items_per_s"] for r in rows if r.get("impl") == "keepd-routed" and
              "items_per_s" in r]
    if routed:
        print("keepd closed loop with one connection per shard (--route): median %.0f req/s" %
              statistics.median(routed))


def pubsub(rows):
    ps = {}
    for r in rows:
        if r.get("bench", "").startswith("pubsub-fanout"):
            ps.setdefault(r["impl"], []).append(r)
    if ps:
        print("%-13s %10s %10s %10s %10s %16s" % ("pub/sub", "delivered", "p50 us", "p99 us",
                                                  "p99.9 us", "cpu us/delivery"))
        for impl in ("keepd", "resp", "nats"):
            runs = ps.get(impl, [])
            if not runs:
                continue
            print("%-13s %10.0f %10.1f %10.1f %10.1f %16.3f" % (
                NAMES.get(impl, "nats-server"), med(runs, "delivered"), med(runs, "p50_us"),
                med(runs, "p99_us"), med(runs, "p999_us"),
                med(runs, "server_cpu_us_per_delivery")))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--next":
        next_rates(sys.argv[2])
    elif len(sys.argv) == 2:
        main(sys.argv[1])
    else:
        sys.exit("usage: summary.py [--next] FILE")
