#!/usr/bin/python3
"""test_dump.py: checks `mailparse dump --json` and prints TAP.

Usage: test_dump.py MAILPARSE MKCORPUS WORKDIR [COUNT]

1. Crafted messages, each written for values the dump must get exactly
   right: RFC 2047 header decoding, typed addresses and groups, dates in
   UTC, RFC 2231 filenames, the text of an ISO-8859-1 part, SHA-256 of
   decoded bodies against Python's own decoding, the RFC 8621 selections
   and the preview.
2. COUNT (default 200) mkcorpus messages: every output line is valid JSON
   (and ASCII), has every documented key, its selection agrees with an
   independent reading of RFC 8621 4.1.4's parseStructure() written here
   from the RFC's pseudo-code, over the dump's own part list, and the text
   of every UTF-8 part equals Python's decoding of the same part.
3. Usage errors: a missing file gives exit status 1, a message naming it on
   standard error, and the other files still dumped.
"""
import base64
import email
import email.policy
import hashlib
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                "tests", "scripts"))
import corvid_tap  # noqa: E402

TOP_KEYS = ("file", "size", "problems", "headers", "parts", "text_body", "html_body",
            "attachments", "preview", "envelope", "bodystructure")
HEADER_KEYS = ("part", "name", "value", "field", "flags", "decoded", "typed")
PART_KEYS = ("index", "parent", "children", "section", "depth", "type", "subtype", "params",
             "encoding", "encoding_name", "kind", "flags", "header", "body", "preamble",
             "epilogue", "lines", "decoded_size", "sha256", "content_type", "disposition",
             "filename", "charset", "text", "text_flags")

PDF = b"%PDF-1.4\n" + bytes(range(256)) + b"\n%%EOF\n"
PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(200, 256)) * 3


def b64(data):
    s = base64.b64encode(data).decode("ascii")
    return "\r\n".join(s[i:i + 76] for i in range(0, len(s), 76))


