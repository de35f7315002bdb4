"""Shared pieces of libmsgcrypt's differential tests (tests/diff_*.py).

Each diff_<name>.py compares libmsgcrypt, reached through the line protocol
of its C driver program, with independent peers and prints TAP. What they
have in common lives here so that the scripts hold only their own cases,
comparisons and peers:
  - Tap: numbered ok / not ok lines, '# ' notes and diagnostics (one TAP
    comment line per text line, which meson's TAP parser accepts), and the
    closing plan line;
  - driver_run: pipes a batch of command lines through the driver and
    returns one answer per command;
  - flip_bit: a copy of some bytes with one random bit flipped;
  - find_noble and node_popen: locate an @noble package through
    CORVID_NODE_MODULES (a missing peer is a failed check, not a skip) and
    run a node ES module script against it.
"""
import os
import subprocess
import sys


class Tap:
    """Numbers the checks, counts the failures and prints the plan last."""

    def __init__(self):
        self.n = 0
        self.failed = 0

    def check(self, ok, desc, diag=None):
        self.n += 1
        print(('ok' if ok else 'not ok') + ' %d - %s' % (self.n, desc))
        if not ok:
            self.failed += 1
            if diag:
                # Unindented: meson reports '  # text' as an unknown line.
                self.note(diag)
        sys.stdout.flush()

    def note(self, text):
        for line in str(text).splitlines() or ['']:
            print('# ' + line)
        sys.stdout.flush()

    def done(self):
        print('1..%d' % self.n)
        return 1 if self.failed else 0


def driver_run(driver, lines):
    """Sends all commands at once and returns the answers, one per command."""
    res = subprocess.run([driver], input='\n'.join(lines) + '\n', capture_output=True,
                         text=True, check=False)
    out = res.stdout.splitlines()
    if res.returncode != 0 or len(out) != len(lines):
        raise RuntimeError('driver failed (status %d, %d answers for %d commands): %s'
                           % (res.returncode, len(out), len(lines), res.stderr[:500]))
    return out


def flip_bit(rng, data):
    """Returns data with one bit, drawn from rng, flipped."""
    b = bytearray(data)
    pos = rng.randrange(len(b))
    b[pos] ^= 1 << rng.randrange(8)
    return bytes(b)


def find_noble(tap, package, module):
    """Checks that @noble/<package>/<module> is in CORVID_NODE_MODULES.

    Records the check on tap and returns (node_modules, present)."""
    node_modules = os.environ.get('CORVID_NODE_MODULES', '')
    present = os.path.isfile(os.path.join(node_modules, '@noble', package, module))
    tap.check(present, '@noble/%s is installed in CORVID_NODE_MODULES' % package,
              'CORVID_NODE_MODULES=%r: run npm install of tests/interop/package.json' %
              node_modules)
    return node_modules, present


def node_popen(script, node_modules, stdin=subprocess.PIPE):
    """Starts node on an ES module script that finds @noble in node_modules."""
    return subprocess.Popen(['node', '--input-type=module', '-e', script], stdin=stdin,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, CORVID_NODE_MODULES=node_modules))
