#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Tests of the Python writer (vramlab_safe_write.py; docs/cli.md, "How outputs are written"):
a character device stays one, a symlink stays and its target is replaced, planted temporary
names (X.tmp, X.vramlab-tmp) leave their victim byte-identical, a FIFO's reader gets the bytes,
a read-only directory is refused in one line, a file keeps its mode (and owner, as root), an
error inside the block leaves the old file and no temporary file.

The same cases run three times: on the module itself, through a real writer of the repository
(`vramlab-hw calibrate --from-raw RAW --out X`, the cost file), and through ci/safe-write.sh,
the bash scripts' helper. VRAMLAB_HW=PATH runs the second
set on another vramlab-hw, e.g. main's before issue 45:
    git show OLD:harness/hw/vramlab-hw >/tmp/old-hw; VRAMLAB_HW=/tmp/old-hw test_safe_write.py
Some cases need root (mknod, chattr, chown): without it they are skipped, saying why."""
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import vramlab_safe_write as sw  # noqa: E402

HW = os.environ.get("VRAMLAB_HW") or os.path.join(HERE, "..", "hw", "vramlab-hw")
ROOT = os.geteuid() == 0


def one_line(text):
    return text.count("\n") <= 1 and text.strip() != ""


class Cases:
    """The cases, for any writer: write(path) returns None when written, else the error."""
    expected = b""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name
        self.out = os.path.join(self.dir, "out.json")

    def tearDown(self):
        self.tmp.cleanup()

    def read(self, path):
        with open(path, "rb") as f:
            return f.read()

    def put(self, path, data=b"old\n"):
        with open(path, "wb") as f:
            f.write(data)

    def test_character_device_stays_one(self):
        if not ROOT:
            self.skipTest("mknod of a character device needs root")
        os.mknod(self.out, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # /dev/null's numbers
        self.assertIsNone(self.write(self.out))
        st = os.lstat(self.out)
        self.assertTrue(stat.S_ISCHR(st.st_mode), "replaced by a regular file")
        self.assertEqual(st.st_rdev, os.makedev(1, 3))
        self.assertEqual(os.listdir(self.dir), ["out.json"])

    def test_symlink_kept_and_its_target_replaced(self):
        real = os.path.join(self.dir, "real.json")
        self.put(real)
        os.symlink("real.json", self.out)
        self.assertIsNone(self.write(self.out))
        self.assertTrue(os.path.islink(self.out), "the link was replaced")
        self.assertEqual(os.readlink(self.out), "real.json")
        self.assertEqual(self.read(real), self.expected)
        self.assertEqual(sorted(os.listdir(self.dir)), ["out.json", "real.json"])

    def test_planted_temporary_names_leave_their_victim_alone(self):
        victim = os.path.join(self.dir, "victim")
        self.put(victim, b"precious\n")
        planted = ["out.json.tmp", "out.json.vramlab-tmp", ".out.json.tmp", "out.json.partial"]
        for name in planted:
            os.symlink(victim, os.path.join(self.dir, name))
        self.assertIsNone(self.write(self.out))
        self.assertEqual(self.read(victim), b"precious\n")
        for name in planted:
            self.assertEqual(os.readlink(os.path.join(self.dir, name)), victim)
        self.assertFalse(os.path.islink(self.out))
        self.assertEqual(self.read(self.out), self.expected)
        self.assertEqual(sorted(os.listdir(self.dir)), sorted(planted + ["out.json", "victim"]))

    def test_fifo_reader_gets_the_bytes(self):
        os.mkfifo(self.out)
        reader = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdout.buffer.write("
                                   "open(sys.argv[1], 'rb').read())", self.out],
                                  stdout=subprocess.PIPE)
        try:
            self.assertIsNone(self.write(self.out))
            got, _ = reader.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            got = None
        finally:
            reader.kill()
            reader.wait()
        self.assertEqual(got, self.expected, "the FIFO's reader did not get the bytes")
        self.assertTrue(stat.S_ISFIFO(os.lstat(self.out).st_mode), "the FIFO was replaced")

    def test_read_only_directory_refused_in_one_line(self):
        ro = os.path.join(self.dir, "ro")
        os.mkdir(ro)
        # root writes anywhere the mode bits say no: an immutable directory stops it too
        lock = ["chattr", "+i", ro] if ROOT else ["chmod", "0555", ro]
        unlock = ["chattr", "-i", ro] if ROOT else ["chmod", "0755", ro]
        if ROOT and not shutil.which("chattr"):
            self.skipTest("as root, a read-only directory needs chattr (e2fsprogs)")
        if subprocess.run(lock, capture_output=True).returncode:
            self.skipTest(f"{' '.join(lock)} failed here (a file system without attributes)")
        try:
            err = self.write(os.path.join(ro, "out.json"))
            self.assertEqual(os.listdir(ro), [])
        finally:
            subprocess.run(unlock, check=True)
        self.assertIsNotNone(err, "written into a read-only directory")
        self.assertTrue(one_line(err), err)
        self.assertIn("ro/out.json: cannot write", err)
        # /proc: no new files even for root, where os.access says yes
        err = self.write("/proc/vramlab-safe-write-test.json")
        self.assertIsNotNone(err)
        self.assertTrue(one_line(err), err)
        self.assertIn("/proc/vramlab-safe-write-test.json: cannot write", err)

    def test_mode_and_owner_kept(self):
        self.put(self.out)
        os.chmod(self.out, 0o640)
        if ROOT:
            os.chown(self.out, 4242, 4243)
        self.assertIsNone(self.write(self.out))
        st = os.stat(self.out)
        self.assertEqual(oct(stat.S_IMODE(st.st_mode)), oct(0o640))
        if ROOT:
            self.assertEqual((st.st_uid, st.st_gid), (4242, 4243))
        self.assertEqual(self.read(self.out), self.expected)

    def test_new_file_gets_the_umask(self):
        old = os.umask(0o027)
        try:
            self.assertIsNone(self.write(self.out))
        finally:
            os.umask(old)
        self.assertEqual(oct(stat.S_IMODE(os.stat(self.out).st_mode)), oct(0o640))
        self.assertEqual(os.listdir(self.dir), ["out.json"])  # no temporary file left

    def test_directory_is_an_error_naming_it(self):
        sub = os.path.join(self.dir, "sub")
        os.mkdir(sub)
        err = self.write(sub)
        self.assertIsNotNone(err)
        self.assertTrue(one_line(err), err)
        self.assertIn(sub, err)
        self.assertIn("directory", err)
        self.assertEqual(os.listdir(sub), [])


class Module(Cases, unittest.TestCase):
    """vramlab_safe_write itself."""
    expected = b'{"ok": 1}\n'

    def write(self, path):
        try:
            sw.write_text(path, self.expected.decode())
        except sw.CannotWrite as e:
            return str(e)
        return None

    def test_error_in_the_block_leaves_the_old_file(self):
        for exc in (RuntimeError, KeyboardInterrupt):
            self.put(self.out)
            with self.assertRaises(exc):
                with sw.open_output(self.out) as f:
                    f.write("half of it")
                    f.flush()
                    raise exc()
            self.assertEqual(self.read(self.out), b"old\n")
            self.assertEqual(os.listdir(self.dir), ["out.json"])
        os.unlink(self.out)
        with self.assertRaises(RuntimeError):
            with sw.open_output(self.out, "wb") as f:
                raise RuntimeError()
        self.assertEqual(os.listdir(self.dir), [])  # none before, none after

    def test_signal_as_the_temporary_file_is_made(self):
        # The scripts' handlers raise; a signal that lands as mkstemp() returns (the file made,
        # the cleanup's try not begun) must not leave the file: the writer holds the signals
        # until that try has begun. Here mkstemp signals the process itself once it has made
        # the file; without the hold the handler raises before the try.
        class Cut(BaseException):
            pass

        def handler(signum, frame):
            raise Cut()

        real_mkstemp = sw.tempfile.mkstemp

        def mkstemp_then_signal(*args, **kwargs):
            made = real_mkstemp(*args, **kwargs)
            os.kill(os.getpid(), signal.SIGINT)
            return made

        old = signal.signal(signal.SIGINT, handler)
        sw.tempfile.mkstemp = mkstemp_then_signal
        try:
            for write in (lambda: sw.write_text(self.out, "new\n"),
                          lambda: sw.write_new(self.out + ".orig", b"new\n")):
                self.put(self.out)
                with self.assertRaises(Cut):
                    write()
                self.assertEqual(self.read(self.out), b"old\n")
                self.assertEqual(os.listdir(self.dir), ["out.json"])
        finally:
            sw.tempfile.mkstemp = real_mkstemp
            signal.signal(signal.SIGINT, old)

    def test_check_writable_creates_truncates_and_follows_nothing(self):
        victim = os.path.join(self.dir, "victim")
        self.put(victim, b"precious\n")
        os.symlink(victim, self.out + ".tmp")
        sw.check_writable(self.out)
        os.symlink(victim, self.out)
        sw.check_writable(self.out)
        self.assertEqual(self.read(victim), b"precious\n")
        self.assertEqual(sorted(os.listdir(self.dir)), ["out.json", "out.json.tmp", "victim"])
        for bad, why in ((self.dir, "it is a directory"),
                         (os.path.join(self.dir, "none", "x"), "no directory"),
                         (os.path.join(victim, "x"), "is not a directory"),
                         ("/proc/vramlab-x", "proc file system")):
            with self.assertRaises(sw.CannotWrite) as cm:
                sw.check_writable(bad)
            self.assertIn(f"{bad}: cannot write: ", str(cm.exception))
            self.assertIn(why, str(cm.exception))
        sw.check_makedirs(os.path.join(self.dir, "new", "deeper"))
        self.assertFalse(os.path.exists(os.path.join(self.dir, "new")))
        with self.assertRaises(sw.CannotWrite):
            sw.check_makedirs("/proc/vramlab-x/y")

    def test_write_new_never_replaces(self):
        self.put(self.out)
        os.chmod(self.out, 0o604)
        backup = self.out + ".orig"
        sw.write_new(backup, b"first\n", like=os.stat(self.out))
        self.assertEqual(oct(stat.S_IMODE(os.stat(backup).st_mode)), oct(0o604))
        with self.assertRaises(FileExistsError):
            sw.write_new(backup, b"second\n")
        self.assertEqual(self.read(backup), b"first\n")
        victim = os.path.join(self.dir, "victim")
        self.put(victim, b"precious\n")
        os.symlink(victim, self.out + ".new")
        with self.assertRaises(FileExistsError):
            sw.write_new(self.out + ".new", b"x")
        self.assertEqual(self.read(victim), b"precious\n")
        self.assertEqual(sorted(os.listdir(self.dir)),
                         ["out.json", "out.json.new", "out.json.orig", "victim"])

    def test_savefig(self):
        try:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            self.skipTest("no matplotlib in this Python (Debian's: /usr/bin/python3)")
        fig = plt.figure(figsize=(1, 1))
        png = os.path.join(self.dir, "f.png")
        sw.savefig(fig, png, dpi=20)
        self.assertEqual(self.read(png)[:8], b"\x89PNG\r\n\x1a\n")
        svg = os.path.join(self.dir, "f.svg")
        sw.savefig(fig, svg)
        self.assertIn(b"<svg", self.read(svg))
        if ROOT:
            os.mknod(self.out, stat.S_IFCHR | 0o666, os.makedev(1, 3))
            sw.savefig(fig, self.out, format="png")
            self.assertTrue(stat.S_ISCHR(os.lstat(self.out).st_mode))
        plt.close(fig)


class HwCostFile(Cases, unittest.TestCase):
    """The same cases through a writer of the repository: vramlab-hw's cost file."""

    @classmethod
    def setUpClass(cls):
        sys.path.insert(0, os.path.join(HERE, "..", "hw"))
        from test_calibrate import synthetic
        cls.work = tempfile.TemporaryDirectory()
        cls.raw = os.path.join(cls.work.name, "card.raw.jsonl")
        with open(cls.raw, "w") as f:
            f.writelines(json.dumps(r) + "\n" for r in synthetic()[0])
        ref = os.path.join(cls.work.name, "ref.json")
        r = subprocess.run([sys.executable, HW, "calibrate", "--from-raw", cls.raw, "--out", ref],
                           capture_output=True, text=True)
        if r.returncode:
            raise RuntimeError(f"vramlab-hw calibrate --from-raw: {r.stderr}")
        with open(ref, "rb") as f:
            cls.expected = f.read()

    @classmethod
    def tearDownClass(cls):
        cls.work.cleanup()

    def write(self, path):
        r = subprocess.run([sys.executable, HW, "calibrate", "--from-raw", self.raw, "--out",
                            path], capture_output=True, text=True, timeout=60)
        self.assertLess(r.returncode, 128, r.stderr)  # no crash
        return r.stderr if r.returncode else None