CRAFTED = {
    "headers.eml": (
        "Received: from mx.example.net (mx.example.net [192.0.2.1])\r\n"
        "\tby mail.example.org with ESMTPS id 4Xyz; Sun, 10 Mar 2024 14:31:02 +0200\r\n"
        "From: =?UTF-8?Q?Ren=C3=A9_M=C3=BCller?= <rene@example.org>\r\n"
        "To: friends: ann@example.com, \"Bob B.\" <bob@example.net>;, carol@example.com\r\n"
        "Subject: Re: =?ISO-8859-1?Q?Gr=FC=DFe_aus_K=F6ln?=\r\n"
        "Date: Sun, 10 Mar 2024 14:30:00 +0200\r\n"
        "Message-ID: <abc.123@example.org>\r\n"
        "References: <a@x> <b@y>\r\n"
        "List-Id: Example list <list.example.org>\r\n"
        "List-Unsubscribe: <mailto:leave@example.org>, <https://example.org/leave>\r\n"
        "X-Note: =?UTF-8?B?w6l0w6k=?=\r\n"
        "X-Emoji: =?UTF-8?B?8J+YgA==?= ok\r\n"
        "\r\n"
        "Hello\r\n"
    ).encode("ascii"),
    "mixed.eml": (
        "From: a@example.org\r\n"
        "Subject: report\r\n"
        "Content-Type: multipart/mixed; boundary=\"outer\"\r\n"
        "\r\n"
        "--outer\r\n"
        "Content-Type: multipart/alternative; boundary=\"alt\"\r\n"
        "\r\n"
        "--alt\r\n"
        "Content-Type: text/plain; charset=iso-8859-1\r\n"
        "Content-Transfer-Encoding: quoted-printable\r\n"
        "\r\n"
        "Gr=FC=DFe aus K=F6ln,\r\n"
        "  der Bericht h=E4ngt an.\r\n"
        "--alt\r\n"
        "Content-Type: text/html; charset=utf-8\r\n"
        "Content-Transfer-Encoding: base64\r\n"
        "\r\n" + b64("<p>Grüße aus Köln</p>".encode("utf-8")) + "\r\n"
        "--alt--\r\n"
        "--outer\r\n"
        "Content-Type: application/pdf\r\n"
        "Content-Disposition: attachment;\r\n"
        " filename*0*=UTF-8''R%C3%A9sum%C3%A9;\r\n"
        " filename*1=\" 2024.pdf\"\r\n"
        "Content-Transfer-Encoding: base64\r\n"
        "\r\n" + b64(PDF) + "\r\n"
        "--outer\r\n"
        "Content-Type: image/png; name=\"logo.png\"\r\n"
        "Content-Disposition: inline; filename=\"logo.png\"\r\n"
        "Content-ID: <logo@x>\r\n"
        "Content-Transfer-Encoding: base64\r\n"
        "\r\n" + b64(PNG) + "\r\n"
        "--outer--\r\n"
    ).encode("latin-1"),
    "forward.eml": (
        "From: a@example.org\r\n"
        "Subject: Fwd: hello\r\n"
        "Content-Type: multipart/mixed; boundary=b\r\n"
        "\r\n"
        "--b\r\n"
        "Content-Type: text/plain\r\n"
        "\r\n"
        "See below.\r\n"
        "--b\r\n"
        "Content-Type: message/rfc822\r\n"
        "\r\n"
        "From: Inner <inner@example.org>\r\n"
        "Subject: hello\r\n"
        "Content-Type: text/html\r\n"
        "\r\n"
        "<b>inner</b>\r\n"
        "--b--\r\n"
    ).encode("ascii"),
    "htmlonly.eml": (
        "Subject: news\r\n"
        "Content-Type: text/html; charset=windows-1252\r\n"
        "\r\n"
        "<html><head><style>p { color: red }</style></head>\r\n"
        "<body><p>Caf\xe9   &amp;\r\n   cr\xe8me \x80 5</p></body></html>\r\n"
    ).encode("latin-1"),
    "binary-header.eml": b"Subject: bad \xff\xfe bytes \x01\r\nX-Ctl: a\x7fb\r\n\r\n\xff\x00\r\n",
}


class Tap(corvid_tap.Tap):
    """corvid_tap.Tap with this script's ok(cond, name, detail) and eq()."""

    def __init__(self):
        super().__init__(diag_indent="  ", diag_lines=10)

    def ok(self, cond, name, detail=None):
        # str(): a detail that is empty bytes is still shown, as it always was.
        return self.check(cond, name, None if detail is None else str(detail))

    def eq(self, got, want, name):
        self.ok(got == want, name, "got  %r\nwant %r" % (got, want))


def dump(tool, files):
    res = subprocess.run([tool, "dump", "--json"] + files, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, timeout=120)
    return res


def header(d, name, part=0):
    for h in d["headers"]:
        if h["part"] == part and h["name"].lower() == name.lower():
            return h
    raise KeyError(name)


def py_leaves(data):
    """Python's parts in depth-first order, as (content type, node)."""
    out = []

    def walk(m):
        out.append(m)
        if m.is_multipart():
            for sub in m.get_payload():
                walk(sub)

    walk(email.message_from_bytes(data, policy=email.policy.default))
    return out


