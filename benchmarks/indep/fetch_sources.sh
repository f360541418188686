#!/bin/sh
# Download the Debian 12 (bookworm) packages of packages.txt at their pinned versions and unpack them
# into the source tree build.py reads. Needs apt-get with bookworm sources and dpkg-deb; no root.
#
#   sh benchmarks/indep/fetch_sources.sh [SRC_DIR]
#
# SRC_DIR: $INDEP_SRC, else benchmarks/indep/.src. The .deb files are kept in $INDEP_DEBS
# (default benchmarks/indep/.debs), so a second run downloads nothing.
# A pinned version that the archive no longer has is replaced by the current one, with a warning:
# the corpus may then differ from the statistics in README.md.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
SRC=$(realpath -m "${1:-${INDEP_SRC:-$here/.src}}")
DEBS=$(realpath -m "${INDEP_DEBS:-$here/.debs}")
mkdir -p "$DEBS" "$SRC"

# name=version lines, comments and licences stripped
pins=$(sed -e 's/#.*//' "$here/packages.txt" | awk 'NF { print $1 }')

# The .deb apt-get download saves for name=version (an epoch's ':' is written '%3a').
deb_of() {
  name=${1%%=*}
  version=$(printf '%s' "${1#*=}" | sed 's/:/%3a/')
  ls "$DEBS/${name}_${version}_"*.deb 2>/dev/null | head -n 1
}

# The newest .deb of a package, whatever its version (after a fallback download).
newest_deb() {
  ls -t "$DEBS/${1}_"*.deb 2>/dev/null | head -n 1
}

missing=""
for pin in $pins; do
  name=${pin%%=*}
  [ -n "$(deb_of "$pin")" ] && continue
  if ! (cd "$DEBS" && apt-get download "$pin" >/dev/null 2>&1); then
    echo "warning: $pin is no longer in the archive; using the current $name (the corpus may differ)" >&2
    (cd "$DEBS" && apt-get download "$name" >/dev/null 2>&1) || missing="$missing $name"
  fi
done
if [ -n "$missing" ]; then
  echo "error: could not download:$missing" >&2
  exit 1
fi

for pin in $pins; do
  name=${pin%%=*}
  deb=$(deb_of "$pin")
  [ -n "$deb" ] || deb=$(newest_deb "$name")
  case "$name" in
    stellarium-data)
      # Only the Chinese sky culture descriptions: the whole package unpacks to about 1 GB.
      tmp=$(mktemp -d)
      dpkg-deb -x "$deb" "$tmp"
      (cd "$tmp" && find usr/share/stellarium -name 'description.zh_CN.utf8' -exec cp --parents {} "$SRC/" \;)
      rm -rf "$tmp"
      ;;
    *) dpkg-deb -x "$deb" "$SRC" ;;
  esac
done
echo "unpacked $(echo "$pins" | wc -l) packages into $SRC"
