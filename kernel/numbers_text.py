# SPDX-License-Identifier: MIT
"""What cover-letter.py and lru-614.py share: the measured numbers read from JSON, and a text
file's block rewritten from them or, with --check, compared with what they give."""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "harness", "python"))
import vramlab_safe_write as safe  # noqa: E402  (harness/python: outputs written whole)


def die(prog, msg):
    sys.exit(f"{prog}: {msg}")


def load_json(prog, path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        die(prog, f"{path}: {e}")


def read_text(prog, path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError as e:
        die(prog, f"{path}: {e.strerror}")


def write_or_check(prog, path, old, new, check, up_to_date, stale):
    """With check: exit 1 saying `stale` when new != old, else print `up_to_date`; without,
    write new to path (when it differs)."""
    if check:
        if new != old:
            die(prog, stale)
        print(up_to_date)
    elif new != old:
        try:
            safe.write_text(path, new)
        except OSError as e:
            die(prog, str(e))
