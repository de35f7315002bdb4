#!/usr/bin/env python3
"""Differential test of the encodify tool (and so of libencodify) against an
independent implementation: Python's base64, binascii and quopri modules and
its UTF-8/UTF-16 codecs, on many random and adversarial inputs.

usage: differential.py PATH-TO-encodify   (prints TAP)

Where the two implementations define a case differently on purpose (MIME
Base64 stops at the first '=', Python only at a complete pad; libencodify
rejects non-zero trailing bits, Python's strict mode does not), the generator
avoids the case or the check states the documented difference. The last
checks are of the command line itself: usage errors, --impl and ENCODIFY_IMPL,
input past the first read buffer and at the 256 MiB limit, a failed write.
"""
import base64
import binascii
import os
import random
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..',
                                'tests', 'scripts'))
from corvid_tap import Tap  # noqa: E402

TOOL = sys.argv[1]
RNG = random.Random(int(os.environ.get('DIFF_SEED', '20240607')))
B64 = b'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'
B64URL = B64[:62] + b'-_'
B32 = b'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'
B32HEX = b'0123456789ABCDEFGHIJKLMNOPQRSTUV'
OFFSET = re.compile(rb'at byte offset (\d+)')

tap = Tap(tap_version=True)
calls = 0


def run(args, data):
    global calls
    calls += 1
    p = subprocess.run([TOOL] + args, input=data, capture_output=True)
    if p.returncode == 0:
        return True, p.stdout, None
    assert p.returncode == 1, (args, p.returncode, p.stderr)
    assert p.stdout == b'', ('output on failure', args, p.stdout)
    m = OFFSET.search(p.stderr)
    return False, p.stderr, int(m.group(1)) if m else None


def check(name, cond, detail=''):
    # One line of at most 500 characters: some details are whole outputs.
    return tap.check(cond, name, detail and str(detail)[:500].replace('\n', ' '))


def rand_bytes(n):
    return bytes(RNG.getrandbits(8) for _ in range(n))


def lengths(count, top=300):
    return [RNG.randrange(0, top + 1) if i % 5 else RNG.randrange(0, 5000) for i in range(count)]


def wrap(text, cols):
    if cols == 0 or not text:
        return text
    return b'\r\n'.join(text[i:i + cols] for i in range(0, len(text), cols))


def first_failure(cases):
    for c in cases:
        if not c[0]:
            return c[1]
    return ''


# Base64 encoding.
def t_base64_encode():
    bad = []
    for n in lengths(120):
        data = rand_bytes(n)
        url = RNG.random() < 0.5
        nopad = RNG.random() < 0.3
        cols = RNG.choice([0, 0, 76, RNG.randrange(1, 100)])
        ref = (base64.urlsafe_b64encode if url else base64.b64encode)(data)
        if nopad:
            ref = ref.rstrip(b'=')
        ref = wrap(ref, cols)
        args = ['encode', 'base64url' if url else 'base64'] + (['--nopad'] if nopad else [])
        if cols:
            args += ['--wrap', str(cols)]
        ok, out, _ = run(args, data)
        bad.append((ok and out == ref, f'{args} len {n}'))
    check('base64 encode matches base64.b64encode / urlsafe_b64encode',
          all(b[0] for b in bad), first_failure(bad))


def mutate(enc, alphabet):
    enc = bytearray(enc)
    kind = RNG.randrange(7)
    if kind == 0 and enc:  # an invalid character
        enc[RNG.randrange(len(enc))] = RNG.choice(b'!*. \r\n\t\x00\x80\xff-_+/')
    elif kind == 1 and enc:  # truncate
        del enc[RNG.randrange(len(enc)):]
    elif kind == 2:  # extra padding
        enc += b'=' * RNG.randrange(1, 3)
    elif kind == 3 and enc:  # padding in the middle
        enc[RNG.randrange(len(enc))] = ord('=')
    elif kind == 4 and enc:  # flip trailing bits
        i = len(enc.rstrip(b'='))
        if i:
            enc[i - 1] = RNG.choice(alphabet)
    elif kind == 5:  # data after the end
        enc += bytes([RNG.choice(alphabet)]) * RNG.randrange(1, 5)
    return bytes(enc)


