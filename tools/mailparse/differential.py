#!/usr/bin/python3
"""differential.py: compares `mailparse dump --json` with Python's email
package (policy=default) and prints TAP, one test point per message.

Usage:
  differential.py MAILPARSE MKCORPUS WORKDIR [COUNT [SEED [FORMAT]]]
      messages made by mkcorpus (COUNT, default 300; SEED, default 1), made
      afresh in WORKDIR/corpus; FORMAT "eml" (the default: one file per
      message, CRLF line ends) or "mbox" (one mboxrd file, LF line ends, split
      here into one file per message)
  differential.py --real MAILPARSE DIR:GLOB...
      real messages: every file under DIR (recursively) whose name matches
      GLOB. A missing DIR, or one without a match, fails the run: the
      messages come from Debian packages that the test command installs.

For every message both parsers must find the same part tree (the same
children, content types and multipart/message nesting), every leaf must
decode to the same bytes (SHA-256 compared) and every part must have the
same filename (Python's get_filename(): the Content-Disposition "filename"
parameter, else the Content-Type "name" parameter). Our filename is the dump's
"filename" key when the tool prints one, else it is read from the dump's IMAP
BODYSTRUCTURE, where libmailparse's own parameter parser (RFC 2231 joined,
RFC 2047 decoded, UTF-8) has written both parameters; when both are there
they must agree.

Each intentional difference is a named rule below (RULES) and a paragraph of
libmailparse/DIFFERENCES.md; a rule applies only where its precise condition
holds, and the summary counts how often each one did.
"""
import binascii
import email
import email.policy
import fnmatch
import hashlib
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "tests", "scripts"))
from corvid_tap import Tap  # noqa: E402

# The named intentional differences (see libmailparse/DIFFERENCES.md).
RULES = (
    "qp-trailing-space",    # RFC 2045 6.7 (3): we delete trailing blanks
    "no-start-delimiter",   # multipart without its first delimiter
    "message-not-rfc822",   # message/partial, /delivery-status ... are leaves
    "message-encoded",      # message/rfc822 in base64 or QP is a leaf
    "unknown-cte",          # x-uuencode and other unknown CTEs kept raw
    "reused-boundary",      # nested multipart reusing an ancestor's boundary
    "no-colon-line",        # a header line without a colon
    "obs-name-wsp",         # RFC 5322 4.5.3: blanks between field name and colon
    "empty-boundary",       # boundary="" is no boundary (RFC 2046 5.1.1)
    "double-delimiter",     # an empty part between two delimiter lines
    "eof-line-break",       # last part of an unclosed multipart keeps its CRLF
    "base64-odd-char",      # base64 with one odd alphabet character at the end
    "ctype-junk",           # junk after the subtype without a ';'
    "bare-cr",              # a CR without LF is data to us, a line end to Python
)

NO_COLON = 1 << 0  # MP_HEADER_NO_COLON
NAME_WSP = 1 << 1  # MP_HEADER_NAME_WSP
PART_NO_BOUNDARY = 1 << 3  # MP_PART_NO_BOUNDARY
PART_NO_END = 1 << 4  # MP_PART_NO_END
PART_NO_BODY = 1 << 7  # MP_PART_NO_BODY
B64_ALPHABET = re.compile(rb"[^A-Za-z0-9+/]")
QP_TRAILING = re.compile(rb"[ \t]+(?=\r?\n|\Z)")
BARE_CR = re.compile(rb"\r(?!\n)")
# Bytes that stand in for a bare CR in the copy Python reads for the bare-cr
# rule: controls that no line splitter in the email package breaks at (not
# VT, FF or the separators 0x1C-0x1E that str.splitlines() knows).
STAND_INS = [bytes([c]) for c in list(range(1, 9)) + list(range(14, 28)) + [31, 127]]


def latin1(s):
    """The bytes of a dump string (each byte is one code point < 256)."""
    return s.encode("latin-1")


# IMAP BODYSTRUCTURE reading (RFC 3501 7.4.2 / RFC 9051 7.5.2), for filenames.