def check_crafted(t, tool, work):
    os.makedirs(work, exist_ok=True)
    paths = {}
    for name, data in CRAFTED.items():
        paths[name] = os.path.join(work, name)
        with open(paths[name], "wb") as f:
            f.write(data)
    res = dump(tool, [paths[n] for n in CRAFTED])
    t.eq(res.returncode, 0, "crafted: exit status 0")
    lines = res.stdout.decode("ascii").splitlines()
    t.eq(len(lines), len(CRAFTED), "crafted: one line per file")
    dumps = {}
    for line in lines:
        d = json.loads(line)
        dumps[os.path.basename(d["file"])] = d

    d = dumps["headers.eml"]
    t.eq(header(d, "Subject")["decoded"], "Re: Grüße aus Köln", "RFC 2047 Subject decoded")
    t.eq(header(d, "Subject")["typed"]["base"], "Grüße aus Köln", "Subject base")
    t.eq(header(d, "Subject")["typed"]["reply"], True, "Subject reply marker")
    t.eq(header(d, "X-Note")["decoded"], "été", "RFC 2047 B word in an unknown field")
    t.eq(header(d, "X-Note")["typed"], None, "no typed value for X-Note")
    t.eq(header(d, "X-Emoji")["decoded"], "\U0001F600 ok", "character beyond U+FFFF")
    frm = header(d, "From")["typed"]
    t.eq(frm["kind"], "addresses", "From is an address list")
    t.eq([(a["name"], a["email"]) for a in frm["addresses"]],
         [("René Müller", "rene@example.org")], "From: decoded display name and address")
    to = header(d, "To")["typed"]["addresses"]
    t.eq(to[0]["group"], "friends", "To: group name")
    t.eq([(a["name"], a["email"]) for a in to[0]["addresses"]],
         [(None, "ann@example.com"), ("Bob B.", "bob@example.net")], "To: group members")
    t.eq((to[1]["name"], to[1]["email"]), (None, "carol@example.com"), "To: after the group")
    date = header(d, "Date")["typed"]["date"]
    t.eq(date["utc"], "2024-03-10T12:30:00Z", "Date in UTC")
    t.eq((date["offset"], date["offset_minutes"]), ("+0200", 120), "Date zone")
    t.eq(date["local"], "2024-03-10T14:30:00+02:00", "Date local time")
    t.eq(date["timestamp"], 1710073800, "Date timestamp")
    rcv = header(d, "Received")["typed"]
    t.eq((rcv["from"], rcv["by"], rcv["with"], rcv["id"]),
         ("mx.example.net", "mail.example.org", "ESMTPS", "4Xyz"), "Received clauses")
    t.eq(rcv["date"]["utc"], "2024-03-10T12:31:02Z", "Received date in UTC")
    t.eq(header(d, "Message-ID")["typed"]["ids"], ["abc.123@example.org"], "Message-ID")
    t.eq(header(d, "References")["typed"]["ids"], ["a@x", "b@y"], "References")
    t.eq((header(d, "List-Id")["typed"]["name"], header(d, "List-Id")["typed"]["id"]),
         ("Example list", "list.example.org"), "List-Id")
    t.eq(header(d, "List-Unsubscribe")["typed"]["uris"],
         ["mailto:leave@example.org", "https://example.org/leave"], "List-Unsubscribe URIs")
    t.eq(d["parts"][0]["text"], "Hello\r\n", "text of a part without Content-Type")
    t.eq(d["parts"][0]["charset"], "us-ascii", "default charset")
    t.eq((d["text_body"], d["html_body"], d["attachments"]), ([0], [0], []),
         "single part: both bodies")

    d = dumps["mixed.eml"]
    parts = d["parts"]
    t.eq([(p["type"], p["subtype"]) for p in parts],
         [("multipart", "mixed"), ("multipart", "alternative"), ("text", "plain"),
          ("text", "html"), ("application", "pdf"), ("image", "png")], "mixed: part tree")
    t.eq(parts[4]["filename"], "Résumé 2024.pdf", "RFC 2231 filename with continuations")
    t.eq(parts[4]["disposition"]["type"], "attachment", "disposition type")
    t.eq(parts[5]["filename"], "logo.png", "plain filename")
    t.eq(parts[2]["filename"], None, "no filename")
    t.eq(parts[2]["text"], "Grüße aus Köln,\r\n  der Bericht hängt an.", "ISO-8859-1 QP text")
    t.eq(parts[2]["charset"], "iso-8859-1", "charset of the text part")
    t.eq(parts[3]["text"], "<p>Grüße aus Köln</p>", "UTF-8 base64 text")
    t.eq(parts[4]["text"], None, "no text for a pdf")
    t.eq(parts[0]["content_type"]["params"][0]["value"], "outer", "content_type params")
    py = py_leaves(CRAFTED["mixed.eml"])
    for ix in (2, 3, 4, 5):
        want = hashlib.sha256(py[ix].get_payload(decode=True)).hexdigest()
        t.eq(parts[ix]["sha256"], want, "sha256 of part %d equals Python's decoding" % ix)
    t.eq(parts[4]["sha256"], hashlib.sha256(PDF).hexdigest(), "sha256 of the pdf itself")
    t.eq(parts[4]["decoded_size"], len(PDF), "decoded size of the pdf")
    t.eq(d["text_body"], [2, 5], "mixed: text_body (inline image shown too)")
    t.eq(d["html_body"], [3, 5], "mixed: html_body")
    t.eq(d["attachments"], [4], "mixed: attachments")
    t.eq(d["preview"], "Grüße aus Köln, der Bericht hängt an.", "mixed: preview")

    d = dumps["forward.eml"]
    t.eq((d["text_body"], d["html_body"], d["attachments"]), ([1], [1], [2]),
         "forward: the attached message is one attachment")
    t.eq(d["parts"][2]["kind"], "message", "forward: message part")
    t.ok(d["envelope"].startswith("(NIL \"Fwd: hello\""), "forward: envelope", d["envelope"])
    t.ok(d["bodystructure"].startswith("((\"text\" \"plain\""), "forward: bodystructure")

    d = dumps["htmlonly.eml"]
    t.eq(d["preview"], "Café & crème € 5", "HTML-only preview, windows-1252")
    t.eq(d["parts"][0]["text"].count("Caf\u00e9"), 1, "HTML text converted")

    d = dumps["binary-header.eml"]
    h = header(d, "Subject")
    t.eq(h["value"].encode("latin-1"), b" bad \xff\xfe bytes \x01", "raw value keeps bytes")
    t.eq(h["decoded"], "bad \ufffd\ufffd bytes \x01",
         "invalid UTF-8 in a decoded value becomes U+FFFD")
    t.eq(d["parts"][0]["text"], "\u00ff\x00\r\n",
         "text of 8-bit bytes: us-ascii reads as windows-1252, NUL kept")