def py_b64_strict(enc, url):
    if url:
        if b'+' in enc or b'/' in enc:
            raise binascii.Error('not in the URL alphabet')
        enc = enc.replace(b'-', b'+').replace(b'_', b'/')
    return binascii.a2b_base64(enc, strict_mode=True)


def t_base64_strict_decode():
    good, bad = [], []
    for n in lengths(160, 120):
        data = rand_bytes(n)
        url = RNG.random() < 0.3
        alphabet = B64URL if url else B64
        enc = (base64.urlsafe_b64encode if url else base64.b64encode)(data)
        if RNG.random() < 0.6:
            enc = mutate(enc, alphabet)
        codec = 'base64url' if url else 'base64'
        ok, out, off = run(['decode', codec, '--strict'], enc)
        try:
            ref = py_b64_strict(enc, url)
        except binascii.Error:
            ref = None
        what = f'{codec} {enc[:60]!r}'
        if ref is not None and ok:
            good.append((out == ref, what))
        elif ref is not None and not ok:
            # Documented difference: libencodify accepts only the canonical
            # encoding (no non-zero trailing bits; Python 3.11 also lets
            # excess '=' after a complete group through in strict mode).
            canonical = (base64.urlsafe_b64encode if url else base64.b64encode)(ref)
            good.append((canonical != enc and (b'non-zero bits' in out or b'padding' in out),
                         what + ' ' + out.decode()))
        elif ref is None and ok:
            bad.append((False, what + ' accepted, Python rejects'))
        else:
            sane = off is not None and off <= len(enc)
            if sane and b'invalid character' in out:
                sane = enc[off] not in alphabet and all(c in alphabet for c in enc[:off])
            bad.append((sane, what + ' ' + out.decode()))
    check('base64 strict decode agrees with binascii.a2b_base64(strict_mode=True)',
          all(g[0] for g in good), first_failure(good))
    check('base64 strict decode rejects what Python rejects, with a sane offset',
          all(b[0] for b in bad), first_failure(bad))


def t_base64_mime_decode():
    cases = []
    for n in lengths(150, 400):
        data = rand_bytes(n)
        enc = base64.b64encode(data)
        cols = RNG.choice([76, 64, RNG.randrange(1, 200)])
        lines = [enc[i:i + cols] for i in range(0, len(enc), cols)] or [b'']
        eol = RNG.choice([b'\r\n', b'\n'])
        text = eol.join(lines) + (eol if RNG.random() < 0.5 else b'')
        if RNG.random() < 0.5:  # garbage anywhere, never '='
            t = bytearray()
            for c in text:
                if RNG.random() < 0.03:
                    t += bytes([RNG.choice(b' \t!*.:\x00\x7f\x80\xff-_')])
                t.append(c)
            text = bytes(t)
        if enc.endswith(b'=') and RNG.random() < 0.3:  # anything after the padding is ignored
            text += b'\r\n--boundary\r\nQUJD\r\n'
        ok, out, _ = run(['decode', 'base64', '--mime'], text)
        try:
            ref = binascii.a2b_base64(text)
        except binascii.Error:
            ref = data
        cases.append((ok and out == ref == data, f'{text[:80]!r}'))
    # Truncated input: Python fails, MIME decoding keeps what is complete.
    for n in range(1, 40):
        enc = base64.b64encode(rand_bytes(n)).rstrip(b'=')
        ok, out, _ = run(['decode', 'base64', '--mime'], enc)
        full = len(enc) // 4 * 4
        ref = binascii.a2b_base64(enc[:full] + (enc[full:] + b'==')[:4] if len(enc) % 4 >= 2 else enc[:full])
        cases.append((ok and out == ref, f'truncated {enc!r}'))
    check('base64 MIME decode agrees with binascii.a2b_base64 on wrapped and dirty bodies',
          all(c[0] for c in cases), first_failure(cases))


