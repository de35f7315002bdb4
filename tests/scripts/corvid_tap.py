"""TAP output shared by Corvid's Python test scripts.

A script makes one Tap, calls check() once per case and ends with
sys.exit(tap.done()). What it prints, on stdout, for meson's TAP parser:
  - 'TAP version 13' first, if the script asks for it (tap_version=True);
  - 'ok N - name' or 'not ok N - name' per check, numbered from 1, as the
    check happens, so that a script that hangs or dies still shows how far
    it got;
  - after a failed check, its diagnostic, one '# ' comment line per text
    line. The '#' is in column 0 on purpose: meson reports an indented
    '  # text' as an unknown line instead of a comment. Text after '# ' may
    be indented (diag_indent), which meson accepts;
  - the plan '1..N' last, from done(), because most scripts cannot know N in
    advance. A script that dies before done() prints no plan, and meson
    marks the test failed.
done() returns the exit status: 1 if any check failed, else 0 (also when
there was no check at all).
"""
import sys


class Tap:
    """Numbers the checks, counts the failures and prints the plan last.

    diag_indent is put between '# ' and each diagnostic or note line;
    diag_lines, if set, keeps only the first lines of each, so that one
    failed check cannot bury the others."""

    def __init__(self, tap_version=False, diag_indent='', diag_lines=None):
        self.n = 0
        self.failed = 0
        self.diag_indent = diag_indent
        self.diag_lines = diag_lines
        if tap_version:
            print('TAP version 13')
            # Flushed now, or a forked worker could print it a second time.
            sys.stdout.flush()

    def check(self, ok, name, diag=None):
        """Records one case; on failure prints diag unless it is empty.

        Returns ok, so that a caller can go on only if the check passed."""
        self.n += 1
        print(('ok' if ok else 'not ok') + ' %d - %s' % (self.n, name))
        if not ok:
            self.failed += 1
            if diag:
                self.note(diag)
        sys.stdout.flush()
        return ok

    def note(self, text):
        """Prints text as TAP comment lines (one '# ' line if it is empty)."""
        lines = str(text).splitlines()[:self.diag_lines] or ['']
        for line in lines:
            print('# ' + self.diag_indent + line)
        sys.stdout.flush()

    def done(self):
        """Prints the plan and returns the exit status."""
        print('1..%d' % self.n)
        sys.stdout.flush()
        return 1 if self.failed else 0