def parse_structure(d):
    """RFC 8621 4.1.4 parseStructure(), read from the RFC, over a dump."""
    parts = d["parts"]
    text, html, att = [], [], []

    def ctype(p):
        return p["type"] + "/" + p["subtype"]

    def media(p):
        return p["type"] in ("image", "audio", "video")

    def walk(ixs, mtype, in_alt, html_l, text_l):
        tlen = len(text_l) if text_l is not None else -1
        hlen = len(html_l) if html_l is not None else -1
        for i, ix in enumerate(ixs):
            p = parts[ix]
            disp = p["disposition"]["type"] if p["disposition"] else None
            is_inline = (disp != "attachment" and
                         (ctype(p) in ("text/plain", "text/html") or media(p)) and
                         (i == 0 or (mtype != "related" and (media(p) or not p["filename"]))))
            if p["kind"] == "multipart":
                sub = p["subtype"]
                walk(p["children"], sub, in_alt or sub == "alternative", html_l, text_l)
            elif is_inline:
                if mtype == "alternative":
                    target = {"text/plain": text_l, "text/html": html_l}.get(ctype(p), att)
                    if target is not None:
                        target.append(ix)
                    continue
                elif in_alt:
                    if ctype(p) == "text/plain":
                        html_l = None
                    if ctype(p) == "text/html":
                        text_l = None
                if text_l is not None:
                    text_l.append(ix)
                if html_l is not None:
                    html_l.append(ix)
                if (text_l is None or html_l is None) and media(p):
                    att.append(ix)
            else:
                att.append(ix)
        if mtype == "alternative" and text_l is not None and html_l is not None:
            if tlen == len(text_l) and hlen != len(html_l):
                text_l.extend(html_l[hlen:])
            if hlen == len(html_l) and tlen != len(text_l):
                html_l.extend(text_l[tlen:])

    walk([0], "mixed", False, html, text)
    return text, html, att