def imap_parse(text):
    """Parses one parenthesised IMAP value into nested lists of bytes/None/int."""
    pos = 0

    def value():
        nonlocal pos
        c = text[pos:pos + 1]
        if c == b"(":
            pos += 1
            items = []
            while text[pos:pos + 1] != b")":
                if text[pos:pos + 1] == b" ":
                    pos += 1
                    continue
                items.append(value())
            pos += 1
            return items
        if c == b'"':
            pos += 1
            out = bytearray()
            while text[pos:pos + 1] != b'"':
                if text[pos:pos + 1] == b"\\":
                    pos += 1
                out += text[pos:pos + 1]
                pos += 1
            pos += 1
            return bytes(out)
        if c == b"{":
            end = text.index(b"}", pos)
            n = int(text[pos + 1:end])
            start = end + 3  # "}" CRLF
            pos = start + n
            return text[start:start + n]
        m = re.compile(rb"[^ ()]+").match(text, pos)
        pos = m.end()
        atom = m.group(0)
        if atom.upper() == b"NIL":
            return None
        return int(atom) if atom.isdigit() else atom

    return value()


def imap_param(plist, name):
    if not isinstance(plist, list):
        return None
    for k, v in zip(plist[0::2], plist[1::2]):
        if isinstance(k, bytes) and k.lower() == name:
            return v if v is not None else b""
    return None


def bodystructure_filenames(dump):
    """Filename (str or None) per part index, in the dump's part order."""
    if "bodystructure" not in dump:
        return None
    tree = imap_parse(latin1(dump["bodystructure"]))
    parts = dump["parts"]
    names = {}

    def walk(ix, node):
        p = parts[ix]
        disp = node[-3] if len(node) >= 3 else None
        fname = None
        if isinstance(disp, list) and len(disp) == 2:
            fname = imap_param(disp[1], b"filename")
        if p["kind"] == "multipart":
            nchild = 0
            while nchild < len(node) and isinstance(node[nchild], list):
                nchild += 1
            if p["children"]:
                for c, sub in zip(p["children"], node[:nchild]):
                    walk(c, sub)
        else:
            if fname is None:
                fname = imap_param(node[2], b"name")
            if p["kind"] == "message" and p["children"]:
                walk(p["children"][0], node[8])
        names[ix] = None if fname is None else fname.decode("utf-8", "replace").strip()

    walk(0, tree)
    return names


# Python's side.

def py_raw(node, cr=None):
    """A leaf's payload as the bytes it had in the input (with the stand-in
    `cr` turned back into the bare CR it replaced)."""
    payload = node.get_payload()
    if isinstance(payload, str):
        raw = payload.encode("ascii", "surrogateescape")
        return raw.replace(cr, b"\r") if cr is not None else raw
    return b""


def py_filename(node):
    try:
        name = node.get_filename()
    except Exception as e:  # a parameter Python cannot read
        return "<python error %s>" % type(e).__name__
    return name


def defects(node):
    return {type(d).__name__ for d in node.defects}


def strip_eol(data):
    for eol in (b"\r\n", b"\n", b"\r"):
        if data.endswith(eol):
            return data[:-len(eol)]
    return data


