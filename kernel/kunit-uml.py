#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""One KUnit run under UML whose console cannot lose lines.

`kunit.py run` reads the UML kernel's console through a pipe.  UML makes its stdout
non-blocking, and its generic_write() (arch/um/drivers/chan_user.c) returns 0 on EAGAIN: when
the reader is slower than the kernel (kunit.py starved by a busy machine) what does not fit in
the pipe is dropped, and kunit.py reports suites that ran as crashed.  A regular file never
returns EAGAIN, so here the kernel writes its console to LOG and kunit.py parses the file
afterwards.  The kernel runs once; LOG is also the raw log the Makefiles grep for kernel
reports.  Its stdin is a pipe kept open (EOF on it would hang up UML's console).

  kunit-uml.py [options] KDIR BUILD_DIR LOG

  --kunitconfig=F   kunitconfig fragment for `kunit.py build` (repeatable)
  --jobs=N          build jobs
  --timeout=S       seconds the kernel may run (default 900)
  --kernel_args=A   kernel argument (repeatable)
  --filter_glob=G   suites/cases to run (kunit.filter_glob)
  --json=F          kunit.py's JSON result
  --no-build        run the kernel already in BUILD_DIR
  --no-parse        only build and run: the exit status is the kernel's

The exit status is kunit.py's parse status: 0 only if every case passed or skipped.
"""

import argparse
import os
import subprocess
import sys
import time


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split('\n', 1)[0])
    ap.add_argument('kdir')
    ap.add_argument('build_dir')
    ap.add_argument('log')
    ap.add_argument('--kunitconfig', action='append', default=[])
    ap.add_argument('--jobs', type=int, default=os.cpu_count() or 1)
    ap.add_argument('--timeout', type=int, default=900)
    ap.add_argument('--kernel_args', action='append', default=[])
    ap.add_argument('--filter_glob', default='')
    ap.add_argument('--json')
    ap.add_argument('--no-build', action='store_true')
    ap.add_argument('--no-parse', action='store_true')
    a = ap.parse_args()

    kunit = [sys.executable, os.path.join(a.kdir, 'tools/testing/kunit/kunit.py')]
    build_dir = os.path.abspath(a.build_dir)
    if not a.no_build:
        cmd = kunit + ['build', '--build_dir=' + build_dir, '--jobs=%d' % a.jobs]
        cmd += ['--kunitconfig=' + k for k in a.kunitconfig]
        if subprocess.run(cmd, cwd=a.kdir).returncode != 0:
            print('kunit-uml: the build failed', file=sys.stderr)
            return 1

    linux = os.path.join(build_dir, 'linux')
    if not os.access(linux, os.X_OK):
        print('kunit-uml: no UML kernel at %s' % linux, file=sys.stderr)
        return 1
    # The arguments kunit.py exec gives a UML kernel (kunit_kernel.py run_kernel(), start())
    args = [k for k in a.kernel_args if k]
    if a.filter_glob:
        args.append('kunit.filter_glob=' + a.filter_glob)
    args += ['kunit.enable=1', 'mem=1G', 'console=tty', 'kunit_shutdown=halt']
    print('kunit-uml: %s %s (console: %s)' % (linux, ' '.join(args), a.log), flush=True)
    start = time.monotonic()
    with open(a.log, 'w') as out:
        proc = subprocess.Popen([linux] + args, stdin=subprocess.PIPE, stdout=out,
                                stderr=subprocess.STDOUT)
        try:
            rc = proc.wait(timeout=a.timeout)
        except subprocess.TimeoutExpired:
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            print('kunit-uml: the kernel did not finish in %d s (killed; %s)'
                  % (a.timeout, a.log), file=sys.stderr)
            rc = 124
        proc.stdin.close()
    print('kunit-uml: the kernel ran %.1f s (exit %d)' % (time.monotonic() - start, rc),
          flush=True)
    if a.no_parse:
        return rc

    cmd = kunit + ['parse', a.log]
    if a.json:
        cmd.append('--json=' + a.json)
    parsed = subprocess.run(cmd, cwd=a.kdir).returncode
    return 1 if parsed != 0 or rc == 124 else 0


if __name__ == '__main__':
    sys.exit(main())
