#!/usr/bin/env python3
"""Command-line test of the encodify tool: argument handling and error paths.

usage: test_cli.py PATH-TO-encodify [SANITIZE [COVERAGE]]   (prints TAP)

SANITIZE is meson's b_sanitize ('none' for a plain build), COVERAGE its
b_coverage ('true' or 'false'). differential.py checks the codecs' output
against Python's; this script checks what the command line does around them,
each case with the exact exit status, standard error and standard output
(empty whenever the tool refuses):
  - usage errors: no or too few arguments, unknown command, codec or option,
    an option missing its value, --help and -h;
  - every option with every codec and direction: the tool refuses, before
    reading standard input, each option that does not apply, and an option
    that does apply changes the output;
  - --wrap values, --impl with each implementation name and a bad one, and
    ENCODIFY_IMPL naming no implementation;
  - invalid input for each decoder (and for UTF-8 to modified UTF-7), with
    the byte offset in the message;
  - input of exactly the 256 MiB limit and one byte over, read from sparse
    files so that this script holds neither in memory;
  - allocation failures under RLIMIT_DATA, read errors (standard input a
    directory or closed) and write errors (/dev/full, a closed descriptor, a
    broken pipe, a file size limit), and a write cut short by a stop signal.
The 256 MiB and RLIMIT_DATA cases run only in builds without sanitizers:
under ASan the two 256 MiB reads alone took over 20 s, and ASan's shadow
memory does not fit under a data limit. In a coverage build, libgcov writes
its counters at exit, so the cases that leave no memory or no file space
check only the first line of standard error (libgcov adds its own) and let
death by a signal pass for the status (libgcov may crash after the tool's
message when there is no memory left).
"""
import array
import errno
import fcntl
import os
import platform
import resource
import signal
import subprocess
import sys
import tempfile
import termios
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..',
                                'tests', 'scripts'))
from corvid_tap import Tap  # noqa: E402

TOOL = sys.argv[1]
SANITIZED = len(sys.argv) > 2 and sys.argv[2] not in ('', 'none')
COVERAGE = len(sys.argv) > 3 and sys.argv[3] == 'true'
MAX_INPUT = 256 << 20
# Every run is bounded: a tool that blocks fails its case instead of hanging.
RUN_TIMEOUT = 60

CODECS = ['base64', 'base64url', 'base32', 'base32hex', 'qp', 'q', 'utf7imap', 'hex']
DIRECTIONS = ['encode', 'decode']

tap = Tap(tap_version=True, diag_lines=8)


def run(args, data=b'', env=None, **kwargs):
    """Runs the tool with `data` on standard input (unless kwargs give a
    stdin) and returns the CompletedProcess with both outputs captured (unless
    kwargs redirect stdout)."""
    if 'stdin' not in kwargs:
        kwargs['input'] = data
    kwargs.setdefault('stdout', subprocess.PIPE)
    return subprocess.run([TOOL] + args, stderr=subprocess.PIPE, env=env, timeout=RUN_TIMEOUT,
                          **kwargs)


def expect(name, p, status, stdout=b'', stderr=None, gcov_at_exit=False):
    """Checks status, stdout and stderr exactly (stderr=None: not checked).

    gcov_at_exit: the case leaves libgcov no memory or no file space when it
    writes its counters at exit. In a coverage build only the first line of
    stderr is checked then, and death by a signal (libgcov's, after the
    tool's message) passes for the status."""
    problems = []
    err = p.stderr
    if COVERAGE and gcov_at_exit:
        err = err[:err.find(b'\n') + 1]
        if p.returncode < 0:
            status = p.returncode
    if p.returncode != status:
        problems.append('status %r, want %r' % (p.returncode, status))
    if p.stdout is not None and p.stdout != stdout:
        problems.append('stdout %r, want %r' % (p.stdout[:200], stdout[:200]))
    if stderr is not None and err != stderr:
        problems.append('stderr %r, want %r' % (p.stderr[:300], stderr[:300]))
    return tap.check(not problems, name, '\n'.join(problems))


def os_text(code):
    return os.strerror(code).encode()


# The usage text, as --help prints it; refusals print the same on stderr.
help_run = run(['--help'])
USAGE = help_run.stdout


