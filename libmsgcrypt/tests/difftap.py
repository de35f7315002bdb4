"""Shared pieces of libmsgcrypt's differential tests (tests/diff_*.py).

Each diff_<name>.py compares libmsgcrypt, reached through the line protocol
of its C driver program, with independent peers and prints TAP. What they
have in common lives here so that the scripts hold only their own cases,
comparisons and peers:
  - Tap, from tests/scripts/corvid_tap.py (shared by all of Corvid's Python
    tests): numbered ok / not ok lines, '# ' diagnostics and the plan last;
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

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..',
                                'tests', 'scripts'))
from corvid_tap import Tap  # noqa: E402,F401  (re-exported for the diff_*.py scripts)


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