def t_base32():
    cases = []
    for n in lengths(120, 100):
        data = rand_bytes(n)
        hexa = RNG.random() < 0.4
        enc = (base64.b32hexencode if hexa else base64.b32encode)(data)
        codec = 'base32hex' if hexa else 'base32'
        ok, out, _ = run(['encode', codec], data)
        cases.append((ok and out == enc, f'encode {codec} {n}'))
        src = mutate(enc, B32HEX if hexa else B32) if RNG.random() < 0.6 else enc
        ok, out, off = run(['decode', codec], src)
        try:
            ref = (base64.b32hexdecode if hexa else base64.b32decode)(src)
        except binascii.Error:
            ref = None
        what = f'decode {codec} {src[:60]!r}'
        if ref is not None:
            canonical = (base64.b32hexencode if hexa else base64.b32encode)(ref)
            cases.append(((ok and out == ref) or (not ok and b'non-zero bits' in out and canonical != src),
                          what))
        else:
            cases.append((not ok and off is not None and off <= len(src), what + ' accepted'))
    check('base32 and base32hex agree with base64.b32encode/b32decode/b32hex*',
          all(c[0] for c in cases), first_failure(cases))


def ws_strip(text):
    # RFC 2045: white space at the end of a line is removed by the decoder;
    # binascii.a2b_qp does not do that itself.
    return re.sub(rb'[ \t]+(?=\r\n|\n|$)', b'', text)


def qp_text():
    pieces = [b'plain', b'x', b' ', b'\t', b'  ', b'\r\n', b'\n', b'=3D', b'=3d', b'=C3=A9',
              b'=c3=a9', b'=20', b'=\r\n', b'=\n', b'= \t\r\n', b'=G', b'=4G', b'=\x80',
              b'\x80\xff', b'.', b'=4\r\n', b'_']
    return b''.join(RNG.choice(pieces) for _ in range(RNG.randrange(0, 60)))


def t_qp():
    dec, enc = [], []
    for i in range(150):
        text = qp_text()
        if RNG.random() < 0.2:
            text += RNG.choice([b'=', b'=  ', b'abc  ', b'=4'])
        ok, out, _ = run(['decode', 'qp'], text)
        ref = binascii.a2b_qp(ws_strip(text))
        dec.append((ok and out == ref, f'{text!r}: {out!r} vs {ref!r}'))
    for n in lengths(100, 600):
        kind = RNG.randrange(3)
        if kind == 0:
            data = rand_bytes(n)
        elif kind == 1:
            data = bytes(RNG.choice(b'abc def\t\r\n=.\xc3\xa9') for _ in range(n))
        else:
            data = (b'Lorem ipsum dolor sit amet, consectetur adipiscing elit ' * 20)[:n]
        binary = RNG.random() < 0.3
        ok, out, _ = run(['encode', 'qp'] + (['--binary'] if binary else []), data)
        lines = re.split(rb'\r\n|\n', out)
        shape = all(len(l) <= 76 for l in lines) and all(
            not l.endswith((b' ', b'\t')) for l in lines)
        back = binascii.a2b_qp(out)
        enc.append((ok and shape and back == data and (not binary or b'\n' not in out.replace(b'=\r\n', b'')),
                    f'{data[:40]!r} -> {out[:80]!r}'))
    check('qp decode agrees with binascii.a2b_qp (after RFC 2045 trailing-space removal)',
          all(c[0] for c in dec), first_failure(dec))
    check('qp encode: binascii.a2b_qp gives the input back; lines <= 76, no trailing space',
          all(c[0] for c in enc), first_failure(enc))


def t_q():
    cases = []
    for n in lengths(80, 80):
        data = rand_bytes(n) if RNG.random() < 0.5 else bytes(RNG.choice(b'ab _=?.()"\xe9') for _ in range(n))
        phrase = RNG.random() < 0.5
        ok, out, _ = run(['encode', 'q'] + (['--phrase'] if phrase else []), data)
        allowed = re.fullmatch(rb'[A-Za-z0-9!*+\-/_=]*' if phrase else rb'[!-~]*', out)
        cases.append((ok and allowed is not None and b'?' not in out and
                      binascii.a2b_qp(out, header=True) == data, f'{data!r} -> {out!r}'))
        ok2, back, _ = run(['decode', 'q'], out)
        cases.append((ok2 and back == data, f'decode {out!r}'))
    check('q encode/decode agree with binascii.a2b_qp(header=True)',
          all(c[0] for c in cases), first_failure(cases))