def t_usage():
    tap.check(help_run.returncode == 0 and help_run.stderr == b'' and
              USAGE.startswith(b'usage: encodify encode|decode CODEC [OPTIONS]') and
              b'CODEC: ' + ' '.join(CODECS).encode() + b'\n' in USAGE and
              b'Input is limited to %d bytes.' % MAX_INPUT in USAGE,
              '--help: status 0, usage naming every codec and the limit on stdout only',
              (help_run.returncode, help_run.stderr, USAGE[:300]))
    expect('-h prints the same usage as --help', run(['-h']), 0, USAGE, b'')
    expect('no arguments: status 2, usage on stderr', run([]), 2, b'', USAGE)
    expect('a command without a codec: status 2, usage on stderr', run(['encode']), 2, b'',
           USAGE)
    expect('--help with more arguments is taken as an unknown command',
           run(['--help', 'base64']), 2, b'', b"encodify: unknown command '--help'\n" + USAGE)
    expect('unknown command: status 2, named, usage', run(['transcode', 'base64']), 2, b'',
           b"encodify: unknown command 'transcode'\n" + USAGE)
    expect('commands are case-sensitive', run(['Encode', 'base64']), 2, b'',
           b"encodify: unknown command 'Encode'\n" + USAGE)
    expect('unknown codec: status 2, named, usage', run(['encode', 'base65']), 2, b'',
           b"encodify: unknown codec 'base65'\n" + USAGE)
    expect('codec names are exact (no prefix match)', run(['decode', 'base']), 2, b'',
           b"encodify: unknown codec 'base'\n" + USAGE)
    expect('unknown option: status 2, named, usage', run(['encode', 'hex', '--bogus'], b'a'), 2,
           b'', b"encodify: unknown or incomplete option '--bogus'\n" + USAGE)
    expect('an option after a valid one is still checked',
           run(['encode', 'hex', '--upper', 'extra'], b'a'), 2, b'',
           b"encodify: unknown or incomplete option 'extra'\n" + USAGE)
    expect('--wrap without its number: incomplete option',
           run(['encode', 'base64', '--wrap'], b'a'), 2, b'',
           b"encodify: unknown or incomplete option '--wrap'\n" + USAGE)
    expect('--impl without its name: incomplete option',
           run(['encode', 'base64', '--impl'], b'a'), 2, b'',
           b"encodify: unknown or incomplete option '--impl'\n" + USAGE)


# Options that apply, per (direction, codec), each with an input and the
# output the option gives (without the option the output differs).
APPLIES = {
    ('--wrap', 'encode', 'base64'): (b'foobar', b'Zm9v\r\nYmFy'),
    ('--wrap', 'encode', 'base64url'): (b'\xfb\xff\xbf' * 2, b'-_-_\r\n-_-_'),
    ('--mime', 'decode', 'base64'): (b'Zm9v\r\nYmFy', b'foobar'),
    ('--mime', 'decode', 'base64url'): (b'-_-_\r\n-_-_', b'\xfb\xff\xbf' * 2),
    ('--nopad', 'encode', 'base64'): (b'f', b'Zg'),
    ('--nopad', 'encode', 'base64url'): (b'\xff', b'_w'),
    ('--nopad', 'encode', 'base32'): (b'f', b'MY'),
    ('--nopad', 'encode', 'base32hex'): (b'f', b'CO'),
    ('--nopad', 'decode', 'base64'): (b'Zg', b'f'),
    ('--nopad', 'decode', 'base64url'): (b'_w', b'\xff'),
    ('--nopad', 'decode', 'base32'): (b'MY', b'f'),
    ('--nopad', 'decode', 'base32hex'): (b'CO', b'f'),
    ('--upper', 'encode', 'hex'): (b'\xab\xcd', b'ABCD'),
    ('--binary', 'encode', 'qp'): (b'a\r\nb', b'a=0D=0Ab'),
    ('--phrase', 'encode', 'q'): (b'a.b', b'a=2Eb'),
}
# A valid input per (direction, codec), for options that change nothing.
VALID = {
    'encode': b'f\xc3\xa9 &\r\n',
    'decode': {'base64': b'Zm9v', 'base64url': b'Zm9v', 'base32': b'MZXW6===',
               'base32hex': b'CPNMU===', 'qp': b'a=3Db', 'q': b'a_b', 'utf7imap': b'&AOk-',
               'hex': b'6162'},
}


