#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The submitter's identity and trailers on the copies of a series that are mailed.

usage:
  sign-off.py --unsigned PATCH|DIR...
      Fails, naming each file, if a patch message carries a Signed-off-by: the checked-in
      copies must carry none (docs/series.md, "Who signs off").
  sign-off.py --out DIR --submitter 'Name <address>' --assisted-by 'AGENT:MODEL [TOOL...]'|none
              [--co-developed-by 'Name <address>']... PATCH|DIR...
      Writes each `git format-patch` file into DIR (never over its input) with the submitter
      as its author (the From: header) and, in every patch but the cover letter, these
      trailers after the message's own: Assisted-by (unless `none`), a Co-developed-by and
      Signed-off-by pair per co-developer, and the submitter's Signed-off-by last.

  sign-off.py --mail MAILDIR PATCH|DIR...
      What every export runs: the same, with SUBMITTER, ASSISTED_BY and CO_DEVELOPED_BY
      ('Name <address>; ...') from the environment, each argument's copies into
      MAILDIR/<its directory's name> (its old *.patch files removed first); without
      SUBMITTER it only says that the copies cannot be mailed, and succeeds.

A DIR argument stands for its *.patch files.  The submitter and each co-developer must be
a name and a mailable address: an address in a domain reserved for examples or tests
(.example, .invalid, .test, .localhost, example.com/net/org) or a no-reply address is
refused, for nobody can answer it.  Errors name the file; the exit status is 1.
"""
import argparse
import email.utils
import glob
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "harness",
                                "python"))
import vramlab_safe_write as safe  # noqa: E402  (harness/python: outputs written whole)

PROG = "sign-off.py"
RESERVED = re.compile(r"(^|\.)(example|invalid|test|localhost)$|(^|\.)example\.(com|net|org)$")
# A trailer line ("Key: value"); a line that starts with white space continues the one before
TRAILER = re.compile(r"^[A-Za-z0-9][A-Za-z0-9-]*: \S")
ASSISTED = re.compile(r"^[^\s:]+:[^\s:]+( \S+)*$")


def die(msg):
    sys.exit(f"{PROG}: {msg}")


def identity(what, text):
    """'Name <address>' checked, as (name, address)."""
    name, addr = email.utils.parseaddr(text)
    if not name or "@" not in addr or not re.fullmatch(r"\s*[^<>]*<[^<>\s]+>\s*", text):
        die(f"{what} {text!r}: want 'Name <address>'")
    domain = addr.rsplit("@", 1)[1].lower()
    if "." not in domain or RESERVED.search(domain):
        die(f"{what} {text!r}: {domain} is reserved for examples and tests, not a mailable address")
    if "noreply" in addr.lower().replace("-", ""):
        die(f"{what} {text!r}: a no-reply address cannot be answered")
    return name.strip(), addr


def patch_files(args):
    files = []
    for a in args:
        if os.path.isdir(a):
            found = sorted(glob.glob(os.path.join(a, "*.patch")))
            if not found:
                die(f"{a}: no *.patch files")
            files += found
        elif os.path.isfile(a):
            files.append(a)
        else:
            die(f"{a}: no such file or directory")
    return files


def read(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except (OSError, UnicodeDecodeError) as e:
        die(f"{path}: {e}")


def is_cover(path, headers):
    return path.endswith("0000-cover-letter.patch") or \
        any(re.match(r"Subject: \[[^\]]* 0+/\d+\]", h) for h in headers)


def split(path, text):
    """(header lines, message lines, the rest from the '---' line on), as format-patch
    writes a patch; a cover letter's message is all of its body and its rest None: it takes
    no trailers."""
    lines = text.split("\n")
    try:
        blank = lines.index("")
    except ValueError:
        die(f"{path}: no blank line after the mail headers")
    headers, body = lines[:blank], lines[blank + 1:]
    if not any(h.startswith("From: ") for h in headers) or not headers[0].startswith("From "):
        die(f"{path}: not a `git format-patch` file (no From line and From: header)")
    if is_cover(path, headers):
        return headers, body, None
    if "---" not in body:
        die(f"{path}: no '---' line after the message")
    end = body.index("---")
    return headers, body[:end], body[end:]


def sign_offs(message):
    return [line for line in message if re.match(r"(?i)signed-off-by:", line)]


def unsigned(files):
    bad = 0
    for path in files:
        _, message, rest = split(path, read(path))
        for line in sign_offs(message if rest is not None else []):
            print(f"{path}: carries '{line}'; the checked-in copies carry no Signed-off-by "
                  "(the export adds the submitter's)", file=sys.stderr)
            bad += 1
    if bad:
        sys.exit(1)
    print(f"{PROG}: {len(files)} patch files, none signed off")


def with_author(headers, name, addr):
    """The headers with From: replaced (a folded header's continuation lines go with it)."""
    out, skip = [], False
    for h in headers:
        if skip and h[:1] in (" ", "\t"):
            continue
        skip = h.startswith("From: ")
        if skip:
            h = "From: " + email.utils.formataddr((name, addr), charset="utf-8")
        out.append(h)
    return out


def add_trailers(path, message, trailers):
    """The message with trailers appended to its last paragraph when that is a trailer
    block (Fixes:, Cc:, ...), else as a paragraph of their own."""
    while message and message[-1] == "":
        message = message[:-1]
    if not message:
        die(f"{path}: empty message")
    start = len(message)
    while start > 0 and message[start - 1] != "":
        start -= 1
    last = message[start:]
    block = start > 0 and all(TRAILER.match(x) or x[:1] in (" ", "\t") for x in last) \
        and TRAILER.match(last[0])
    have = set(last) if block else set()
    new = [t for t in trailers if t not in have]
    return message + ([] if block else [""]) + new


def sign(files, out, submitter, assisted, co_developers):
    name, addr = identity("--submitter", submitter)
    me = f"{name} <{addr}>"
    trailers = []
    if assisted != "none":
        if not ASSISTED.match(assisted):
            die(f"--assisted-by {assisted!r}: want 'AGENT_NAME:MODEL_VERSION [TOOL1] [TOOL2]' "
                "(Documentation/process/coding-assistants.rst), or none")
        trailers.append(f"Assisted-by: {assisted}")
    for c in co_developers:
        cn, ca = identity("--co-developed-by", c)
        if ca.lower() == addr.lower():
            die(f"--co-developed-by {c!r} is the submitter")
        trailers += [f"Co-developed-by: {cn} <{ca}>", f"Signed-off-by: {cn} <{ca}>"]
    trailers.append(f"Signed-off-by: {me}")
    out = os.path.abspath(out)
    for path in files:
        if os.path.dirname(os.path.abspath(path)) == out:
            die(f"{path}: the signed copy would replace it; --out must be another directory")
    os.makedirs(out, exist_ok=True)
    patches = 0
    for path in files:
        headers, message, rest = split(path, read(path))
        if rest is not None:
            signed = sign_offs(message)
            if signed:
                die(f"{path}: already carries '{signed[0]}': sign only unsigned copies")
            message = add_trailers(path, message, trailers)
            patches += 1
        headers = with_author(headers, name, addr)
        text = "\n".join(message + (rest or []))
        if not text.isascii() and not any(h.lower().startswith("content-type:") for h in headers):
            headers += ["MIME-Version: 1.0", "Content-Type: text/plain; charset=UTF-8",
                        "Content-Transfer-Encoding: 8bit"]
        safe.write_text(os.path.join(out, os.path.basename(path)),
                        "\n".join(headers) + "\n\n" + text)
    print(f"{PROG}: {len(files)} file{'s' if len(files) != 1 else ''} ({patches} patch{'es' if patches != 1 else ''} and "
          f"{len(files) - patches} cover letter{'s' if len(files) - patches != 1 else ''}) "
          f"signed off by {me} in {out}")


def mail(maildir, args):
    """The exports' signing step: the submitter's identity and trailers from the environment."""
    submitter = os.environ.get("SUBMITTER", "").strip()
    if not submitter:
        print(f"{PROG}: no SUBMITTER, so no Signed-off-by: these copies cannot be mailed as "
              "they are.\n  To mail: make export SUBMITTER='Your Name <you@your.org>' "
              "ASSISTED_BY='AGENT:MODEL'")
        return
    assisted = os.environ.get("ASSISTED_BY", "").strip()
    if not assisted:
        die("SUBMITTER needs ASSISTED_BY='AGENT_NAME:MODEL_VERSION [TOOL...]' "
            "(submitting-patches.rst, 'Using Assisted-by:'), or ASSISTED_BY=none if no coding "
            "tool helped")
    co = [c.strip() for c in os.environ.get("CO_DEVELOPED_BY", "").split(";") if c.strip()]
    for arg in args:
        src = os.path.abspath(arg)
        name = os.path.basename(src if os.path.isdir(src) else os.path.dirname(src))
        out = os.path.join(maildir, name)
        for old in glob.glob(os.path.join(out, "*.patch")):
            os.unlink(old)  # a patch the series no longer has must not be mailed
        sign(patch_files([arg]), out, submitter, assisted, co)


def main():
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n")[0])
    ap.add_argument("--unsigned", action="store_true")
    ap.add_argument("--mail", metavar="MAILDIR")
    ap.add_argument("--out")
    ap.add_argument("--submitter")
    ap.add_argument("--assisted-by")
    ap.add_argument("--co-developed-by", action="append", default=[])
    ap.add_argument("patches", nargs="+")
    a = ap.parse_args()
    files = patch_files(a.patches)
    if a.unsigned:
        if a.out or a.submitter or a.assisted_by or a.co_developed_by:
            die("--unsigned takes only patches")
        unsigned(files)
        return
    if a.mail:
        if a.out or a.submitter or a.assisted_by or a.co_developed_by:
            die("--mail takes its identities from SUBMITTER, ASSISTED_BY, CO_DEVELOPED_BY")
        mail(a.mail, a.patches)
        return
    if not a.out or not a.submitter:
        die("--out and --submitter are needed (or --unsigned)")
    if not a.assisted_by:
        die("--assisted-by is needed: 'AGENT_NAME:MODEL_VERSION [TOOL...]' for the coding tool "
            "that helped write these patches (submitting-patches.rst, 'Using Assisted-by:'), "
            "or none")
    sign(files, a.out, a.submitter, a.assisted_by, a.co_developed_by)


if __name__ == "__main__":
    main()
