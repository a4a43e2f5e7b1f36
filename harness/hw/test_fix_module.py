#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Tests of `vramlab-hw fix-module` (the two 6.14+ radeon fixes built for the kernel a box
runs), quick and without root side effects: nothing is built for a kernel below 6.14; a
missing source or build directory names the Debian package; the detection of each fix, the
patches applied only where missing, a patch that does not apply named with the kernel; the
work directory made, reused when it is fix-module's, refused otherwise; tarball members that
would leave it refused; --install into a private modules directory; --check.

The source is radeon's two files rebuilt from the patches' own pre-image (always), and, where
the project's 7.2 tree is ($VRAMLAB_CACHE/linux-7.2, tag vramlab-base: pristine 7.2.13),
stock 7.2's radeon as `git archive` gives it. The build is a fake: a build directory whose
Makefile only writes radeon.ko (`make -C kernel fix-module-7.2` builds the real one)."""
import io
import os
import re
import shutil
import stat
import subprocess
import tarfile
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
PATCHES = os.path.normpath(os.path.join(HERE, "..", "..", "patches", "linux-7.2"))
CACHE = os.environ.get("VRAMLAB_CACHE", os.path.expanduser("~/.cache/vramlab"))
TREE72 = os.path.join(CACHE, "linux-7.2")
RADEON = "drivers/gpu/drm/radeon"
REL = "7.2.13-amd64"
HAVE_PATCH = shutil.which("patch") is not None
NO_PATCH = "no patch(1) here (apt-get install patch): the patches cannot be applied"


def patch_file(prefix):
    return next(os.path.join(PATCHES, f) for f in sorted(os.listdir(PATCHES))
                if f.startswith(prefix))


LRU, DUP = patch_file("1-radeon-0001-"), patch_file("1-radeon-0002-")


def preimage(patch):
    """{path: text} on which `patch` applies exactly: each hunk's old side at its line, the
    line above the first hunk naming the function its @@ header names, filler elsewhere."""
    files, path = {}, None
    lines = iter(open(patch, encoding="utf-8").read().splitlines())
    for line in lines:
        if line.startswith("--- a/"):
            path = line[len("--- a/"):]
            files[path] = []
            continue
        m = re.match(r"@@ -(\d+),(\d+) \+\d+,(\d+) @@ ?(.*)", line)
        if not (m and path):
            continue
        out, start, old, new = files[path], int(m.group(1)), int(m.group(2)), int(m.group(3))
        while len(out) < start - 2:
            out.append("/* filler */")
        if len(out) < start - 1:
            out.append(m.group(4) or "/* filler */")
        while old or new:
            h = next(lines)
            if h.startswith(" ") or h == "":
                out.append(h[1:])
                old, new = old - 1, new - 1
            elif h.startswith("-"):
                out.append(h[1:])
                old -= 1
            elif h.startswith("+"):
                new -= 1
    return {p: "\n".join(t) + "\n" for p, t in files.items()}


FAKE_FILES = dict(preimage(LRU), **preimage(DUP))
TOP_MAKEFILE = "VERSION = 7\nPATCHLEVEL = 2\nSUBLEVEL = 13\nEXTRAVERSION =\n"


def make_tarball(path, files, prefix="linux-source-7.2/", extra=()):
    """A linux-source-like tarball: the top Makefile and the given files, under prefix."""
    with tarfile.open(path, "w:xz" if path.endswith(".xz") else "w") as tf:
        def add(name, data, kind=tarfile.REGTYPE, link=""):
            ti = tarfile.TarInfo(name)
            ti.type, ti.linkname, ti.mode = kind, link, 0o644
            ti.size = len(data) if kind == tarfile.REGTYPE else 0
            tf.addfile(ti, io.BytesIO(data) if kind == tarfile.REGTYPE else None)
        add(prefix + "Makefile", TOP_MAKEFILE.encode())
        for name, text in files.items():
            add(prefix + name, text.encode())
        for name, data, kind, link in extra:
            add(name, data, kind, link)


# vramlab-hw run as a program and loaded as a module, as its other tests do
from test_vramlab_hw import hw, load_hw  # noqa: E402  (beside this file)


class Base(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="vramlab-fix-module-test.")
        self.cache = os.path.join(self.tmp, "cache")
        self.mods = os.path.join(self.tmp, "root", "lib", "modules")  # depmod -b root
        self.headers = os.path.join(self.tmp, "headers")
        self.fake_headers(self.headers, REL)
        self.tarball = os.path.join(self.tmp, "linux-source-7.2.tar.xz")
        make_tarball(self.tarball, FAKE_FILES)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def fake_headers(self, d, rel):
        """A build directory whose `make M=DIR modules` writes DIR/radeon.ko (a few bytes
        with a srcversion) and says what it was given."""
        os.makedirs(os.path.join(d, "include", "generated"))
        with open(os.path.join(d, "include", "generated", "utsrelease.h"), "w") as f:
            f.write(f'#define UTS_RELEASE "{rel}"\n')
        with open(os.path.join(d, "Makefile"), "w") as f:
            f.write('modules:\n\t@echo "fake build: M=$(M) CONFIG_DRM_RADEON=$(CONFIG_DRM_RADEON)"\n'
                    '\t@printf "\\0srcversion=0123456789ABCDEF\\0" >$(M)/radeon.ko\n')
        open(os.path.join(d, "Module.symvers"), "w").close()

    def run_hw(self, *args, release=REL):
        return hw("fix-module", "--release", release, "--modules-dir", self.mods, *args,
                  env={"VRAMLAB_CACHE": self.cache})

    def work(self, release=REL):
        return os.path.join(self.cache, "fix-module", release)

    def read(self, path):
        with open(path, encoding="utf-8") as f:
            return f.read()


class Refusals(Base):
    def test_below_6_14_builds_nothing(self):
        for rel in ("6.12.48-amd64", "6.13.12", "6.1.0-18-amd64"):
            for extra in ((), ("--check",), ("--install", "--dry-run")):
                rc, out, err = self.run_hw(*extra, release=rel)
                self.assertEqual(rc, 0, (rel, extra, err))
                self.assertIn("has neither bug: its radeon still uses ttm_eu", out)
                self.assertIn("nothing to build", out)
        self.assertFalse(os.path.exists(self.cache))

    def test_missing_source_and_headers_name_the_packages(self):
        # 6.99: no /usr/src/linux-source-6.99.tar.xz on any box; headers from an empty dir
        rc, out, err = self.run_hw(release="6.99.1-test")
        self.assertEqual(rc, 1, out)
        self.assertIn("apt-get install linux-source-6.99", err)
        self.assertIn("it must be the running kernel's version", err)
        self.assertIn("apt-get install linux-headers-6.99.1-test", err)
        self.assertIn(os.path.join(self.mods, "6.99.1-test", "build"), err)
        self.assertEqual(out, "")
        self.assertFalse(os.path.exists(self.cache))
        # each alone
        rc, out, err = self.run_hw("--headers", self.headers, release="6.99.1-test")
        self.assertIn("apt-get install linux-source-6.99", err)
        self.assertNotIn("linux-headers", err)
        rc, out, err = self.run_hw("--source", self.tarball)
        self.assertEqual(rc, 1)
        self.assertIn(f"apt-get install linux-headers-{REL}", err)
        self.assertNotIn("linux-source", err)
        # given paths that are not there are named as given
        rc, out, err = self.run_hw("--source", "/nonexistent/src.tar.xz", "--headers",
                                   "/nonexistent/build")
        self.assertIn("/nonexistent/src.tar.xz: no such file or directory", err)
        self.assertIn("/nonexistent/build: no kernel build directory", err)
        self.assertFalse(os.path.exists(self.cache))

    def test_the_dry_run_says_what_is_missing_and_goes_on(self):
        rc, out, err = self.run_hw("--dry-run", release="6.99.1-test")
        self.assertEqual(rc, 0, err)
        self.assertIn("# note: a real run would stop here: /usr/src/linux-source-6.99.tar.xz", out)
        self.assertIn("+ make -C", out)
        self.assertFalse(os.path.exists(self.cache))

    def test_headers_of_another_kernel_are_refused(self):
        rc, out, err = self.run_hw("--source", self.tarball, "--headers", self.headers,
                                   release="7.2.14-amd64")
        self.assertEqual(rc, 1)
        self.assertIn(f"{self.headers} is kernel {REL}'s, not 7.2.14-amd64's", err)

    def test_a_source_of_another_kernel_is_refused(self):
        other = os.path.join(self.tmp, "linux-source-7.1.tar")
        make_tarball(other, FAKE_FILES)
        rc, out, err = self.run_hw("--source", other, "--headers", self.headers,
                                   release="7.1.3-amd64")
        self.assertEqual(rc, 1)
        self.assertIn("is kernel 7.2.13-amd64's, not 7.1.3-amd64's", err)
        hdr = os.path.join(self.tmp, "headers-7.1")
        self.fake_headers(hdr, "7.1.3-amd64")
        rc, out, err = self.run_hw("--source", other, "--headers", hdr, release="7.1.3-amd64")
        self.assertEqual(rc, 1)
        self.assertIn("is Linux 7.2.13, the kernel 7.1.3-amd64 is 7.1", err)
        self.assertIn("apt-get install linux-source-7.1", err)

    def test_a_source_of_another_sublevel_is_warned_about(self):
        hdr = os.path.join(self.tmp, "headers-7.2.12")
        self.fake_headers(hdr, "7.2.12-amd64")
        rc, out, err = self.run_hw("--dry-run", "--source", self.tarball, "--headers", hdr,
                                   release="7.2.12-amd64")
        self.assertEqual(rc, 0, err)
        self.assertIn("# WARNING: the source is 7.2.13, the kernel 7.2.12: build from the "
                      "running kernel's own version", out)

    def test_release_must_look_like_one(self):
        for bad in ("7", "../7.2", "7.2/x", ""):
            rc, out, err = hw("fix-module", "--release", bad)
            self.assertEqual(rc, 2, bad)
            self.assertIn("argument --release", err)

    def test_install_needs_a_module_symvers(self):
        os.remove(os.path.join(self.headers, "Module.symvers"))
        os.makedirs(os.path.join(self.mods, REL))
        rc, out, err = self.run_hw("--source", self.tarball, "--headers", self.headers,
                                   "--install")
        self.assertEqual(rc, 1)
        self.assertIn("has no Module.symvers", err)
        self.assertFalse(os.path.exists(self.cache))


class FakeSource(Base):
    """radeon_cs.c and radeon_object.c as the patches' pre-image (stock 6.14+ around the
    lines they change)."""

    def test_the_pre_image_has_neither_fix_and_the_patched_one_both(self):
        mod = load_hw()
        cs, obj = FAKE_FILES[f"{RADEON}/radeon_cs.c"], FAKE_FILES[f"{RADEON}/radeon_object.c"]
        self.assertEqual(mod.fix_states({"radeon_cs.c": cs, "radeon_object.c": obj}),
                         {"lru": "absent", "dup": "absent"})
        # 6.12's functions: not affected; another radeon: unknown
        old_cs = "static void radeon_cs_parser_fini(struct radeon_cs_parser *parser, int e)\n{\n" \
                 "\tttm_eu_fence_buffer_objects(&parser->ticket, &parser->validated, f);\n}\n"
        old_obj = "int radeon_bo_list_validate(struct radeon_device *rdev, int ring)\n{\n" \
                  "\tr = ttm_eu_reserve_buffers(ticket, head, true, &duplicates);\n}\n"
        self.assertEqual(mod.fix_states({"radeon_cs.c": old_cs, "radeon_object.c": old_obj}),
                         {"lru": "old", "dup": "old"})
        self.assertEqual(mod.fix_states({"radeon_cs.c": "int x;\n"}),
                         {"lru": "unknown", "dup": "unknown"})
        # a declaration is passed over; a comment naming the marker does not count
        decl = "static void radeon_cs_parser_fini(struct radeon_cs_parser *p, int e);\n"
        commented = cs.replace("\t\tlist_sort(", "\t\t/* ttm_bo_move_to_lru_tail_unlocked() */\n"
                               "\t\tlist_sort(")
        self.assertEqual(mod.FIXES[0].detect(decl + commented), "absent")

    def test_check_says_what_the_source_lacks(self):
        rc, out, err = self.run_hw("--check", "--source", self.tarball)
        self.assertEqual(rc, 1, err)
        self.assertIn("LRU move at the end of a submission (radeon_cs.c, "
                      "radeon_cs_parser_fini()): ABSENT", out)
        self.assertIn("radeon_bo_list_validate()): ABSENT", out)
        self.assertIn(f"{REL}: AFFECTED", out)
        self.assertIn(f"vramlab-hw fix-module --release {REL}", out)

    @unittest.skipUnless(HAVE_PATCH, NO_PATCH)
    def test_dry_run_prints_every_command_in_order_and_changes_nothing(self):
        args = ("--source", self.tarball, "--headers", self.headers, "--install")
        os.makedirs(os.path.join(self.mods, REL))
        rc, out, err = self.run_hw("--dry-run", *args)
        self.assertEqual(rc, 0, err)
        cmds = [line for line in out.splitlines() if line.startswith("+ ")]
        order = ["mkdir -p " + self.work(), "extract " + RADEON,
                 "--dry-run -d " + self.work() + " -i " + LRU, "--no-backup-if-mismatch -d "
                 + self.work() + " -i " + LRU, "--dry-run -d " + self.work() + " -i " + DUP,
                 "--no-backup-if-mismatch -d " + self.work() + " -i " + DUP,
                 f"make -C {self.headers} M={self.work()}/{RADEON} CONFIG_DRM_RADEON=m",
                 "install -D -m 0644", "depmod", "update-initramfs -u -k " + REL]
        pos = [next((i for i, c in enumerate(cmds) if o in c), None) for o in order]
        self.assertNotIn(None, pos, (order, cmds))
        self.assertEqual(pos, sorted(pos), cmds)
        self.assertIn("patch -p1 --forward --batch --fuzz=0", cmds[pos[2]])
        self.assertIn(f"{self.mods}/{REL}/updates/vramlab/radeon.ko", cmds[pos[7]])
        # the dry run checked that the patches apply, on a copy
        self.assertIn(f"# checked: {os.path.basename(LRU)} applies", out)
        self.assertIn(f"# checked: {os.path.basename(DUP)} applies", out)
        self.assertFalse(os.path.exists(self.cache))
        self.assertEqual(os.listdir(os.path.join(self.mods, REL)), [])
        # --dry-run before the subcommand: the same
        rc2, out2, err2 = hw("--dry-run", "fix-module", "--release", REL, "--modules-dir",
                             self.mods, *args, env={"VRAMLAB_CACHE": self.cache})
        self.assertEqual((rc2, out2), (rc, out), err2)

    @unittest.skipUnless(HAVE_PATCH, NO_PATCH)
    def test_build_patches_what_is_missing_and_names_the_module(self):
        rc, out, err = self.run_hw("--source", self.tarball, "--headers", self.headers)
        self.assertEqual(rc, 0, err)
        work = self.work()
        ko = os.path.join(work, RADEON, "radeon.ko")
        self.assertIn(f"fake build: M={work}/{RADEON} CONFIG_DRM_RADEON=m", out)
        self.assertIn("after patching: LRU move at the end of a submission (radeon_cs.c, "
                      "radeon_cs_parser_fini()): present", out)
        self.assertIn("after patching: a BO named twice validated and fenced once "
                      "(radeon_object.c, radeon_bo_list_validate()): present", out)
        self.assertIn("# built in ", out)
        self.assertIn(ko, out)
        self.assertTrue(os.path.isfile(ko))
        self.assertIn("--install", out)  # how to install it
        self.assertIn(f"depmod -a {REL}", out)
        self.assertEqual(sorted(os.listdir(work)), [".vramlab-fix-module", "drivers"])
        self.assertIn("ttm_bo_move_to_lru_tail_unlocked(&reloc->robj->tbo);",
                      self.read(os.path.join(work, RADEON, "radeon_cs.c")))
        # no .orig or .rej left by patch
        self.assertEqual(sorted(os.listdir(os.path.join(work, RADEON))),
                         ["radeon.ko", "radeon_cs.c", "radeon_object.c"])
        # again: the work directory is fix-module's, so it is emptied and used
        stale = os.path.join(work, RADEON, "stale.o")
        open(stale, "w").close()
        rc, out, err = self.run_hw("--source", self.tarball, "--headers", self.headers)
        self.assertEqual(rc, 0, err)
        self.assertIn(f"+ rm -r {work}/* (an earlier fix-module's work", out)
        self.assertFalse(os.path.exists(stale))

    @unittest.skipUnless(HAVE_PATCH, NO_PATCH)
    def test_only_the_missing_fix_is_applied(self):
        half = dict(FAKE_FILES)
        src = os.path.join(self.tmp, "half")
        for name, text in half.items():
            os.makedirs(os.path.dirname(os.path.join(src, name)), exist_ok=True)
            with open(os.path.join(src, name), "w") as f:
                f.write(text)
        with open(os.path.join(src, "Makefile"), "w") as f:
            f.write(TOP_MAKEFILE)
        subprocess.run(["patch", "-s", "-p1", "-d", src, "-i", LRU], check=True)
        open(os.path.join(src, RADEON, "radeon_cs.o"), "w").close()  # a build's leftover
        rc, out, err = self.run_hw("--source", src, "--headers", self.headers)
        self.assertEqual(rc, 0, err)
        self.assertIn("radeon_cs_parser_fini()): present", out)
        self.assertIn("radeon_bo_list_validate()): ABSENT", out)
        self.assertNotIn(os.path.basename(LRU), out)
        self.assertIn("-i " + DUP, out)
        self.assertFalse(os.path.exists(os.path.join(self.work(), RADEON, "radeon_cs.o")))
        # both there: nothing to build, no work directory
        subprocess.run(["patch", "-s", "-p1", "-d", src, "-i", DUP], check=True)
        shutil.rmtree(self.cache)
        for args in ((), ("--dry-run",)):
            rc, out, err = self.run_hw("--source", src, "--headers", self.headers, *args)
            self.assertEqual(rc, 0, err)
            self.assertIn(f"{REL}: its source has both fixes: nothing to build", out)
            self.assertNotIn("+ ", out)
            self.assertFalse(os.path.exists(self.cache))
        rc, out, err = self.run_hw("--check", "--source", src)
        self.assertEqual(rc, 0, err)
        self.assertIn(f"{REL}: fixed, if it was built from {src}: its radeon has both fixes", out)

    @unittest.skipUnless(HAVE_PATCH, NO_PATCH)
    def test_a_patch_that_does_not_apply_is_named_with_the_kernel(self):
        files = dict(FAKE_FILES)
        cs = f"{RADEON}/radeon_cs.c"
        files[cs] = files[cs].replace("This slightly lowers", "This lowers")
        self.assertNotEqual(files[cs], FAKE_FILES[cs])
        other = os.path.join(self.tmp, "other.tar")
        make_tarball(other, files)
        for dry in ((), ("--dry-run",)):
            rc, out, err = self.run_hw("--source", other, "--headers", self.headers, *dry)
            self.assertEqual(rc, 1, out)
            self.assertIn(f"{os.path.basename(LRU)} (LRU move at the end of a submission) does "
                          f"not apply to the radeon of {REL}: this kernel's radeon differs from "
                          "7.2's: rebase needed", err)
            self.assertNotIn("+ make", out)
        self.assertFalse(os.path.exists(os.path.join(self.work(), RADEON, "radeon.ko")))


class WorkAndTarball(Base):
    def test_a_work_directory_not_fix_modules_is_never_touched(self):
        foreign = os.path.join(self.tmp, "foreign")
        os.mkdir(foreign)
        with open(os.path.join(foreign, "precious"), "w") as f:
            f.write("keep\n")
        link = os.path.join(self.tmp, "link")
        os.symlink(foreign, link)
        for work, why in ((foreign, "is not fix-module's (no .vramlab-fix-module in it)"),
                          (link, "is not a directory (a file or a symlink)")):
            for dry in ((), ("--dry-run",)):
                rc, out, err = self.run_hw("--source", self.tarball, "--headers", self.headers,
                                           "--work", work, *dry)
                self.assertEqual(rc, 1, out)
                self.assertIn(why, err)
        self.assertEqual(os.listdir(foreign), ["precious"])
        self.assertEqual(self.read(os.path.join(foreign, "precious")), "keep\n")

    @unittest.skipUnless(HAVE_PATCH, NO_PATCH)
    def test_an_empty_directory_is_taken(self):
        empty = os.path.join(self.tmp, "empty")
        os.mkdir(empty)
        rc, out, err = self.run_hw("--source", self.tarball, "--headers", self.headers,
                                   "--work", empty)
        self.assertEqual(rc, 0, err)
        self.assertIn(f"# {empty}: an empty directory, taken", out)
        self.assertTrue(os.path.isfile(os.path.join(empty, RADEON, "radeon.ko")))
        self.assertTrue(self.read(os.path.join(empty, ".vramlab-fix-module")).startswith(
            "vramlab fix-module\n"))

    def test_members_that_would_leave_the_work_directory_are_refused(self):
        victim = os.path.join(self.tmp, "victim")
        for extra, why in (
                ([("../../evil", b"x", tarfile.REGTYPE, "")], "'../../evil' is an absolute path "
                 "or has '..'"),
                ([("/etc/evil", b"x", tarfile.REGTYPE, "")], "'/etc/evil' is an absolute path"),
                ([(f"linux-source-7.2/{RADEON}/../../../../evil", b"x", tarfile.REGTYPE, "")],
                 "has '..'"),
                ([(f"linux-source-7.2/{RADEON}/link.c", b"", tarfile.SYMTYPE, victim)],
                 "is not a regular file (a link or a device): refused"),
                ([(f"linux-source-7.2/{RADEON}/hard.c", b"", tarfile.LNKTYPE, "Makefile")],
                 "is not a regular file"),
                ([(f"other/{RADEON}/radeon_cs.c", b"x", tarfile.REGTYPE, "")],
                 "radeon's sources under both linux-source-7.2/ and other/")):
            bad = os.path.join(self.tmp, "bad.tar")
            make_tarball(bad, FAKE_FILES, extra=extra)
            for args in (("--check",), ("--dry-run",), ()):
                rc, out, err = self.run_hw("--source", bad, "--headers", self.headers, *args)
                self.assertEqual(rc, 1, (extra, args, out))
                self.assertIn(why, err)
            self.assertFalse(os.path.lexists(victim))
            self.assertFalse(os.path.exists(os.path.join(self.tmp, "evil")))
        self.assertFalse(os.path.exists(self.cache))

    def test_not_a_tarball(self):
        junk = os.path.join(self.tmp, "junk.tar.xz")
        with open(junk, "wb") as f:
            f.write(b"\xfd7zXZ\x00 not really")
        rc, out, err = self.run_hw("--check", "--source", junk)
        self.assertEqual(rc, 1)
        self.assertIn(f"{junk}: not a readable kernel source tarball", err)
        empty = os.path.join(self.tmp, "empty.tar")
        make_tarball(empty, {})
        rc, out, err = self.run_hw("--check", "--source", empty)
        self.assertIn(f"no {RADEON}/ in it", err)


class Install(Base):
    """--install's copy and commands, through a recording box, into a private modules
    directory (depmod and update-initramfs are recorded, not run)."""

    def setUp(self):
        super().setUp()
        self.mod = load_hw()
        ran, said = self.ran, self.said = [], []

        class Recording(self.mod.Box):
            def run(self, argv, env=None, check=True, stdout=None):
                ran.append(argv)
                return 0

            def say(self, text):
                said.append(text)
        self.box = Recording(False)
        self.args = type("Args", (), {"modules_dir": self.mods})
        os.makedirs(os.path.join(self.mods, REL))
        self.ko = os.path.join(self.tmp, "radeon.ko")
        with open(self.ko, "wb") as f:
            f.write(b"\0srcversion=0123456789ABCDEF\0module")
        self.dest = os.path.join(self.mods, REL, "updates", "vramlab", "radeon.ko")

    def test_install_copies_and_runs_depmod_and_initramfs(self):
        self.mod.install_fix_module(self.args, self.box, self.ko, REL)
        with open(self.dest, "rb") as f:
            self.assertEqual(f.read(), b"\0srcversion=0123456789ABCDEF\0module")
        self.assertEqual(self.ran[0][0], "depmod")
        self.assertEqual(self.ran[0], ["depmod", "-b", os.path.join(self.tmp, "root"), "-a", REL])
        if shutil.which("update-initramfs"):
            self.assertEqual(self.ran[1], ["update-initramfs", "-u", "-k", REL])
        else:
            self.assertEqual(len(self.ran), 1)
            self.assertIn(f"(dracut -f --kver {REL})", "\n".join(self.said))
        self.assertIn("modinfo -F filename radeon", "\n".join(self.said))
        self.assertIn(f"To undo: rm {self.dest}; depmod -a {REL}", "\n".join(self.said))
        # again, over its own file: replaced whole, mode kept
        os.chmod(self.dest, 0o640)
        self.mod.install_fix_module(self.args, self.box, self.ko, REL)
        self.assertEqual(stat.S_IMODE(os.stat(self.dest).st_mode), 0o640)
        self.assertEqual(os.listdir(os.path.dirname(self.dest)), ["radeon.ko"])

    def test_a_link_at_the_destination_is_never_written_through(self):
        victim = os.path.join(self.tmp, "victim")
        with open(victim, "w") as f:
            f.write("precious\n")
        os.makedirs(os.path.dirname(self.dest))
        os.symlink(victim, self.dest)
        with self.assertRaises(SystemExit) as e:
            self.mod.install_fix_module(self.args, self.box, self.ko, REL)
        self.assertIn("not a regular file (a symlink or a device): not written", str(e.exception))
        self.assertEqual(self.read(victim), "precious\n")
        self.assertEqual(self.ran, [])
        # a planted link for updates/ itself
        os.remove(self.dest)
        shutil.rmtree(os.path.join(self.mods, REL, "updates"))
        elsewhere = os.path.join(self.tmp, "elsewhere")
        os.mkdir(elsewhere)
        os.symlink(elsewhere, os.path.join(self.mods, REL, "updates"))
        with self.assertRaises(SystemExit) as e:
            self.mod.install_fix_module(self.args, self.box, self.ko, REL)
        self.assertIn("not a directory (a symlink or a file): nothing installed", str(e.exception))
        self.assertEqual(os.listdir(elsewhere), [])


class Check(Base):
    def modules_dep(self, release, radeon):
        d = os.path.join(self.mods, release)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "modules.dep"), "w") as f:
            f.write(f"kernel/drivers/gpu/drm/drm.ko.xz:\n{radeon}: kernel/drm.ko.xz\n")
        return d

    def test_an_installed_fix_module_for_another_kernel(self):
        self.modules_dep("7.2.13-other", "updates/vramlab/radeon.ko")
        rc, out, err = self.run_hw("--check", release="7.2.13-other")
        self.assertEqual(rc, 0, err)
        self.assertIn("modprobe loads vramlab's fix module", out)
        self.assertIn("7.2.13-other: fixed (vramlab's radeon.ko is installed for it; boot it)",
                      out)

    def test_the_kernels_own_radeon(self):
        self.modules_dep(REL, "kernel/drivers/gpu/drm/radeon/radeon.ko.xz")
        rc, out, err = self.run_hw("--check", "--source", self.tarball)
        self.assertEqual(rc, 1, err)
        self.assertIn("drivers/gpu/drm/radeon/radeon.ko.xz: not vramlab's fix module", out)
        self.assertIn(f"{REL}: AFFECTED", out)
        rc, out, err = self.run_hw("--check", release="6.99.2-test")
        self.assertEqual(rc, 1)
        self.assertIn("UNKNOWN: no /usr/src/linux-source-6.99.tar.xz to look in (apt-get "
                      "install linux-source-6.99", out)

    def test_the_running_kernel_loaded_or_not(self):
        rel = os.uname().release
        if tuple(int(x) for x in re.findall(r"[0-9]+", rel)[:2]) < (6, 14):
            self.skipTest(f"the running kernel, {rel}, is below 6.14")
        d = self.modules_dep(rel, "updates/vramlab/radeon.ko")
        os.makedirs(os.path.join(d, "updates", "vramlab"))
        with open(os.path.join(d, "updates", "vramlab", "radeon.ko"), "wb") as f:
            f.write(b"\0srcversion=0123456789ABCDEF\0")
        sysmod = os.path.join(self.tmp, "sys-radeon")
        args = ("--check", "--sys-module", sysmod)
        rc, out, err = self.run_hw(*args, release=rel)
        self.assertEqual(rc, 0, err)
        self.assertIn("fixed once radeon loads (it is not loaded", out)
        os.mkdir(sysmod)
        for srcversion, want_rc, said in (("0123456789ABCDEF", 0, "the loaded radeon is "
                                           "vramlab's (srcversion 0123456789ABCDEF)"),
                                          ("FEDCBA9876543210", 1, "NOT FIXED YET")):
            with open(os.path.join(sysmod, "srcversion"), "w") as f:
                f.write(srcversion + "\n")
            rc, out, err = self.run_hw(*args, release=rel)
            self.assertEqual(rc, want_rc, out)
            self.assertIn(said, out)
        os.remove(os.path.join(sysmod, "srcversion"))
        for taint, want_rc in (("OE", 0), ("", 1)):
            with open(os.path.join(sysmod, "taint"), "w") as f:
                f.write(taint + "\n")
            rc, out, err = self.run_hw(*args, release=rel)
            self.assertEqual(rc, want_rc, out)


def have_tree72():
    return subprocess.run(["git", "-C", TREE72, "rev-parse", "-q", "--verify",
                           "refs/tags/vramlab-base"], capture_output=True).returncode == 0


@unittest.skipUnless(have_tree72(), f"no 7.2 tree at {TREE72} (tag vramlab-base; make -C kernel "
                     "tree-7.2 makes it): the cases on stock 7.2's radeon are skipped")
class Stock72(Base):
    """Stock 7.2's radeon, as Debian's linux-source-7.2 holds it: a tarball of the pristine
    base's top Makefile and drivers/gpu/drm/radeon/ (git archive)."""

    def setUp(self):
        super().setUp()
        self.stock = os.path.join(self.tmp, "linux-source-7.2-stock.tar")
        with open(self.stock, "wb") as f:
            subprocess.run(["git", "-C", TREE72, "archive", "--format=tar",
                            "--prefix=linux-source-7.2/", "vramlab-base", "Makefile", RADEON],
                           stdout=f, check=True)

    def test_stock_72_has_neither_fix(self):
        rc, out, err = self.run_hw("--check", "--source", self.stock)
        self.assertEqual(rc, 1, err)
        self.assertIn("radeon_cs_parser_fini()): ABSENT", out)
        self.assertIn("radeon_bo_list_validate()): ABSENT", out)

    @unittest.skipUnless(HAVE_PATCH, NO_PATCH)
    def test_both_patches_apply_and_are_detected(self):
        rc, out, err = self.run_hw("--dry-run", "--source", self.stock, "--headers", self.headers)
        self.assertEqual(rc, 0, err)
        self.assertIn(f"# checked: {os.path.basename(LRU)} applies", out)
        self.assertIn(f"# checked: {os.path.basename(DUP)} applies", out)
        self.assertIn("Linux 7.2.13", out)
        self.assertFalse(os.path.exists(self.cache))
        rc, out, err = self.run_hw("--source", self.stock, "--headers", self.headers)
        self.assertEqual(rc, 0, err)
        self.assertIn("after patching: LRU move at the end of a submission (radeon_cs.c, "
                      "radeon_cs_parser_fini()): present", out)
        self.assertIn("after patching: a BO named twice validated and fenced once "
                      "(radeon_object.c, radeon_bo_list_validate()): present", out)
        # every file of stock radeon, the two patched ones changed, nothing else
        work = os.path.join(self.work(), RADEON)
        listed = subprocess.run(["git", "-C", TREE72, "ls-tree", "-r", "--name-only",
                                 "vramlab-base", RADEON + "/"], capture_output=True, text=True,
                                check=True).stdout.split()
        got = sorted(os.path.relpath(os.path.join(d, f), self.work())
                     for d, _, fs in os.walk(work) for f in fs)
        self.assertEqual(got, sorted(listed + [f"{RADEON}/radeon.ko"]))
        for name in listed:
            stock = subprocess.run(["git", "-C", TREE72, "show", f"vramlab-base:{name}"],
                                   capture_output=True, check=True).stdout
            with open(os.path.join(self.work(), name), "rb") as f:
                same = f.read() == stock
            self.assertEqual(same, not name.endswith(("/radeon_cs.c", "/radeon_object.c")),
                             name)
        # the patched tree, as a source, has both: nothing to build
        src = os.path.join(self.tmp, "fixed")
        shutil.copytree(self.work(), src)
        with open(os.path.join(src, "Makefile"), "w") as f:
            f.write(TOP_MAKEFILE)
        rc, out, err = self.run_hw("--check", "--source", src)
        self.assertEqual(rc, 0, out)
        self.assertIn("its radeon has both fixes", out)


if __name__ == "__main__":
    unittest.main()
