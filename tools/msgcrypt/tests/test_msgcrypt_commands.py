#!/usr/bin/env python3
"""Tests of the msgcrypt commands `describe`, `encrypt` and `encrypt-mime` as
an administrator or a script uses them (TAP).

Keys: the RFC 9580 sample v6 certificate (VECTORS_DIR), OpenPGP keys made by
gpg in a temporary home (which also decrypts what `encrypt` writes) and X.509
certificates, a CA and a CRL made by the openssl CLI (`openssl cms -decrypt`
reads what `encrypt-mime --cert` writes).

Checked: the text output of `describe` and `describe --cert` line by line
(several certificates, --trust, --crl, --address), JSON escaping of user IDs,
--now, a certificate on stdin (`-`); `encrypt` with --armor and each --format (packet versions read from
the output), input of several read blocks, empty input; `encrypt-mime` with a
message larger than the first read buffer, the explicit --content/--rsa
values, files holding a chain; and, for bad input, exit status 1, one clear
message on stderr and nothing on stdout (keys that cannot receive mail,
directories, a file or message over 256 MiB while one of exactly 256 MiB
reaches the parser, too many files), for bad usage exit
status 2, and for a full disk (stdout on /dev/full) exit status 1.

usage: test_msgcrypt_commands.py MSGCRYPT VECTORS_DIR
"""
import errno
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..',
                                'tests', 'scripts'))
from corvid_tap import Tap  # noqa: E402

tool = sys.argv[1]
a3 = os.path.join(sys.argv[2], 'rfc9580-appendixA', 'a3_cert.asc')
tap = Tap(diag_lines=20)
check = tap.check


def run(*args, data=b'', stdin=None, stdout=subprocess.PIPE):
    """Runs msgcrypt; returns (status, stdout, stderr), stdout and stderr as str."""
    p = subprocess.run([tool, *args], input=None if stdin is not None else data, stdin=stdin,
                       stdout=stdout, stderr=subprocess.PIPE, timeout=120)
    out = p.stdout.decode(errors='replace') if p.stdout is not None else ''
    return p.returncode, out, p.stderr.decode(errors='replace')


def run_bytes(*args, data=b''):
    p = subprocess.run([tool, *args], input=data, capture_output=True, timeout=120)
    return p.returncode, p.stdout, p.stderr.decode(errors='replace')


def check_fails(name, r, status, stderr):
    """Bad input or usage: `status`, nothing on stdout, `stderr` (a str is the
    whole of stderr, a tuple the strings it starts with and contains)."""
    code, out, err = r
    if isinstance(stderr, tuple):
        msg_ok = err.startswith(stderr[0]) and all(s in err for s in stderr[1:])
    else:
        msg_ok = err == stderr
    check(code == status and out in ('', b'') and msg_ok,
          '%s: exit %d, message, nothing on stdout' % (name, status),
          'status %d, stdout %r\nstderr %r' % (code, out[:200], err))


def packets(data):
    """(tag, first body bytes) of each OpenPGP packet in binary `data`, as far
    as the headers can be followed (partial lengths: the first chunk)."""
    out, i = [], 0
    while i < len(data):
        h = data[i]
        if h & 0x80 == 0:
            break
        if h & 0x40:  # new format
            tag, o = h & 0x3f, data[i + 1]
            if o < 192:
                n, i = o, i + 2
            elif o < 224:
                n, i = ((o - 192) << 8) + data[i + 2] + 192, i + 3
            elif o == 255:
                n, i = int.from_bytes(data[i + 2:i + 6], 'big'), i + 6
            else:  # partial: the rest of the data is this packet
                out.append((tag, data[i + 2:i + 6]))
                break
        else:
            tag, lt = (h >> 2) & 15, h & 3
            if lt == 3:
                out.append((tag, data[i + 1:i + 5]))
                break
            w = (1, 2, 4)[lt]
            n, i = int.from_bytes(data[i + 1:i + 1 + w], 'big'), i + 1 + w
        out.append((tag, data[i:i + 4]))
        i += n
    return out


if not shutil.which('gpg') or not shutil.which('openssl'):
    print('1..0 # SKIP gpg and openssl are needed')
    sys.exit(0)

tmp = tempfile.mkdtemp(prefix='msgcrypt-commands-')
home = os.path.join(tmp, 'gnupg')
os.mkdir(home, 0o700)


