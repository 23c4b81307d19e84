#!/usr/bin/env bash
# Fetches the pinned npm tarballs, checks them against the registry's published integrity, and copies
# the files the workbench serves (and the accessibility test injects) into this folder.
#   bash shared/retrieval_dev/workbench/static/vendor/vendor.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"

fetch() {  # package@version -> unpacked into ./<name>/package
  local spec="$1" name="$2"
  local file
  file="$(npm pack --silent "$spec")"
  local expected actual
  expected="$(npm view "$spec" dist.integrity)"
  actual="sha512-$(openssl dgst -sha512 -binary "$file" | base64 -w0)"
  [ "$expected" = "$actual" ] || { echo "integrity mismatch for $spec" >&2; exit 1; }
  mkdir -p "$name" && tar xzf "$file" -C "$name"
}

fetch cytoscape@3.34.4 cytoscape
fetch cytoscape-dagre@4.0.1 cytoscape-dagre
fetch @dagrejs/dagre@3.1.3 dagre
fetch axe-core@4.14.1 axe-core

cp cytoscape/package/dist/cytoscape.min.js "$here/"
cp cytoscape/package/LICENSE "$here/LICENSE.cytoscape"
cp cytoscape-dagre/package/dist/cytoscape-dagre.min.js "$here/"
cp cytoscape-dagre/package/LICENSE "$here/LICENSE.cytoscape-dagre"
cp dagre/package/LICENSE "$here/LICENSE.dagre"
cp axe-core/package/axe.min.js "$here/"
cp axe-core/package/LICENSE "$here/LICENSE.axe-core"
cp axe-core/package/LICENSE-3RD-PARTY.txt "$here/LICENSE-3RD-PARTY.axe-core.txt"
echo "vendored into $here"
