#!/usr/bin/env bash
# Regenerate screenshots/*.png from the snapshot SVGs the test suite checks, so the
# pictures always show exactly the screens under test. Needs rsvg-convert (Debian:
# apt-get install librsvg2-bin). Run after `pytest --snapshot-update`.
set -euo pipefail
cd "$(dirname "$0")/.."
rm -f screenshots/*.png
shopt -s nullglob  # the directory test's snapshots sit one level higher (tests/dirtest/__snapshots__)
for svg in tests/*/*/__snapshots__/*/*.svg tests/*/__snapshots__/*/*.svg; do
  case "$svg" in
    tests/tui/inbox/__snapshots__/test_snapshots/*) area=dmarc ;;
    tests/tui/directories/__snapshots__/test_snapshots/*) area=directories ;;
    tests/dirtest/__snapshots__/test_console/*) area=directories-test ;;
    *) area=other ;;
  esac
  name=$(basename "$svg" .svg | sed -e 's/^test_//' -e 's/\[tab-/-/' -e 's/\[/-/' -e 's/\]//')
  # xml:space="preserve": without it rsvg-convert drops a line's leading spaces and closes up runs of
  # them (indented JSON drawn flush left; "example.com  2026-01-31" drawn as "example.com2026-01-31").
  sed 's/<svg /<svg xml:space="preserve" /' "$svg" | rsvg-convert -o "screenshots/${area}-${name//_/-}.png"
done
ls screenshots/*.png | wc -l