def gpg(*args, data=None):
    return subprocess.run(['gpg', '--homedir', home, '--batch', '--pinentry-mode', 'loopback',
                           '--passphrase', '', *args], input=data, capture_output=True,
                          timeout=120)


def gpg_key(uid, with_subkey=True):
    """A v4 Ed25519 key (with a Curve25519 encryption subkey), expiring in a
    year; returns the path of its binary export and its fingerprint."""
    r = gpg('--quick-gen-key', uid, 'ed25519', 'sign', '1y')
    if r.returncode != 0:
        sys.exit('gpg --quick-gen-key failed: ' + r.stderr.decode())
    r = gpg('--list-keys', '--with-colons', '=' + uid)
    fpr = [l.split(':')[9] for l in r.stdout.decode().splitlines() if l.startswith('fpr:')][0]
    if with_subkey:
        gpg('--quick-add-key', fpr, 'cv25519', 'encr', '1y')
    path = os.path.join(tmp, fpr + '.gpg')
    with open(path, 'wb') as f:
        f.write(gpg('--export', fpr).stdout)
    return path, fpr


def openssl(*args):
    r = subprocess.run(['openssl', *args], capture_output=True, cwd=tmp, timeout=120)
    if r.returncode != 0:
        sys.exit('openssl %s failed: %s' % (args[0], r.stderr.decode()))
    return r.stdout.decode()


def x509(name, key_args, exts, subj=None, serial=None, ca=None):
    key, pem = os.path.join(tmp, name + '.key'), os.path.join(tmp, name + '.pem')
    args = ['req', '-x509', *key_args, '-nodes', '-keyout', key, '-out', pem,
            '-subj', subj or '/CN=%s' % name, '-days', '30']
    if serial:
        args += ['-set_serial', serial]
    if ca:
        args += ['-CA', ca + '.pem', '-CAkey', ca + '.key']
    for e in exts:
        args += ['-addext', e]
    openssl(*args)
    return key, pem


def utc(openssl_date):  # "Jan  1 17:36:33 2027 GMT" -> "2027-01-01T17:36:33Z"
    return time.strftime('%Y-%m-%dT%H:%M:%SZ', time.strptime(openssl_date, '%b %d %H:%M:%S %Y GMT'))