def py_utf7imap(s):
    out, run_ = [], []

    def flush():
        if run_:
            b = base64.b64encode(''.join(run_).encode('utf-16-be')).rstrip(b'=')
            out.append(b'&' + b.replace(b'/', b',') + b'-')
            run_.clear()
    for ch in s:
        if 0x20 <= ord(ch) <= 0x7e:
            flush()
            out.append(b'&-' if ch == '&' else ch.encode())
        else:
            run_.append(ch)
    flush()
    return b''.join(out)


def rand_text():
    chars = []
    for _ in range(RNG.randrange(0, 30)):
        k = RNG.randrange(5)
        if k == 0:
            chars.append(chr(RNG.randrange(0x20, 0x7f)))
        elif k == 1:
            chars.append(RNG.choice('&&-+,/'))
        elif k == 2:
            chars.append(chr(RNG.randrange(0, 0x800)))
        elif k == 3:
            c = RNG.randrange(0x800, 0x10000)
            chars.append(chr(c) if not 0xD800 <= c < 0xE000 else 'x')
        else:
            chars.append(chr(RNG.randrange(0x10000, 0x110000)))
    return ''.join(chars)


def t_utf7imap():
    cases, inval = [], []
    for _ in range(150):
        s = rand_text()
        ref = py_utf7imap(s)
        ok, out, _ = run(['encode', 'utf7imap'], s.encode())
        cases.append((ok and out == ref, f'{s!r}: {out!r} vs {ref!r}'))
        ok, back, _ = run(['decode', 'utf7imap'], ref)
        cases.append((ok and back == s.encode(), f'decode {ref!r}'))
    for _ in range(120):
        raw = bytearray(rand_text().encode())
        for _ in range(RNG.randrange(1, 3)):
            if raw:
                raw[RNG.randrange(len(raw))] = RNG.getrandbits(8)
        raw = bytes(raw)
        ok, out, off = run(['encode', 'utf7imap'], raw)
        try:
            s = raw.decode('utf-8')
            inval.append((ok and out == py_utf7imap(s), f'{raw!r}'))
        except UnicodeDecodeError as e:
            inval.append((not ok and off == e.start, f'{raw!r}: offset {off} vs {e.start}'))
    check('utf7imap encode matches a reference built on base64 and UTF-16BE; decode inverts it',
          all(c[0] for c in cases), first_failure(cases))
    check('utf7imap rejects exactly the invalid UTF-8 Python rejects, at the same offset',
          all(c[0] for c in inval), first_failure(inval))


def t_hex():
    cases = []
    for n in lengths(60, 100):
        data = rand_bytes(n)
        upper = RNG.random() < 0.5
        ok, out, _ = run(['encode', 'hex'] + (['--upper'] if upper else []), data)
        ref = data.hex().upper().encode() if upper else data.hex().encode()
        cases.append((ok and out == ref, f'encode {n}'))
        src = bytearray(ref)
        if src and RNG.random() < 0.5:
            src[RNG.randrange(len(src))] = RNG.choice(b'g \x00:0aF')
        if RNG.random() < 0.2:
            src += b'a'
        src = bytes(src)
        ok, out, _ = run(['decode', 'hex'], src)
        try:
            r = binascii.unhexlify(src)
            cases.append((ok and out == r, f'decode {src!r}'))
        except binascii.Error:
            cases.append((not ok, f'decode {src!r} accepted'))
    check('hex agrees with bytes.hex and binascii.unhexlify', all(c[0] for c in cases),
          first_failure(cases))


def t_tool_errors():
    ok, msg, off = run(['decode', 'base64'], b'Zm9v!mFy')
    check('invalid input: status 1, nothing on stdout, offset in the message',
          not ok and off == 4, msg.decode(errors='replace'))
    p = subprocess.run([TOOL, 'decode', 'nosuch'], input=b'', capture_output=True)
    check('unknown codec is a usage error (status 2)', p.returncode == 2 and p.stdout == b'')
    p = subprocess.run([TOOL, 'decode', 'qp', '--wrap', '76'], input=b'', capture_output=True)
    check('an option that does not apply is a usage error', p.returncode == 2)


