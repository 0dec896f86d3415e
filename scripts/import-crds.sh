#!/usr/bin/env bash
# Regenerates the TypeScript constructs in src/imports/ from the CRD manifests in crds/.
#
# `cdk8s import` writes one file per API group, and each run of it replaces that file with only
# the kinds of its own input. Importing crds/*.yaml one by one would therefore leave just the last
# kind of every group. So all manifests are joined into one multi-document input and imported in
# a single run, which yields src/imports/<group>.ts holding every kind of the group.
#
# Usage: scripts/import-crds.sh   (from anywhere; needs `npm ci` first)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

shopt -s nullglob
crds=(crds/*.yaml)
if ((${#crds[@]} == 0)); then
  echo "import-crds: no CRD manifests in crds/" >&2
  exit 1
fi
for crd in "${crds[@]}"; do
  printf -- '---\n' >>"$work/crds.yaml"
  cat "$crd" >>"$work/crds.yaml"
done

# --no-save keeps cdk8s.yaml as it is: its `imports` list cannot express "one run over all files".
npx --no-install cdk8s import --no-check-upgrade --no-save --language typescript \
  --output "$work/out" "$work/crds.yaml" >&2

# Generated group files are named <group>.ts, so they always contain a dot before .ts; drop the
# ones whose group no longer has a CRD, then put the fresh ones in place.
mkdir -p src/imports
for old in src/imports/*.*.ts; do
  [[ -e "$work/out/$(basename "$old")" ]] || rm -f "$old"
done
cp "$work/out/"*.ts src/imports/
ls src/imports/*.*.ts