def check_corpus(t, tool, mkcorpus, work, count):
    corpus = os.path.join(work, "corpus")
    os.makedirs(work, exist_ok=True)
    subprocess.run([mkcorpus, "--seed", "7", "--count", str(count), "--format", "eml", "--out",
                    corpus, "--max-size", "100000"], check=True, stdout=subprocess.DEVNULL,
                   timeout=120)
    files = sorted(os.path.join(corpus, f) for f in os.listdir(corpus))
    t.ok(len(files) >= count, "mkcorpus wrote %d messages" % len(files))
    res = dump(tool, files)
    t.eq(res.returncode, 0, "corpus: exit status 0")
    try:
        lines = res.stdout.decode("ascii").splitlines()
        t.ok(True, "corpus: output is ASCII")
    except UnicodeDecodeError as e:
        t.ok(False, "corpus: output is ASCII", e)
        return
    t.eq(len(lines), len(files), "corpus: one line per message")
    bad_json, bad_keys, bad_sel, bad_text, checked = [], [], [], [], 0
    utf8_checked, bad_utf8 = 0, []
    stats = {"text_parts": 0, "attachments": 0, "alternatives": 0}
    for line in lines:
        try:
            d = json.loads(line)
        except ValueError as e:
            bad_json.append(str(e))
            continue
        name = os.path.basename(d["file"])
        missing = [k for k in TOP_KEYS if k not in d]
        missing += ["header." + k for h in d["headers"] for k in HEADER_KEYS if k not in h]
        missing += ["part." + k for p in d["parts"] for k in PART_KEYS if k not in p]
        if missing:
            bad_keys.append("%s: %s" % (name, sorted(set(missing))[:5]))
            continue
        want = parse_structure(d)
        got = (d["text_body"], d["html_body"], d["attachments"])
        if got != want:
            bad_sel.append("%s: got %r, RFC 8621 reading %r" % (name, got, want))
        for p in d["parts"]:
            is_text = p["type"] == "text" and p["kind"] == "leaf"
            if is_text != isinstance(p["text"], str):
                bad_text.append("%s part %d: text %r" % (name, p["index"], type(p["text"])))
            if is_text:
                stats["text_parts"] += 1
            if p["subtype"] == "alternative":
                stats["alternatives"] += 1
        # Text of UTF-8 parts against Python's decoding of the same bytes.
        with open(d["file"], "rb") as f:
            py = py_leaves(f.read())
        ours = [p for p in d["parts"]]
        if len(py) == len(ours):
            for p, node in zip(ours, py):
                if p["text"] is None or (p["charset"] or "").lower() not in ("utf-8", "utf8"):
                    continue
                if p["encoding"] not in ("7bit", "8bit", "base64", "quoted-printable"):
                    continue
                try:
                    want = (node.get_payload(decode=True) or b"").decode("utf-8")
                except UnicodeDecodeError:
                    continue
                want = want[1:] if want.startswith("\ufeff") else want
                if p["encoding"] == "quoted-printable":
                    # RFC 2045 6.7 (3): trailing blanks are ours to delete.
                    same = [ln.rstrip(" \t\r") for ln in p["text"].split("\n")] == \
                           [ln.rstrip(" \t\r") for ln in want.split("\n")]
                else:
                    same = p["text"] == want
                utf8_checked += 1
                if not same:
                    bad_utf8.append("%s part %d" % (name, p["index"]))
        if len(d["preview"]) > 256 or d["preview"] != d["preview"].strip():
            bad_text.append("%s: preview %r" % (name, d["preview"]))
        stats["attachments"] += len(d["attachments"])
        checked += 1
    t.ok(not bad_json, "corpus: every line parses with json.loads", "\n".join(bad_json))
    t.ok(not bad_keys, "corpus: every documented key present", "\n".join(bad_keys))
    t.ok(not bad_sel, "corpus: selections agree with RFC 8621 4.1.4", "\n".join(bad_sel))
    t.ok(not bad_text, "corpus: text for exactly the text leaves, previews trimmed",
         "\n".join(bad_text))
    t.ok(utf8_checked > 0 and not bad_utf8,
         "corpus: text of %d UTF-8 parts equals Python's decoding" % utf8_checked,
         "\n".join(bad_utf8))
    t.ok(stats["text_parts"] > count and stats["attachments"] > 0 and stats["alternatives"] > 0,
         "corpus: realistic shapes were covered (%d messages, %r)" % (checked, stats))