def t_tool_cli():
    def tool(args, data=b'', env=None):
        return subprocess.run([TOOL] + args, input=data, capture_output=True, env=env)

    p = tool(['--help'])
    check('--help: usage on stdout, status 0',
          p.returncode == 0 and p.stdout.startswith(b'usage: encodify') and p.stderr == b'')
    usage_errors = [
        ([], 'no arguments'),
        (['encode'], 'no codec'),
        (['transcode', 'base64'], 'unknown command'),
        (['encode', 'base64', '--bogus'], 'unknown option'),
        (['encode', 'base64', '--wrap'], '--wrap without a number'),
        (['encode', 'base64', '--wrap', '-4'], 'negative --wrap'),
        (['encode', 'base64', '--wrap', '7x'], '--wrap with trailing letters'),
        (['encode', 'base64', '--wrap', '99999999999999999999999'], '--wrap out of range'),
        (['encode', 'base64', '--impl'], '--impl without a name'),
        (['encode', 'base64', '--impl', 'no-such-impl'], '--impl unknown'),
        (['encode', 'hex', '--phrase'], '--phrase for hex'),
    ]
    for args, what in usage_errors:
        p = tool(args, b'data')
        check(f'usage error, {what}: status 2, a message, nothing on stdout',
              p.returncode == 2 and p.stdout == b'' and
              (p.stderr.startswith(b'encodify: ') or p.stderr.startswith(b'usage: ')),
              (args, p.returncode, p.stderr[:200]))
    # Every implementation this CPU runs gives the bytes Python gives, and
    # the input crosses the tool's first 64 KiB read buffer.
    data = rand_bytes(1 << 20)
    want = base64.b64encode(data)
    impls = [b'scalar', b'swar', b'sse41', b'avx2', b'avx512']
    ran = []
    for name in impls:
        p = tool(['encode', 'base64', '--impl', name.decode()], data)
        if p.returncode == 2 and b'not supported' in p.stderr:
            continue
        ran.append(name.decode())
        check(f'--impl {name.decode()}: 1 MiB encodes as Python does',
              p.returncode == 0 and p.stdout == want, p.stderr[:200])
    check('--impl: scalar and at least one other implementation ran', 'scalar' in ran and
          len(ran) >= 2, ran)
    p = tool(['decode', 'base64'], want)
    check('1 MiB decodes back', p.returncode == 0 and p.stdout == data, p.stderr[:200])
    env = dict(os.environ, ENCODIFY_IMPL='no-such-impl')
    p = tool(['encode', 'base64'], b'abc', env)
    check('ENCODIFY_IMPL unknown: status 1, says so, nothing on stdout',
          p.returncode == 1 and p.stdout == b'' and b'not supported' in p.stderr, p.stderr)
    # Input over the 256 MiB limit is refused before anything is written.
    p = tool(['encode', 'hex'], bytes((256 << 20) + 1))
    check('input over 256 MiB: status 1, nothing on stdout, the limit named',
          p.returncode == 1 and p.stdout == b'' and b'limit of 256 MiB' in p.stderr,
          (p.returncode, p.stderr[:200]))
    p = tool(['encode', 'hex'], bytes(256 << 20))
    check('input of exactly 256 MiB is taken',
          p.returncode == 0 and len(p.stdout) == 512 << 20, (p.returncode, p.stderr[:200]))
    # A failed write is reported.
    with open('/dev/full', 'wb') as full:
        p = subprocess.run([TOOL, 'encode', 'base64'], input=b'abc', stdout=full,
                           stderr=subprocess.PIPE)
    check('a failed write: status 1, "writing standard output"',
          p.returncode == 1 and b'writing standard output' in p.stderr, p.stderr)


for t in [t_base64_encode, t_base64_strict_decode, t_base64_mime_decode, t_base32, t_qp, t_q,
          t_utf7imap, t_hex, t_tool_errors, t_tool_cli]:
    try:
        t()
    except Exception as e:  # a crash of the harness is a failure, not an abort
        check(t.__name__, False, repr(e))

status = tap.done()
print(f'# {calls} runs of the encodify tool')
sys.exit(status)