def valid_input(direction, codec):
    return VALID['encode'] if direction == 'encode' else VALID['decode'][codec]


def t_option_applies():
    for option in ['--wrap', '--mime', '--nopad', '--upper', '--binary', '--phrase']:
        argv = [option, '4'] if option == '--wrap' else [option]
        wrong = []
        for direction in DIRECTIONS:
            for codec in CODECS:
                case = APPLIES.get((option, direction, codec))
                data, want = case if case else (valid_input(direction, codec), b'')
                p = run([direction, codec] + argv, data)
                if case is None:
                    refusal = ('encodify: these options do not apply to %s %s\n' %
                               (direction, codec)).encode()
                    if (p.returncode, p.stdout, p.stderr) != (2, b'', refusal):
                        wrong.append((direction, codec, 'not refused', p.returncode, p.stdout,
                                      p.stderr))
                    continue
                plain = run([direction, codec], data)
                if (p.returncode, p.stdout, p.stderr) != (0, want, b'') or plain.stdout == want:
                    wrong.append((direction, codec, p.returncode, p.stdout, p.stderr,
                                  'without the option', plain.stdout))
        tap.check(not wrong,
                  '%s: refused (status 2, the reason, nothing on stdout) where it does not apply, '
                  'changes the output where it does' % option, '\n'.join(map(repr, wrong)))