def check_errors(t, tool, work):
    good = os.path.join(work, "headers.eml")
    missing = os.path.join(work, "does-not-exist.eml")
    res = dump(tool, [missing])
    t.eq(res.returncode, 1, "missing file: exit status 1")
    err = res.stderr.decode("utf-8", "replace")
    t.ok(missing in err and "No such file" in err, "missing file: message names it", err)
    t.eq(res.stdout, b"", "missing file: nothing on standard output")
    res = dump(tool, [missing, good])
    t.eq(res.returncode, 1, "missing and good file: exit status 1")
    lines = res.stdout.decode("ascii").splitlines()
    t.ok(len(lines) == 1 and json.loads(lines[0])["file"] == good,
         "missing and good file: the good one is dumped")
    res = subprocess.run([tool, "dump", "--bogus", good], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, timeout=60)
    t.eq(res.returncode, 2, "unknown option: exit status 2")
    res = subprocess.run([tool, "--help"], stdout=subprocess.PIPE, timeout=60)
    helptext = res.stdout.decode("ascii")
    undocumented = [k for k in TOP_KEYS + HEADER_KEYS + PART_KEYS if k not in helptext]
    t.ok(res.returncode == 0 and not undocumented, "--help documents every key", undocumented)
    res = subprocess.run([tool, "dump", good], stdout=subprocess.PIPE, timeout=60)
    out = res.stdout.decode("utf-8")
    t.ok(res.returncode == 0 and "Subject: Re: Grüße aus Köln" in out and
         "text_body: 0" in out and "preview: Hello" in out, "plain dump is readable", out[:400])


def run(tool, *args):
    return subprocess.run([tool] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          timeout=120)


def check_body(t, tool, work):
    """body FILE PART writes each leaf's decoded body: what Python decodes."""
    path = os.path.join(work, "mixed.eml")
    with open(path, "rb") as f:
        data = f.read()
    d = json.loads(dump(tool, [path]).stdout.decode("ascii"))
    leaves = py_leaves(data)
    t.eq(len(d["parts"]), len(leaves), "body: the same part count as Python")
    for ix, node in enumerate(leaves):
        if node.is_multipart():
            continue
        res = run(tool, "body", path, str(ix))
        t.ok(res.returncode == 0 and res.stdout == node.get_payload(decode=True),
             "body: part %d (%s) decodes as Python's" % (ix, node.get_content_type()),
             "%r\n%r" % (res.stdout[:80], res.stderr[:200]))
    last = len(d["parts"]) - 1
    res = run(tool, "body", path, str(last + 1))
    err = res.stderr.decode("utf-8", "replace")
    t.ok(res.returncode == 1 and res.stdout == b"" and
         ("no part %d (its parts are 0 to %d)" % (last + 1, last)) in err,
         "body: a part past the last: status 1, names the range", err)
    for bad in ["x", "-1", "1x", "", "+1", " 1", "99999999999999999999999"]:
        res = run(tool, "body", path, bad)
        err = res.stderr.decode("utf-8", "replace")
        t.ok(res.returncode == 2 and res.stdout == b"" and "PART must be a part number" in err,
             "body: PART %r is refused (status 2)" % bad, err)
    res = run(tool, "body", os.path.join(work, "does-not-exist.eml"), "0")
    t.ok(res.returncode == 1 and res.stdout == b"" and b"does-not-exist.eml" in res.stderr,
         "body: a missing file: status 1, named", res.stderr)
    res = run(tool, "body", path)
    t.ok(res.returncode == 2 and b"usage:" in res.stderr, "body: no PART: usage, status 2")


