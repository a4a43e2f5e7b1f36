#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Fill the placeholders of a `git format-patch --cover-letter` cover letter.

usage: cover-letter.py COVER_LETTER TEXT

TEXT: the first line is the subject, the rest (after one blank line) the
body.  The shortlog and diffstat git wrote stay below the body.
"""
import sys


def main():
    cover_path, text_path = sys.argv[1], sys.argv[2]
    with open(text_path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    subject = lines[0].strip()
    body = "\n".join(lines[1:]).strip("\n")
    with open(cover_path, encoding="utf-8") as f:
        cover = f.read()
    for marker in ("*** SUBJECT HERE ***", "*** BLURB HERE ***"):
        if marker not in cover:
            sys.exit(f"{cover_path}: no '{marker}'")
    cover = cover.replace("*** SUBJECT HERE ***", subject, 1)
    cover = cover.replace("*** BLURB HERE ***", body, 1)
    with open(cover_path, "w", encoding="utf-8") as f:
        f.write(cover)


if __name__ == "__main__":
    main()