class ShellHelper(Cases, unittest.TestCase):
    """The same cases through ci/safe-write.sh, the helper of the bash scripts."""
    expected = b"a,b\n1,2\n"
    HELPER = os.path.join(HERE, "..", "..", "ci", "safe-write.sh")
    SCRIPT = ('set -euo pipefail; . "$0"; safe_write_begin t "$1"; printf "a,b\\n" >"$t"; '
              'printf "1,2\\n" >>"$t"; safe_write_commit "$t" "$1"')

    def write(self, path):
        r = subprocess.run(["bash", "-c", self.SCRIPT, self.HELPER, path], capture_output=True,
                           text=True, timeout=60)
        self.assertLess(r.returncode, 128, r.stderr)
        return r.stderr if r.returncode else None

    def test_interrupt_leaves_the_old_file_and_no_temporary(self):
        self.put(self.out)
        for sig in (signal.SIGINT, signal.SIGTERM):
            p = subprocess.Popen(["bash", "-c", 'set -eu; . "$0"; safe_write_begin t "$1"; '
                                  'echo half >"$t"; echo ready; sleep 30; '
                                  'safe_write_commit "$t" "$1"', self.HELPER, self.out],
                                 stdout=subprocess.PIPE, text=True, start_new_session=True)
            self.assertEqual(p.stdout.readline(), "ready\n")
            # once sleep runs: bash lets a foreground child decide whether a Ctrl-C ends the
            # script, and a child hit before its exec goes on
            time.sleep(0.5)
            os.killpg(p.pid, sig)  # as a terminal's Ctrl-C does: to the whole group
            p.wait(timeout=20)
            p.stdout.close()
            self.assertEqual(p.returncode, -sig)
            self.assertEqual(self.read(self.out), b"old\n")
            self.assertEqual(os.listdir(self.dir), ["out.json"])


if __name__ == "__main__":
    unittest.main()