def check_bench(t, tool, work):
    """bench parses whole rounds of the files it finds and reports them."""
    folder = os.path.join(work, "bench")
    os.makedirs(os.path.join(folder, "sub"), exist_ok=True)
    sizes = 0
    for i, name in enumerate(["headers.eml", "mixed.eml", "forward.eml"]):
        with open(os.path.join(work, name), "rb") as f:
            data = f.read()
        target = os.path.join(folder, "sub" if i == 2 else "", name)
        with open(target, "wb") as f:
            f.write(data)
        sizes += len(data)
    with open(os.path.join(folder, ".hidden"), "wb") as f:
        f.write(b"not a message, and skipped")
    res = run(tool, "bench", "--seconds", "0.05", folder)
    try:
        rec = json.loads(res.stdout.decode("ascii"))
    except ValueError:
        rec = {}
    rounds = rec.get("items", 0) // 3
    t.ok(res.returncode == 0 and rec.get("bench") == "mailparse_parse" and rounds >= 1 and
         rec["items"] == 3 * rounds and rec["bytes"] == sizes * rounds,
         "bench: whole rounds over the 3 files of a tree (dot files skipped)",
         "%r %r" % (res.stdout, res.stderr))
    t.ok(rec.get("ns", 0) >= 50000000 and rec.get("impl", "") != "" and
         abs(rec.get("msgs_per_s", 0) - rec.get("items", 0) * 1e9 / max(rec.get("ns", 1), 1)) < 1,
         "bench: ran for the time asked and reports a consistent rate", rec)
    for bad in ["0", "-1", "abc", "3601", "nan", "inf", "1x"]:
        res = run(tool, "bench", "--seconds", bad, folder)
        t.ok(res.returncode == 2 and res.stdout == b"" and b"--seconds needs a number" in res.stderr,
             "bench: --seconds %s is refused (status 2)" % bad, res.stderr)
    res = run(tool, "bench", folder, "--seconds")
    t.ok(res.returncode == 2 and res.stdout == b"", "bench: --seconds without a value: status 2")
    empty = os.path.join(work, "bench-empty")
    os.makedirs(empty, exist_ok=True)
    res = run(tool, "bench", empty)
    t.ok(res.returncode == 1 and res.stdout == b"" and b"no files" in res.stderr,
         "bench: an empty folder: status 1", res.stderr)
    missing = os.path.join(work, "no-such-folder")
    res = run(tool, "bench", missing)
    t.ok(res.returncode == 1 and res.stdout == b"" and missing.encode() in res.stderr,
         "bench: a missing path: status 1, named", res.stderr)
    res = run(tool, "bench")
    t.ok(res.returncode == 2 and b"usage:" in res.stderr, "bench: no path: usage, status 2")


def main():
    tool, mkcorpus, work = sys.argv[1:4]
    count = int(sys.argv[4]) if len(sys.argv) > 4 else 200
    t = Tap()
    check_crafted(t, tool, work)
    check_corpus(t, tool, mkcorpus, work, count)
    check_errors(t, tool, work)
    check_body(t, tool, work)
    check_bench(t, tool, work)
    return t.done()


if __name__ == "__main__":
    sys.exit(main())