class Compare:
    """Compares one message: our dump against Python's parse."""

    def __init__(self, tool, path, data, dump, stats, cr=None):
        self.tool, self.path, self.data, self.dump = tool, path, data, dump
        # The stand-in byte of every bare CR in the copy Python parsed (the
        # bare-cr rule), or None when it parsed the message itself.
        self.cr = cr
        self.parts = dump["parts"]
        self.stats = stats
        self.problems = []
        self.rules = []
        self.headers = {}
        for h in dump["headers"]:
            self.headers.setdefault(h["part"], []).append(h)
        self.fnames = bodystructure_filenames(dump)
        if self.parts and "filename" in self.parts[0]:
            # The tool's own filename and the one its BODYSTRUCTURE carries
            # come from the same parameters: they must agree.
            dumped = {p["index"]: p["filename"] for p in self.parts}
            if self.fnames is not None:
                for ix, name in sorted(dumped.items()):
                    bs = self.fnames.get(ix)
                    if (name.strip() if name is not None else None) != bs:
                        self.problems.append("part %d: dump filename %r, BODYSTRUCTURE %r" %
                                             (ix, name, bs))
            self.fnames = dumped

    def rule(self, name):
        assert name in RULES
        self.rules.append(name)
        self.stats["rules"][name] = self.stats["rules"].get(name, 0) + 1

    def body_of(self, ix):
        res = subprocess.run([self.tool, "body", self.path, str(ix)], check=True,
                             stdout=subprocess.PIPE)
        return res.stdout

    def unreadable_field(self, ix):
        """The first field of part ix's header that Python's header reader
        does not take as one (a colon-less line, or blanks before the colon):
        (rule, offset), or None."""
        for h in self.headers.get(ix, []):
            if self.cr is not None and h["name"].startswith("\r"):
                # A line of a lone CR ends the header section for Python; in
                # the copy, the stand-in starts a line that is not a field.
                return "bare-cr", h["field"][0]
            if h["flags"] & NO_COLON and not h["value"].startswith((" ", "\t")):
                return "no-colon-line", h["field"][0]
            if h["flags"] & NAME_WSP:
                return "obs-name-wsp", h["field"][0]
        return None

    def part_end(self, ix):
        b = self.parts[ix]["body"]
        return b[0] + b[1]

    def ancestors_boundaries(self, ix):
        out = set()
        p = self.parts[ix]["parent"]
        while p != -1:
            b = self.parts[p]["params"].get("boundary")
            if b is not None:
                out.add(b)
            p = self.parts[p]["parent"]
        return out

    def walk(self, ix, node, where):
        o = self.parts[ix]
        self.stats["parts"] += 1
        otype = o["type"] + "/" + o["subtype"]
        ttype = node.get_content_type()
        bad = self.unreadable_field(ix)
        if bad is not None and "MissingHeaderBodySeparatorDefect" in defects(node):
            # Python's header section ended at that line, ours went on: its
            # body starts there.
            rule, nc = bad
            self.rule(rule)
            if not node.is_multipart():
                raw = self.data[nc:self.part_end(ix)]
                if py_raw(node, self.cr) not in (raw, strip_eol(raw)):
                    self.problems.append("%s: body from the colon-less line differs" % where)
                return
            if o["kind"] != "multipart":
                self.problems.append("%s: leaf, python multipart" % where)
                return
        if otype != ttype:
            if ttype.startswith(otype) and ttype[len(otype):len(otype) + 1].isspace():
                self.rule("ctype-junk")
            else:
                self.problems.append("%s: type %s, python %s" % (where, otype, ttype))
                return
        if self.fnames is not None:
            ours = self.fnames.get(ix)
            theirs = py_filename(node)
            if ours != theirs:
                self.problems.append("%s: filename %r, python %r" % (where, ours, theirs))
            elif ours is not None:
                self.stats["filenames"] += 1
        if ttype.startswith("message/") and ttype not in ("message/rfc822", "message/global"):
            self.rule("message-not-rfc822")
            return
        if o["kind"] == "leaf" and ttype in ("message/rfc822", "message/global") \
                and o["encoding"] in ("base64", "quoted-printable", "unknown"):
            self.rule("message-encoded")
            return
        if o["flags"] & PART_NO_BOUNDARY and node.is_multipart() and node.get_boundary() == "":
            # Python splits at "--" lines; an empty boundary is none to us.
            self.rule("empty-boundary")
            return
        if o["kind"] == "multipart":
            self.walk_multipart(ix, node, where)
            return
        if o["kind"] == "message":
            sub = node.get_payload()
            if not node.is_multipart() or len(sub) != 1 or len(o["children"]) != 1:
                self.problems.append("%s: message/* nesting differs" % where)
                return
            self.walk(o["children"][0], sub[0], where + ".1")
            return
        if node.is_multipart():
            self.problems.append("%s: leaf, python multipart" % where)
            return
        self.compare_leaf(ix, node, where)

    def walk_multipart(self, ix, node, where):
        o = self.parts[ix]
        if not o["children"]:
            # No delimiter found: we keep an empty multipart, Python a leaf.
            if not node.is_multipart() and "StartBoundaryNotFoundDefect" in defects(node):
                self.rule("no-start-delimiter")
                # Python's payload is the text before the close delimiter if
                # there is one (our preamble), else the whole body.
                r = o["body"] if o["flags"] & PART_NO_END else o["preamble"]
                if py_raw(node, self.cr) != self.data[r[0]:r[0] + r[1]]:
                    self.problems.append("%s: undelimited multipart body differs" % where)
                return
            self.problems.append("%s: multipart without parts, python %s" %
                                 (where, "multipart" if node.is_multipart() else "leaf"))
            return
        if not node.is_multipart():
            self.problems.append("%s: multipart, python leaf" % where)
            return
        ours = list(o["children"])
        theirs = node.get_payload()
        # Python skips a delimiter line that directly follows another one.
        empty = [c for c in ours
                 if self.parts[c]["header"][1] == 0 and self.parts[c]["body"][1] == 0]
        if empty and len(ours) - len(empty) == len(theirs):
            for _ in empty:
                self.rule("double-delimiter")
            ours = [c for c in ours if c not in empty]
        # A nested multipart that reuses an ancestor's boundary: Python's
        # structure follows the outer multipart from there on.
        stop = None
        for k, c in enumerate(ours):
            b = self.parts[c]["params"].get("boundary")
            if self.parts[c]["kind"] == "multipart" and b is not None \
                    and b in self.ancestors_boundaries(c):
                stop = k
                break
        if stop is not None:
            self.rule("reused-boundary")
            for k in range(min(stop, len(theirs))):
                self.walk(ours[k], theirs[k], "%s.%d" % (where, k + 1))
            if stop < len(theirs):
                t = theirs[stop]
                c = self.parts[ours[stop]]
                if t.get_content_type() != c["type"] + "/" + c["subtype"]:
                    self.problems.append("%s.%d: reused-boundary part type differs" %
                                         (where, stop + 1))
            return
        if len(ours) != len(theirs):
            self.problems.append("%s: %d parts, python %d" % (where, len(ours), len(theirs)))
        for k, (c, t) in enumerate(zip(ours, theirs)):
            self.walk(c, t, "%s.%d" % (where, k + 1))

    def compare_leaf(self, ix, node, where):
        o = self.parts[ix]
        if o["encoding"] == "unknown":
            self.rule("unknown-cte")
            return
        self.stats["leaves"] += 1
        payload = node.get_payload(decode=True) or b""
        if self.cr is not None:
            payload = payload.replace(self.cr, b"\r")
        ours = o["sha256"]
        if hashlib.sha256(payload).hexdigest() == ours:
            return
        parent = self.parts[o["parent"]] if o["parent"] != -1 else None
        last = parent is not None and parent["flags"] & PART_NO_END \
            and parent["children"][-1] == ix
        if o["encoding"] == "quoted-printable" or last:
            body = self.body_of(ix)
            if last and strip_eol(body) == payload:
                self.rule("eof-line-break")
                return
            if o["encoding"] == "quoted-printable":
                # RFC 2045 6.7 (3): trailing blanks of each encoded line are
                # transport padding; Python's decoder (binascii, not ours)
                # on the text without them must give our bytes.
                want = binascii.a2b_qp(QP_TRAILING.sub(b"", py_raw(node, self.cr)))
                if body == want:
                    self.rule("qp-trailing-space")
                    return
                if last and strip_eol(body) == want:
                    self.rule("eof-line-break")
                    self.rule("qp-trailing-space")
                    return
        if o["encoding"] == "base64" and "InvalidBase64LengthDefect" in defects(node):
            # Python returns the undecoded text; we decode all complete
            # quanta. binascii (not our decoder) says what that should give.
            chars = B64_ALPHABET.sub(b"", py_raw(node, self.cr))
            chars = chars[:len(chars) - len(chars) % 4]
            if hashlib.sha256(binascii.a2b_base64(chars)).hexdigest() == ours:
                self.rule("base64-odd-char")
                return
        self.problems.append("%s (%s, %s): decoded sha256 differs: %d bytes, python %d" %
                             (where, o["type"] + "/" + o["subtype"], o["encoding"],
                              o["decoded_size"], len(payload)))


