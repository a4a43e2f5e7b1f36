#!/bin/sh
# SPDX-License-Identifier: MIT
# Fill git format-patch's cover letter placeholders from a text file whose
# first line is the subject and the rest the body.
# usage: cover-letter.sh 0000-cover-letter.patch cover-letter.txt
set -eu
patch=$1
text=$2
subject=$(head -n 1 "$text")
tmp=$(mktemp)
awk -v subject="$subject" -v body="$text" '
	/\*\*\* SUBJECT HERE \*\*\*/ { sub(/\*\*\* SUBJECT HERE \*\*\*/, subject); print; next }
	/\*\*\* BLURB HERE \*\*\*/ {
		n = 0
		while ((getline line < body) > 0) { if (n++ > 0) print line }
		next
	}
	{ print }
' "$patch" > "$tmp"
mv "$tmp" "$patch"