try:
    # ---- describe: OpenPGP, text ----
    A3_TEXT = (
        'OpenPGP v6: Ed25519 (encryption subkey X25519)\n'
        'fingerprint: CB186C4F0609A697E4D52DFA6C722B0C1F1E27C18A56708F6525EC27BAD9ACC9\n'
        'created: 2022-11-30T16:08:03Z\n'
        'expires: never\n'
        'features: SEIPDv1 SEIPDv2\n'
        'preferred ciphers: AES256 AES128 AES256-OCB AES128-OCB\n'
        'primary key: v6 Ed25519 CB186C4F0609A697E4D52DFA6C722B0C1F1E27C18A56708F6525EC27BAD9ACC9'
        ' expires never\n'
        'subkey: v6 X25519 12C83F1E706F6308FE151A417743A1F033790E93E9978488D1DB378DA9930885'
        ' expires never [encrypt to]\n')
    code, out, err = run('describe', a3)
    check(code == 0 and err == '', 'describe: RFC 9580 certificate, exit 0', err)
    check(out.startswith(A3_TEXT), 'describe: text lines of the RFC 9580 certificate', out)
    check(out[len(A3_TEXT):].startswith('warning limited-support: ') and out.count('\n') == 9,
          'describe: warning line with its code', out)

    alice, alice_fpr = gpg_key('Alice <alice@example.org>')
    signer, signer_fpr = gpg_key('Signer <signer@example.org>', with_subkey=False)
    code, out, err = run('describe', alice)
    cols = [l.split(':') for l in gpg('--list-keys', '--with-colons', alice_fpr)
            .stdout.decode().splitlines()]
    pub = [c for c in cols if c[0] == 'pub'][0]
    sub_fpr = [c[9] for c in cols if c[0] == 'fpr'][1]
    gm = lambda t: time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(int(t)))
    lines = out.splitlines()
    check(code == 0 and lines[1:5] == ['fingerprint: ' + alice_fpr,
                                       'user ID: Alice <alice@example.org>',
                                       'created: ' + gm(pub[5]), 'expires: ' + gm(pub[6])],
          'describe: gpg key: fingerprint, user ID, created and expires as gpg has them', out + err)
    check(any(l.startswith('subkey: v4 ') and sub_fpr in l and l.endswith(' [encrypt to]')
              for l in lines) and
          any(l.startswith('primary key: v4 ') and alice_fpr in l and '[encrypt to]' not in l
              for l in lines),
          'describe: gpg key: the encryption subkey is marked [encrypt to]', out)

    both = os.path.join(tmp, 'both.asc')
    with open(both, 'wb') as f:
        f.write(open(a3, 'rb').read() + b'\n' + gpg('--armor', '--export', alice_fpr).stdout)
    code, out, err = run('describe', both)
    blocks = out.split('\n\n')
    check(code == 0 and len(blocks) == 2 and (blocks[0] + '\n').startswith(A3_TEXT)
          and blocks[1].startswith('OpenPGP v4: ') and out.count('fingerprint: ') == 2,
          'describe: two certificates in one file, text blocks split by a blank line', out + err)
    code, out, err = run('describe', both, '--json')
    try:
        fprs = [c['fingerprint'] for c in json.loads(out)['certificates']]
    except ValueError as e:
        fprs = e
    check(code == 0 and fprs == [
        'CB186C4F0609A697E4D52DFA6C722B0C1F1E27C18A56708F6525EC27BAD9ACC9', alice_fpr],
          'describe --json: two certificates in one file', out)

    odd_uid = 'Q "quoted" back\\slash\ttab <q@example.org>'
    odd, _ = gpg_key(odd_uid)
    code, out, err = run('describe', odd, '--json')
    try:
        uids = json.loads(out)['certificates'][0]['user_ids']
    except ValueError as e:
        uids = e
    check(code == 0 and uids == [odd_uid] and '\\u0009' in out,
          'describe --json: quote, backslash and tab in a user ID are escaped', out)

    # --now: the description as of another time.
    created, expires = int(pub[5]), int(pub[6])
    code, out, err = run('describe', alice, '--now', str(created + 60))
    check(code == 0 and 'expired' not in out + err, 'describe --now: before expiry, exit 0', err)
    r = run('describe', alice, '--now', str(expires + 86400))
    check(r[0] == 1 and r[1] == '' and 'expired' in r[2],
          'describe --now: after expiry, exit 1, says expired, nothing on stdout', r)

    # Keys that cannot receive mail, unreadable files.
    check_fails('describe: key without encryption subkey', run('describe', signer), 1,
                ('msgcrypt: %s: key %s has no usable encryption subkey\n'
                 'msgcrypt:   no-encryption-key: ' % (signer, signer_fpr),))
    check_fails('describe: a directory', run('describe', tmp), 1,
                'msgcrypt: %s: %s\n' % (tmp, os.strerror(errno.EISDIR)))
    with open(a3, 'rb') as f:
        code, out, err = run('describe', '-', data=f.read())
    check(code == 0 and out.startswith(A3_TEXT), 'describe -: the certificate on stdin', err)
    # Whole inputs are read up to 256 MiB; the library refuses a key over its
    # own limit (16 MiB) with its message, the reader a longer file.
    big = os.path.join(tmp, 'big.asc')
    with open(big, 'wb') as f:
        f.truncate(256 << 20)  # sparse
    check_fails('describe: a file of exactly 256 MiB reaches the parser', run('describe', big), 1,
                ('msgcrypt: %s: not a usable OpenPGP key: ' % big,))
    with open(big, 'wb') as f:
        f.truncate((256 << 20) + 1)
    for args in ([big], ['--cert', big]):
        check_fails('describe %s: a file over 256 MiB' % ' '.join(args[:-1] + ['FILE']), run('describe', *args), 1,
                    'msgcrypt: %s: %s\n' % (big, os.strerror(errno.EFBIG)))
    os.unlink(big)
    with open('/dev/full', 'wb') as full:
        code, _, err = run('describe', a3, stdout=full)
    check(code == 1 and err == 'msgcrypt: stdout: %s\n' % os.strerror(errno.ENOSPC),
          'describe: stdout on a full disk, exit 1 and a message', 'status %d %r' % (code, err))

    # Bad usage: exit 2, a message, nothing on stdout.
    usage = ('usage: msgcrypt describe FILE [--address ADDR]... [--json] [--now SECONDS]\n'
             '       msgcrypt describe --cert FILE [--trust DIR|FILE] [--crl FILE]... '
             '[--address ADDR]... [--json] [--now SECONDS]\n')
    many = []
    for i in range(64):
        many += ['--address', 'a%d@example.org' % i]
    code, out, err = run('describe', a3, *many)
    check(code == 0 and out.startswith(A3_TEXT), 'describe: 64 --address accepted', err)
    check_fails('describe: 65 --address', run('describe', a3, *many, '--address', 'x@example.org'),
                2, 'msgcrypt: describe: at most 64 addresses\n')
    crls = []
    for i in range(65):
        crls += ['--crl', a3]
    check_fails('describe: 65 --crl', run('describe', '--cert', a3, *crls), 2,
                'msgcrypt: describe: at most 64 CRLs\n')
    for bad in ('12x', '', '99999999999999999999999', '-99999999999999999999999', ' '):
        check_fails('describe: --now %r' % bad, run('describe', a3, '--now', bad), 2,
                    'msgcrypt: describe: --now takes seconds since the epoch\n')
    for name, args in (('no file', []), ('two files', [a3, a3]), ('unknown option', [a3, '--frob']),
                       ('--trust without --cert', [a3, '--trust', tmp]),
                       ('--crl without --cert', [a3, '--crl', a3]),
                       ('FILE and --cert', [a3, '--cert', a3]),
                       ('--cert twice', ['--cert', a3, '--cert', a3]),
                       ('--address without value', [a3, '--address'])):
        check_fails('describe: ' + name, run('describe', *args), 2, usage)

    # ---- describe --cert: X.509 ----
    openssl_ext = ['basicConstraints=critical,CA:FALSE', 'extendedKeyUsage=emailProtection']
    ca_key, ca_pem = x509('ca', ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'],
                          ['basicConstraints=critical,CA:TRUE',
                           'keyUsage=critical,keyCertSign,cRLSign'], subj='/CN=Test CA')
    bob_key, bob_pem = x509('bob', ['-newkey', 'rsa:3072'],
                            openssl_ext + ['keyUsage=keyEncipherment',
                                           'subjectAltName=email:bob@example.org'],
                            subj='/CN=Bob', serial='0x1234AB', ca='ca')
    carol_key, carol_pem = x509('carol', ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'],
                                openssl_ext + ['keyUsage=keyAgreement',
                                               'subjectAltName=email:carol@example.org'])
    ed_key, ed_pem = x509('ed', ['-newkey', 'ed25519'], openssl_ext)
    with open(os.path.join(tmp, 'crl.cnf'), 'w') as f:
        f.write('[ca]\ndefault_ca=c\n[c]\ndatabase=index.txt\ncrlnumber=crlnumber\n'
                'default_md=sha256\ndefault_crl_days=30\n')
    open(os.path.join(tmp, 'index.txt'), 'w').close()
    with open(os.path.join(tmp, 'crlnumber'), 'w') as f:
        f.write('01\n')
    crl = os.path.join(tmp, 'ca.crl')
    openssl('ca', '-config', 'crl.cnf', '-gencrl', '-keyfile', ca_key, '-cert', ca_pem,
            '-out', crl)
    fpr = openssl('x509', '-in', bob_pem, '-noout', '-fingerprint', '-sha256').strip().split('=')[1]
    nb = utc(openssl('x509', '-in', bob_pem, '-noout', '-startdate').strip().split('=')[1])
    na = utc(openssl('x509', '-in', bob_pem, '-noout', '-enddate').strip().split('=')[1])
    BOB_TEXT = ('S/MIME: RSA-3072\nfingerprint: %s\nsubject: CN=Bob\nissuer: CN=Test CA\n'
                'serial: 1234AB\naddress: bob@example.org\nvalid: %s to %s\n' % (fpr, nb, na))
    code, out, err = run('describe', '--cert', bob_pem)
    check(code == 0 and out == BOB_TEXT, 'describe --cert: text lines, no chain line without --trust',
          out + err)
    code, out, err = run('describe', '--cert', bob_pem, '--trust', ca_pem,
                         '--address', 'bob@example.org')
    check(code == 0 and out.startswith(BOB_TEXT) and out[len(BOB_TEXT):].splitlines() == [
        'chain: ok (2 certificates)',
        "warning no-revocation-info: no CRL covered the certificate's path"],
          'describe --cert --trust: chain line and warning lines', out + err)
    code, out, err = run('describe', '--cert', bob_pem, '--trust', ca_pem, '--crl', crl)
    check(code == 0 and out == BOB_TEXT + 'chain: ok (2 certificates, CRLs checked)\n',
          'describe --cert --crl: chain line says CRLs checked', out + err)
    code, out, err = run('describe', '--cert', bob_pem, '--trust', ca_pem, '--crl', crl,
                         '--address', 'carol@example.org', '--json')
    try:
        c = json.loads(out)['certificates']
        got = (len(c), c[0]['verdict'], c[0]['chain_length'], c[0]['crl_checked'],
               c[0]['serial'], [w['code'] for w in c[0]['warnings']])
    except (ValueError, KeyError, IndexError) as e:
        got = e
    check(code == 0 and got == (1, 'ok', 2, True, '1234AB', ['no-address-match']),
          'describe --cert --json: verdict, chain length, CRLs, address warning', out + err)
    chain = os.path.join(tmp, 'chain.pem')
    with open(chain, 'wb') as f:
        f.write(open(bob_pem, 'rb').read() + open(ca_pem, 'rb').read())
    code, out, err = run('describe', '--cert', chain, '--trust', ca_pem)
    check(code == 0 and out.startswith(BOB_TEXT) and out.count('fingerprint: ') == 1,
          'describe --cert: a file with its CA describes the leaf only', out + err)
    two = os.path.join(tmp, 'two.pem')
    with open(two, 'wb') as f:
        f.write(open(bob_pem, 'rb').read() + open(carol_pem, 'rb').read())
    code, out, err = run('describe', '--cert', two)
    blocks = out.split('\n\n')
    check(code == 0 and len(blocks) == 2 and blocks[0] + '\n' == BOB_TEXT
          and blocks[1].startswith('S/MIME: EC P-256\n')
          and 'address: carol@example.org\n' in blocks[1],
          'describe --cert: two certificates, text blocks split by a blank line', out + err)
    check_fails('describe --cert: Ed25519 certificate', run('describe', '--cert', ed_pem), 1,
                'msgcrypt: %s: certificate 1 (S/MIME: Ed25519) has no key mail can be '
                'encrypted to\n' % ed_pem)
    with open('/dev/full', 'wb') as full:
        code, _, err = run('describe', '--cert', bob_pem, stdout=full)
    check(code == 1 and err == 'msgcrypt: stdout: %s\n' % os.strerror(errno.ENOSPC),
          'describe --cert: stdout on a full disk, exit 1 and a message', 'status %d %r' % (code, err))

    # ---- encrypt ----
    plain = bytes(range(256)) * 800 + b'tail\n'  # 200 KiB: several 64 KiB reads
    code, out, err = run_bytes('encrypt', '--key', alice, data=plain)
    dec = gpg('--decrypt', data=out)
    check(code == 0 and err == '' and dec.returncode == 0 and dec.stdout == plain,
          'encrypt: 200 KiB to a gpg key, gpg decrypts it', err + dec.stderr.decode())
    code, out, err = run_bytes('encrypt', '--key', alice, data=b'')
    dec = gpg('--decrypt', data=out)
    check(code == 0 and dec.returncode == 0 and dec.stdout == b'',
          'encrypt: empty stdin gives a message gpg decrypts to nothing', err + dec.stderr.decode())
    code, out, err = run_bytes('encrypt', '--key', alice, '--armor', data=b'armored\n')
    dec = gpg('--decrypt', data=out)
    check(code == 0 and out.startswith(b'-----BEGIN PGP MESSAGE-----\n')
          and out.endswith(b'-----END PGP MESSAGE-----\n')
          and dec.returncode == 0 and dec.stdout == b'armored\n',
          'encrypt --armor: an armored message gpg decrypts', out[:200] + dec.stderr)
    # SEIPD (tag 18): version 1, or version 2 with cipher and AEAD mode.
    for key, fmt, want in ((alice, 'auto', b'\x01'), (a3, 'auto', b'\x02\x09\x02'),
                           (a3, 'v1', b'\x01'), (alice, 'ocb', b'\x02\x09\x02'),
                           (a3, 'gcm', b'\x02\x09\x03')):
        code, out, err = run_bytes('encrypt', '--key', key, '--format', fmt, data=b'x' * 100)
        pk = packets(out)
        seipd = [body for tag, body in pk if tag == 18]
        check(code == 0 and [t for t, _ in pk][:1] == [1] and len(seipd) == 1
              and seipd[0].startswith(want),
              'encrypt --format %s to %s: SEIPD %s' % (
                  fmt, 'v6 key' if key == a3 else 'v4 key', 'v1' if want == b'\x01' else
                  'v2 ' + ('OCB' if want.endswith(b'\x02') else 'GCM')),
              '%r %s' % (pk, err))
    code, out, err = run_bytes('encrypt', '--key', alice, '--key', a3, data=b'two\n')
    dec = gpg('--decrypt', data=out)
    check(code == 0 and [t for t, _ in packets(out)][:2] == [1, 1]
          and dec.returncode == 0 and dec.stdout == b'two\n',
          'encrypt: two --key files, one PKESK each, gpg decrypts', err + dec.stderr.decode())

    junk = os.path.join(tmp, 'junk.asc')
    with open(junk, 'w') as f:
        f.write('not a key\n')
    check_fails('encrypt: --key of a file that is not a key', run('encrypt', '--key', junk), 1,
                ('msgcrypt: %s: not a usable certificate: ' % junk,))
    check_fails('encrypt: --key of a directory', run('encrypt', '--key', tmp), 1,
                'msgcrypt: %s: %s\n' % (tmp, os.strerror(errno.EISDIR)))
    check_fails('encrypt: --key of a missing file', run('encrypt', '--key', junk + '.no'), 1,
                'msgcrypt: %s.no: %s\n' % (junk, os.strerror(errno.ENOENT)))
    # The key at fault is named, among others, with the reasons.
    check_fails('encrypt: key without encryption subkey',
                run('encrypt', '--key', alice, '--key', signer), 1,
                ('msgcrypt: %s: key %s has no usable encryption subkey\n'
                 'msgcrypt:   no-encryption-key: ' % (signer, signer_fpr),))
    big = os.path.join(tmp, 'big.asc')
    with open(big, 'wb') as f:
        f.truncate((256 << 20) + 1)  # sparse
    check_fails('encrypt: --key of a file over 256 MiB', run('encrypt', '--key', big), 1,
                'msgcrypt: %s: %s\n' % (big, os.strerror(errno.EFBIG)))
    os.unlink(big)
    keys = []
    for i in range(64):
        keys += ['--key', alice]
    code, out, err = run_bytes('encrypt', *keys, data=b'64\n')
    check(code == 0 and gpg('--decrypt', data=out).stdout == b'64\n', 'encrypt: 64 --key files',
          err)
    check_fails('encrypt: 65 --key files', run('encrypt', *keys, '--key', alice), 1,
                'msgcrypt: more than 64 key files\n')
    enc_usage = ('usage: msgcrypt encrypt --key FILE... [--armor] [--format auto|v1|ocb|gcm] '
                 '< IN > OUT\n')
    check_fails('encrypt: no --key', run('encrypt'), 2,
                'msgcrypt: encrypt needs at least one --key FILE\n')
    check_fails('encrypt: --format rot13', run('encrypt', '--key', a3, '--format', 'rot13'), 2,
                'msgcrypt: unknown format rot13 (auto, v1, ocb, gcm)\n')
    for name, args in (('--protect-headers', ['--key', a3, '--protect-headers', 'at-rest']),
                       ('--cert', ['--cert', bob_pem]), ('--content', ['--key', a3, '--content',
                                                                       'gcm']),
                       ('--key without a file', ['--key', a3, '--key']),
                       ('--format without a value', ['--key', a3, '--format'])):
        check_fails('encrypt: ' + name, run('encrypt', *args), 2, enc_usage)
    fd = os.open(tmp, os.O_RDONLY)  # reading a directory fails
    code, out, err = run('encrypt', '--key', a3, stdin=fd)
    os.close(fd)
    check(code == 1 and err == 'msgcrypt: stdin: %s\n' % os.strerror(errno.EISDIR),
          'encrypt: unreadable stdin, exit 1 and a message', 'status %d %r' % (code, err))
    with open('/dev/full', 'wb') as full:
        code, _, err = run('encrypt', '--key', a3, data=b'x' * 100000, stdout=full)
    check(code == 1 and err.startswith('msgcrypt: ') and err.count('\n') == 1,
          'encrypt: stdout on a full disk, exit 1 and a message', 'status %d %r' % (code, err))

    # ---- encrypt-mime ----
    body = b''.join(b'line %06d of a long message body\n' % i for i in range(10000))  # 330 KB
    msg = (b'From: Bob <bob@example.org>\nTo: alice@example.org\nSubject: big\n'
           b'Content-Type: text/plain; charset=utf-8\n\n' + body)
    code, out, err = run_bytes('encrypt-mime', '--key', alice, data=msg)
    armored = out[out.find(b'-----BEGIN PGP MESSAGE-----'):]
    dec = gpg('--decrypt', data=armored)
    inner = dec.stdout.replace(b'\r\n', b'\n')
    check(code == 0 and b'multipart/encrypted' in out.split(b'\n\n')[0] and dec.returncode == 0
          and inner == b'Content-Type: text/plain; charset=utf-8\n\n' + body,
          'encrypt-mime --key: a 330 KB message, gpg decrypts the whole entity',
          err + dec.stderr.decode() + repr(inner[-100:]))
    not_mime = 'msgcrypt: stdin is not a MIME message (no header fields, or a malformed header line)\n'
    check_fails('encrypt-mime --key: stdin without a header',
                run('encrypt-mime', '--key', alice, data=b'no header here'), 1, not_mime)
    fd = os.open(tmp, os.O_RDONLY)
    r = run('encrypt-mime', '--key', alice, stdin=fd)
    os.close(fd)
    check_fails('encrypt-mime: unreadable stdin', r, 1,
                'msgcrypt: stdin: %s\n' % os.strerror(errno.EISDIR))
    with open('/dev/zero', 'rb') as zero:
        r = run('encrypt-mime', '--key', alice, stdin=zero)
    check_fails('encrypt-mime: a message over 256 MiB', r, 1,
                'msgcrypt: stdin: %s\n' % os.strerror(errno.EFBIG))
    with open('/dev/full', 'wb') as full:
        code, _, err = run('encrypt-mime', '--key', alice, data=msg, stdout=full)
    check(code == 1 and err == 'msgcrypt: cannot encrypt: %s\n' % os.strerror(errno.ENOSPC),
          'encrypt-mime: stdout on a full disk, exit 1 and a message', 'status %d %r' % (code, err))
    mime_usage = ('usage: msgcrypt encrypt-mime --key FILE... [--protect-headers at-rest|gateway]'
                  ' < IN > OUT\n'
                  '       msgcrypt encrypt-mime --cert FILE... [--content cbc|gcm] '
                  '[--rsa pkcs1|oaep]\n'
                  '                [--protect-headers at-rest|gateway] < IN > OUT\n')
    check_fails('encrypt-mime: no --key or --cert', run('encrypt-mime'), 2,
                'msgcrypt: encrypt-mime needs at least one --key FILE or --cert FILE\n')
    for name, args in (('--armor', ['--key', a3, '--armor']),
                       ('--format', ['--key', a3, '--format', 'v1']),
                       ('--cert without a file', ['--cert'])):
        check_fails('encrypt-mime: ' + name, run('encrypt-mime', *args), 2, mime_usage)

    # S/MIME: the explicit option values, files with a chain, refused files.
    smime_msg = b'From: a@example.org\nSubject: s\nContent-Type: text/plain\n\nS/MIME body\n'
    for args, key, pem, kind in ((['--cert', bob_pem, '--content', 'cbc', '--rsa', 'pkcs1'],
                                  bob_key, bob_pem, b'smime-type=enveloped-data'),
                                 (['--cert', chain, '--content', 'gcm'], bob_key, bob_pem,
                                  b'smime-type=authEnveloped-data')):
        code, out, err = run_bytes('encrypt-mime', *args, data=smime_msg)
        path = os.path.join(tmp, 'out.eml')
        with open(path, 'wb') as f:
            f.write(out)
        dec = subprocess.run(['openssl', 'cms', '-decrypt', '-inkey', key, '-recip', pem,
                              '-in', path], capture_output=True)
        check(code == 0 and kind in out.split(b'\n\n')[0] and dec.returncode == 0
              and dec.stdout.endswith(b'\r\n\r\nS/MIME body\r\n'),
              'encrypt-mime %s: openssl decrypts' % ' '.join(a if a.startswith('-') else
                                                              os.path.basename(a) for a in args),
              err + dec.stderr.decode())
    check_fails('encrypt-mime: --rsa rsa-pss',
                run('encrypt-mime', '--cert', bob_pem, '--rsa', 'rsa-pss', data=smime_msg), 2,
                'msgcrypt: unknown RSA key transport rsa-pss (pkcs1, oaep)\n')
    check_fails('encrypt-mime: Ed25519 certificate',
                run('encrypt-mime', '--cert', ed_pem, data=smime_msg), 1,
                'msgcrypt: %s: certificate 1 has no key mail can be encrypted to\n' % ed_pem)
    check_fails('encrypt-mime: a file of CA certificates only',
                run('encrypt-mime', '--cert', ca_pem, data=smime_msg), 1,
                'msgcrypt: %s: only CA certificates\n' % ca_pem)
    check_fails('encrypt-mime: --cert of a directory',
                run('encrypt-mime', '--cert', tmp, data=smime_msg), 1,
                'msgcrypt: %s: %s\n' % (tmp, os.strerror(errno.EISDIR)))
    # Certificates that must not be encrypted to now (RFC 8550 4.4.2, RFC
    # 5280 4.2.1.3 and 4.2.1.12): key usage for signatures only, extended
    # key usage without emailProtection, validity ended or not begun.
    _, sig_pem = x509('sig', ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'],
                      ['basicConstraints=critical,CA:FALSE', 'keyUsage=digitalSignature'])
    _, tls_pem = x509('tls', ['-newkey', 'rsa:2048'],
                      ['basicConstraints=critical,CA:FALSE', 'keyUsage=keyEncipherment',
                       'extendedKeyUsage=serverAuth'])
    with open(os.path.join(tmp, 'ca.cnf'), 'w') as f:
        f.write('[ca]\ndefault_ca=c\n[c]\ndatabase=index.txt\nnew_certs_dir=.\nserial=serial\n'
                'default_md=sha256\npolicy=p\ncopy_extensions=copy\n[p]\ncommonName=supplied\n')
    with open(os.path.join(tmp, 'serial'), 'w') as f:
        f.write('10\n')
    dated = {}
    for name, start, end in (('old', '20200101000000Z', '20200201000000Z'),
                             ('future', '20990101000000Z', '20990201000000Z')):
        openssl('req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes',
                '-keyout', name + '.key', '-out', name + '.csr', '-subj', '/CN=' + name,
                '-addext', 'keyUsage=keyAgreement')
        openssl('ca', '-batch', '-config', 'ca.cnf', '-cert', ca_pem, '-keyfile', ca_key,
                '-in', name + '.csr', '-out', name + '.pem', '-startdate', start, '-enddate', end,
                '-notext')
        dated[name] = os.path.join(tmp, name + '.pem')
    for name, pem, why in (('key usage for signatures only', sig_pem, 'wrong-key-usage: '),
                           ('extended key usage serverAuth only', tls_pem, 'wrong-key-usage: '),
                           ('expired', dated['old'], 'expired: the certificate expired on '
                            '2020-02-01'),
                           ('not yet valid', dated['future'], 'not-yet-valid: ')):
        check_fails('encrypt-mime: a certificate %s' % name,
                    run('encrypt-mime', '--cert', pem, data=smime_msg), 1,
                    ('msgcrypt: %s: certificate 1 cannot be encrypted to: %s' % (pem, why),))
        # describe --cert says the same, as describe does of an OpenPGP key
        # without a usable encryption subkey.
        check_fails('describe --cert: a certificate %s' % name, run('describe', '--cert', pem), 1,
                    ('msgcrypt: %s: certificate 1 cannot be encrypted to: %s' % (pem, why),))
    # A file of CA certificates only (a trust bundle) is described for what
    # it is, although its key usage is for signing certificates.
    code, out, err = run('describe', '--cert', ca_pem)
    check(code == 0 and out.startswith('S/MIME: EC P-256\n') and 'subject: CN=Test CA\n' in out,
          'describe --cert: a CA certificate alone is described', out + err)
    code, out, err = run('describe', '--cert', dated['old'], '--now', '1579000000')
    check(code == 0 and 'valid: 2020-01-01T00:00:00Z to 2020-02-01T00:00:00Z\n' in out,
          'describe --cert --now: the expired certificate as of its validity', out + err)
    # One such certificate among good ones refuses the whole message.
    check_fails('encrypt-mime: a good and an expired certificate',
                run('encrypt-mime', '--cert', bob_pem, '--cert', dated['old'], data=smime_msg), 1,
                ('msgcrypt: %s: certificate 1 cannot be encrypted to: expired: ' % dated['old'],))
    certs = []
    for i in range(65):
        certs += ['--cert', bob_pem]
    check_fails('encrypt-mime: 65 --cert files', run('encrypt-mime', *certs, data=smime_msg), 1,
                'msgcrypt: more than 64 certificate files\n')
finally:
    subprocess.run(['gpgconf', '--homedir', home, '--kill', 'gpg-agent'], capture_output=True)
    shutil.rmtree(tmp, ignore_errors=True)

sys.exit(tap.done())