def collect_real(specs):
    files, errors = [], []
    for spec in specs:
        top, _, pattern = spec.partition(":")
        if not os.path.isdir(top):
            errors.append("%s: no such directory (install the Debian package)" % top)
            continue
        found = []
        for root, dirs, names in os.walk(top):
            dirs.sort()
            found += [os.path.join(root, n) for n in sorted(names)
                      if fnmatch.fnmatch(n, pattern or "*")]
        if not found:
            errors.append("%s: no file matches %s" % (top, pattern))
        files += found
    return files, errors


def split_mboxrd(path, out_dir):
    """Writes each message of an mboxrd file to out_dir/NNNNNN.eml: the
    "From " separator line dropped, ">From " lines unquoted one level and the
    empty line that ends each message removed."""
    with open(path, "rb") as f:
        data = f.read()
    os.makedirs(out_dir)
    n = 0
    for m in re.split(rb"(?m)^From [^\n]*\n", data):
        if not m:
            continue
        m = re.sub(rb"(?m)^>(>*From )", rb"\1", m)
        if m.endswith(b"\n\n"):
            m = m[:-1]
        n += 1
        with open(os.path.join(out_dir, "%06d.eml" % n), "wb") as f:
            f.write(m)


def make_corpus(mkcorpus, work, count, seed, fmt):
    # Made afresh on every run: a cached corpus would hide a change in mkcorpus.
    corpus = os.path.join(work, "corpus")
    subprocess.run(["rm", "-rf", corpus, corpus + ".mbox"], check=True)
    out = corpus + ".mbox" if fmt == "mbox" else corpus
    subprocess.run([mkcorpus, "--seed", seed, "--count", str(count), "--format", fmt,
                    "--out", out, "--max-size", "200000"], check=True,
                   stdout=subprocess.DEVNULL)
    if fmt == "mbox":
        split_mboxrd(out, corpus)
    return sorted(os.path.join(corpus, f) for f in os.listdir(corpus))