def t_refusal_reads_nothing():
    # The tool refuses the options before it reads standard input: with a pipe
    # that stays open, a tool that read first would block here.
    proc = subprocess.Popen([TOOL, 'decode', 'qp', '--wrap', '76'], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        status = proc.wait(timeout=10)
        out, err = proc.stdout.read(), proc.stderr.read()
        tap.check((status, out, err) == (2, b'',
                                         b'encodify: these options do not apply to decode qp\n'),
                  'an option that does not apply is refused before standard input is read',
                  (status, out, err))
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        tap.check(False, 'an option that does not apply is refused before standard input is '
                  'read', 'still running after 10 s with standard input open')
    finally:
        proc.stdin.close()
        proc.stdout.close()
        proc.stderr.close()


def t_option_combinations():
    wrong = []
    for direction in DIRECTIONS:
        for codec in CODECS:
            data = valid_input(direction, codec)
            plain = run([direction, codec], data)
            for extra in (['--strict'], ['--wrap', '0']):
                p = run([direction, codec] + extra, data)
                if plain.returncode != 0 or (p.returncode, p.stdout, p.stderr) != (
                        0, plain.stdout, b''):
                    wrong.append((direction, codec, extra, p.returncode, p.stdout, p.stderr))
    # --strict only clears --mime, and --wrap 0 means "one line", so the tool
    # takes both with every codec (unlike the options above) and changes
    # nothing.
    tap.check(not wrong, '--strict and --wrap 0 are accepted with every codec and direction and '
              'change nothing', '\n'.join(map(repr, wrong)))
    expect('--mime then --strict: the last wins, strict decoding',
           run(['decode', 'base64', '--mime', '--strict'], b'Zm9v!mFy'), 1, b'',
           b'encodify: decode base64: invalid character in the input at byte offset 4\n')
    expect('--strict then --mime: the last wins, MIME decoding',
           run(['decode', 'base64', '--strict', '--mime'], b'Zm9v!mFy'), 0, b'foo\x98\x5c')
    expect('--mime with --nopad is refused',
           run(['decode', 'base64', '--mime', '--nopad'], b'Zm9v'), 2, b'',
           b'encodify: these options do not apply to decode base64\n')
    expect('--nopad and --wrap together', run(['encode', 'base64', '--nopad', '--wrap', '2'],
                                              b'ff'), 0, b'Zm\r\nY')
    expect('a repeated option is the same as one', run(['encode', 'hex', '--upper', '--upper'],
                                                       b'\xfe'), 0, b'FE', b'')


def t_wrap_values():
    data = b'foobarbazqux'
    accepted = [
        ('0', b'Zm9vYmFyYmF6cXV4', '--wrap 0: one line'),
        ('1', b'\r\n'.join(bytes([c]) for c in b'Zm9vYmFyYmF6cXV4'), '--wrap 1'),
        ('4', b'Zm9v\r\nYmFy\r\nYmF6\r\ncXV4', '--wrap 4: no CRLF after the last line'),
        ('5', b'Zm9vY\r\nmFyYm\r\nF6cXV\r\n4', '--wrap 5 (not a multiple of 4)'),
        ('16', b'Zm9vYmFyYmF6cXV4', '--wrap equal to the output length: no CRLF'),
        ('18446744073709551615', b'Zm9vYmFyYmF6cXV4',
         '--wrap 2^64-1 (the largest number) is taken: one line'),
    ]
    for value, want, what in accepted:
        expect(what, run(['encode', 'base64', '--wrap', value], data), 0, want, b'')
    refused = [
        ('-1', 'negative'),
        ('-0', 'negative zero'),
        ('abc', 'not a number'),
        ('', 'empty'),
        ('7x', 'trailing letters'),
        ('76 ', 'a trailing space'),
        ('0x10', 'hexadecimal'),
        ('18446744073709551616', '2^64 (out of range)'),
        ('99999999999999999999999', 'far out of range'),
        (' -5', 'negative after a blank (strtoull skips it)'),
        (' 5', 'a leading blank'),
        ('+5', 'a sign'),
    ]
    for value, what in refused:
        expect('--wrap %s refused: status 2, a message, nothing on stdout' % what,
               run(['encode', 'base64', '--wrap', value], data), 2, b'',
               b'encodify: --wrap needs a number\n')


def t_impl():
    data = bytes((i * 7 + 3) % 256 for i in range(3000))
    scalar = run(['encode', 'base64', '--impl', 'scalar'], data)
    tap.check(scalar.returncode == 0 and len(scalar.stdout) == 4000 and scalar.stderr == b'',
              '--impl scalar: status 0, 4000 characters for 3000 bytes',
              (scalar.returncode, len(scalar.stdout), scalar.stderr))
    bad = bytearray(scalar.stdout)
    bad[2000] = ord('!')
    ran = []
    # Each name either runs or is refused with the reason; which ones run
    # depends on the CPU, but scalar and swar always do.
    for name in ['scalar', 'swar', 'sse41', 'avx2', 'avx512', 'neon']:
        p = run(['encode', 'base64', '--impl', name], data)
        refusal = ("encodify: implementation '%s': operation not supported by the selected "
                   "implementation\n" % name).encode()
        if p.returncode == 2:
            expect('--impl %s: refused with status 2 and the reason' % name, p, 2, b'', refusal)
            continue
        ran.append(name)
        expect('--impl %s: status 0, the same output as scalar' % name, p, 0, scalar.stdout, b'')
        expect('--impl %s: decodes back' % name,
               run(['decode', 'base64', '--impl', name], scalar.stdout), 0, data, b'')
        expect('--impl %s: an invalid character at offset 2000 is reported there' % name,
               run(['decode', 'base64', '--impl', name], bytes(bad)), 1, b'',
               b'encodify: decode base64: invalid character in the input at byte offset 2000\n')
    tap.check('scalar' in ran and 'swar' in ran, '--impl: scalar and swar always run', ran)
    if platform.machine() == 'x86_64':
        tap.check('neon' not in ran, '--impl neon is refused on x86_64', ran)
    for name, what in [('no-such-impl', 'an unknown name'), ('', 'an empty name'),
                       ('Scalar', 'a name in the wrong case')]:
        expect('--impl with %s: status 2, the reason, nothing on stdout' % what,
               run(['encode', 'hex', '--impl', name], b'a'), 2, b'',
               ("encodify: implementation '%s': operation not supported by the selected "
                "implementation\n" % name).encode())
    bad_env = dict(os.environ, ENCODIFY_IMPL='no-such-impl')
    expect('ENCODIFY_IMPL unknown: status 1, the reason without an offset, nothing on stdout',
           run(['encode', 'base64'], b'foo', env=bad_env), 1, b'',
           b'encodify: encode base64: operation not supported by the selected implementation\n')
    expect('ENCODIFY_IMPL unknown, decoding invalid input: the same reason, no offset',
           run(['decode', 'hex'], b'zz', env=bad_env), 1, b'',
           b'encodify: decode hex: operation not supported by the selected implementation\n')
    expect('--impl overrides an unknown ENCODIFY_IMPL',
           run(['encode', 'base64', '--impl', 'scalar'], b'foo', env=bad_env), 0, b'Zm9v', b'')


# Invalid input per decoder: (direction, codec, options, input, error text,
# byte offset). The offset is of the first wrong byte, or the input length
# when the input ends too early.
INVALID = [
    ('decode', 'base64', [], b'Zm9v!mFy', b'invalid character in the input', 4),
    ('decode', 'base64', [], b'Zm9v\r\nYmFy', b'invalid character in the input', 4),
    ('decode', 'base64', [], b'Zm9vY', b'input ends inside an encoded unit', 5),
    ('decode', 'base64', [], b'Zh==', b'non-zero bits after the last encoded byte', 1),
    ('decode', 'base64', [], b'Zg=', b'missing, misplaced or excess padding', 3),
    ('decode', 'base64', [], b'Zm9v=mFy', b'missing, misplaced or excess padding', 4),
    ('decode', 'base64', ['--nopad'], b'Zm8=', b'invalid character in the input', 3),
    ('decode', 'base64url', [], b'Zm9v+mFy', b'invalid character in the input', 4),
    ('decode', 'base32', [], b'MZXW1YTB', b'invalid character in the input', 4),
    ('decode', 'base32', [], b'mzxw6===', b'invalid character in the input', 0),
    ('decode', 'base32', [], b'MZXW6==', b'missing, misplaced or excess padding', 7),
    ('decode', 'base32hex', [], b'CPNMUW', b'invalid character in the input', 5),
    ('decode', 'utf7imap', [], b'ab\x80', b'invalid character in the input', 2),
    ('decode', 'utf7imap', [], b'&AOk', b'input ends inside an encoded unit', 4),
    ('decode', 'utf7imap', [], b'&AOk-&AOk-', b'non-canonical encoding', 5),
    ('decode', 'utf7imap', [], b'&AGE-', b'non-canonical encoding', 0),
    ('decode', 'utf7imap', [], b'&2D3-', b'invalid UTF-16 in a modified UTF-7 shift sequence', 4),
    ('decode', 'hex', [], b'0g', b'invalid character in the input', 1),
    ('decode', 'hex', [], b'abc', b'input ends inside an encoded unit', 3),
    # Past the tool's first 64 KiB read.
    ('decode', 'hex', [], b'0' * 100000 + b'g0', b'invalid character in the input', 100000),
    ('encode', 'utf7imap', [], b'ab\xffc', b'invalid UTF-8', 2),
    ('encode', 'utf7imap', [], b'a\xed\xa0\x80', b'invalid UTF-8', 1),
]


def t_invalid_input():
    for direction, codec, options, data, text, offset in INVALID:
        expect('%s %s %s %r: status 1, "%s at byte offset %d", nothing on stdout' %
               (direction, codec, ' '.join(options), data[:12], text.decode(), offset),
               run([direction, codec] + options, data), 1, b'',
               b'encodify: %s %s: %s at byte offset %d\n' %
               (direction.encode(), codec.encode(), text, offset))
    # The decoders that never fail on content take the same kind of input.
    expect('decode base64 --mime skips what strict decoding refuses',
           run(['decode', 'base64', '--mime'], b'Zm9v!Y\nmFy'), 0, b'foobar', b'')
    expect('decode qp keeps a malformed "=" as it is', run(['decode', 'qp'], b'a=G1b=4'), 0,
           b'a=G1b=4', b'')
    expect('decode q keeps a malformed "=" as it is', run(['decode', 'q'], b'a=4_=zz'), 0,
           b'a=4 =zz', b'')
    expect('empty input encodes to nothing', run(['encode', 'base64']), 0, b'', b'')
    expect('empty input decodes to nothing', run(['decode', 'utf7imap']), 0, b'', b'')


def sparse_file(path, size, tail):
    """A file of `size` bytes: NUL bytes (a hole, so nothing is written)
    then `tail`."""
    with open(path, 'wb') as f:
        f.truncate(size - len(tail))
        f.seek(0, os.SEEK_END)
        f.write(tail)


def t_input_limit():
    # NUL bytes are outside the Base64 alphabet, which MIME decoding skips;
    # the tail proves that the tool read the input to its last byte.
    path = os.path.join(TMP, 'limit')
    sparse_file(path, MAX_INPUT, b'Zm9v')
    with open(path, 'rb') as f:
        expect('input of exactly 256 MiB is decoded to its last byte',
               run(['decode', 'base64', '--mime'], stdin=f), 0, b'foo', b'')
    sparse_file(path, MAX_INPUT + 1, b'Zm9vY')
    with open(path, 'rb') as f:
        expect('input of 256 MiB + 1 byte: status 1, the limit named, nothing on stdout',
               run(['decode', 'base64', '--mime'], stdin=f), 1, b'',
               b'encodify: reading standard input: input larger than the limit of 256 MiB\n')
    os.unlink(path)


def limit_data(kib):
    def set_limit():
        resource.setrlimit(resource.RLIMIT_DATA, (kib << 10, kib << 10))
    return set_limit


def t_out_of_memory():
    enomem = b'encodify: reading standard input: ' + os_text(errno.ENOMEM) + b'\n'
    # The first 64 KiB buffer: find the smallest data limit under which the
    # tool works, then go 32 KiB below it. The process still starts there
    # (the loader needs less than the buffer), so the first malloc() fails.
    low, high = 0, 64 << 10
    if run(['encode', 'hex'], b'ab', preexec_fn=limit_data(high)).returncode != 0:
        tap.check(False, 'the tool runs under a 64 MiB data limit')
        return
    while high - low > 4:
        mid = (low + high) // 2
        ok = run(['encode', 'hex'], b'ab', preexec_fn=limit_data(mid)).returncode == 0
        low, high = (low, mid) if ok else (mid, high)
    expect('no memory for the first read buffer (data limit %d KiB): status 1, the reason' %
           (high - 32), run(['encode', 'hex'], b'ab', preexec_fn=limit_data(high - 32)), 1,
           b'', enomem, gcov_at_exit=True)
    # Growing the buffer: 64 MiB of input under a 16 MiB limit.
    path = os.path.join(TMP, 'big')
    sparse_file(path, 64 << 20, b'')
    with open(path, 'rb') as f:
        expect('no memory to grow the read buffer: status 1, the reason',
               run(['encode', 'hex'], stdin=f, preexec_fn=limit_data(16 << 10)), 1, b'', enomem)
    # The output: 16 MiB of input (a 32 MiB buffer once EOF is seen) fits
    # under 48 MiB, its 32 MiB of hex does not.
    sparse_file(path, 16 << 20, b'')
    with open(path, 'rb') as f:
        expect('no memory for the output: status 1, "out of memory"',
               run(['encode', 'hex'], stdin=f, preexec_fn=limit_data(48 << 10)), 1, b'',
               b'encodify: out of memory\n')
    with open(path, 'rb') as f:
        p = run(['encode', 'hex'], stdin=f, preexec_fn=limit_data(128 << 10))
    tap.check(p.returncode == 0 and len(p.stdout) == 32 << 20 and p.stdout.count(b'0') ==
              32 << 20, 'the same input under a 128 MiB limit is encoded',
              (p.returncode, len(p.stdout), p.stderr))
    os.unlink(path)


def t_read_errors():
    fd = os.open(TMP, os.O_RDONLY | os.O_DIRECTORY)
    try:
        expect('standard input a directory: status 1, the reason, nothing on stdout',
               run(['encode', 'base64'], stdin=fd), 1, b'',
               b'encodify: reading standard input: ' + os_text(errno.EISDIR) + b'\n')
    finally:
        os.close(fd)
    expect('standard input closed: status 1, the reason, nothing on stdout',
           run(['encode', 'base64'], stdin=subprocess.DEVNULL, preexec_fn=lambda: os.close(0)),
           1, b'', b'encodify: reading standard input: ' + os_text(errno.EBADF) + b'\n')


def t_write_errors():
    write_error = b'encodify: writing standard output: '
    with open('/dev/full', 'wb') as full:
        expect('standard output /dev/full: status 1, the reason',
               run(['encode', 'base64'], b'abc', stdout=full), 1, None,
               write_error + os_text(errno.ENOSPC) + b'\n')
    expect('standard output closed: status 1, the reason',
           run(['encode', 'base64'], b'abc', stdout=subprocess.DEVNULL,
               preexec_fn=lambda: os.close(1)), 1, None,
           write_error + os_text(errno.EBADF) + b'\n')
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        # With SIGPIPE ignored the write fails with EPIPE instead of killing.
        expect('standard output a pipe nobody reads (SIGPIPE ignored): status 1, the reason',
               run(['encode', 'base64'], b'abc', stdout=write_end,
                   preexec_fn=lambda: signal.signal(signal.SIGPIPE, signal.SIG_IGN)), 1, None,
               write_error + os_text(errno.EPIPE) + b'\n')
    finally:
        os.close(write_end)

    # A file size limit of 1000 bytes cuts the first write short; the next
    # write fails with EFBIG (SIGXFSZ ignored, or it would kill the tool).
    def limit_file_size():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (1000, 1000))

    path = os.path.join(TMP, 'out')
    data = bytes(range(256)) * 8
    with open(path, 'wb') as out:
        p = run(['encode', 'hex'], data, stdout=out, preexec_fn=limit_file_size)
    with open(path, 'rb') as f:
        written = f.read()
    os.unlink(path)
    expect('standard output over the file size limit: status 1, the reason', p, 1, None,
           write_error + os_text(errno.EFBIG) + b'\n', gcov_at_exit=True)
    tap.check(written == data.hex().encode()[:1000],
              'standard output over the file size limit: the first 1000 bytes are written',
              (len(written), written[:40]))