def dump_all(tool, files):
    dumps = {}
    for i in range(0, len(files), 200):
        batch = files[i:i + 200]
        # Exit status 1 names a file it could not parse; the others are
        # still dumped, and a missing dump fails that message below.
        res = subprocess.run([tool, "dump", "--json"] + batch, stdout=subprocess.PIPE)
        if res.returncode not in (0, 1):
            raise SystemExit("%s dump failed with status %d" % (tool, res.returncode))
        for line in res.stdout.decode("utf-8").splitlines():
            d = json.loads(line)
            dumps[d["file"]] = d
    return dumps


def fresh_stats():
    return {"parts": 0, "leaves": 0, "filenames": 0, "rules": {}}


def compare_message(tool, path, data, dump, stats):
    """Compares one message and adds its counts to stats. Where the parsers
    disagree on a message holding a bare CR, the bare-cr rule holds when
    they agree once Python reads a copy with each bare CR replaced by a
    byte it does not split lines at (and turned back into CR in what it
    decodes): that bare CR was the whole difference."""
    part = fresh_stats()
    msg = email.message_from_bytes(data, policy=email.policy.default)
    c = Compare(tool, path, data, dump, part)
    c.walk(0, msg, "root")
    if c.problems and BARE_CR.search(data):
        cr = next((b for b in STAND_INS if b not in data), None)
        if cr is not None:
            retry = fresh_stats()
            masked = BARE_CR.sub(cr, data)
            c2 = Compare(tool, path, data, dump, retry, cr)
            c2.walk(0, email.message_from_bytes(masked, policy=email.policy.default), "root")
            if not c2.problems:
                if "bare-cr" not in c2.rules:
                    c2.rule("bare-cr")
                c, part = c2, retry
    for k in ("parts", "leaves", "filenames"):
        stats[k] += part[k]
    for r, n in part["rules"].items():
        stats["rules"][r] = stats["rules"].get(r, 0) + n
    return c


def main(argv):
    if len(argv) >= 3 and argv[1] == "--real":
        tool = argv[2]
        files, errors = collect_real(argv[3:])
        label = "real"
    elif len(argv) >= 4:
        tool, mkcorpus, work = argv[1:4]
        count = int(argv[4]) if len(argv) > 4 else 300
        seed = argv[5] if len(argv) > 5 else "1"
        fmt = argv[6] if len(argv) > 6 else "eml"
        if fmt not in ("eml", "mbox"):
            sys.stderr.write(__doc__)
            return 2
        os.makedirs(work, exist_ok=True)
        files, errors = make_corpus(mkcorpus, work, count, seed, fmt), []
        label = "mkcorpus " + fmt
    else:
        sys.stderr.write(__doc__)
        return 2
    tap = Tap()
    for e in errors:
        tap.check(False, e)
    dumps = dump_all(tool, files)
    stats = {"parts": 0, "leaves": 0, "filenames": 0, "rules": {}, "with_rules": 0}
    for path in files:
        with open(path, "rb") as f:
            data = f.read()
        name = os.path.relpath(path, os.path.dirname(os.path.dirname(path)))
        if path not in dumps:
            tap.check(False, name, "  mailparse dump printed nothing for it")
            continue
        c = compare_message(tool, path, data, dumps[path], stats)
        tap.check(not c.problems, name, "\n".join("  " + p for p in c.problems[:8]))
        if c.rules:
            if not c.problems:
                tap.note("  rules: " + ", ".join(sorted(set(c.rules))))
            stats["with_rules"] += 1
    tap.note("%s: %d messages, %d parts, %d leaves decoded, %d filenames compared, "
             "%d messages needed a rule" % (label, len(files), stats["parts"], stats["leaves"],
                                            stats["filenames"], stats["with_rules"]))
    for r in RULES:
        tap.note("rule %-20s applied %d times" % (r, stats["rules"].get(r, 0)))
    return tap.done()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