def process_state(pid):
    with open('/proc/%d/stat' % pid) as f:
        return f.read().rsplit(')', 1)[1].split()[0]


def t_write_cut_short():
    # A stop signal wakes a process blocked writing to a full pipe, and the
    # kernel returns the bytes written so far (a short write); after the
    # continue, the tool must write the rest from where the pipe stopped.
    data = bytes((i * 31 + i // 256) % 256 for i in range(1 << 20))
    proc = subprocess.Popen([TOOL, 'encode', 'hex'], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        proc.stdin.write(data)
        proc.stdin.close()
        pipe_size = fcntl.fcntl(proc.stdout.fileno(), fcntl.F_GETPIPE_SZ)
        blocked = False
        deadline = time.monotonic() + 20
        while not blocked and time.monotonic() < deadline:
            queued = array.array('i', [0])
            fcntl.ioctl(proc.stdout.fileno(), termios.FIONREAD, queued)
            blocked = queued[0] >= pipe_size and process_state(proc.pid) == 'S'
            time.sleep(0.01)
        if blocked:
            os.kill(proc.pid, signal.SIGSTOP)
            while process_state(proc.pid) != 'T' and time.monotonic() < deadline:
                time.sleep(0.01)
            os.kill(proc.pid, signal.SIGCONT)
        # The tool has read all its input and exits once its output is read.
        out, err = proc.stdout.read(), proc.stderr.read()
        proc.wait(timeout=RUN_TIMEOUT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        proc.stderr.close()
    tap.check(blocked and (proc.returncode, out, err) == (0, data.hex().encode(), b''),
              'a write cut short by a stop signal: the rest follows, the output is whole',
              (blocked, proc.returncode, len(out), err[:200]))

with tempfile.TemporaryDirectory(prefix='encodify-cli-') as TMP:
    tests = [t_usage, t_option_applies, t_refusal_reads_nothing, t_option_combinations,
             t_wrap_values, t_impl, t_invalid_input, t_read_errors, t_write_errors,
             t_write_cut_short]
    if not SANITIZED:
        tests += [t_input_limit, t_out_of_memory]
    for t in tests:
        try:
            t()
        except Exception as e:  # a crash of the harness is a failure, not an abort
            tap.check(False, t.__name__, repr(e))
    if SANITIZED:
        tap.note('skipped under sanitizers: the 256 MiB limit and RLIMIT_DATA cases')

sys.exit(tap.done())
