#!/usr/bin/env bash
# Lays out the run-time files of partner-sim in <dest>, as the Docker image holds them: the
# packed package (package.json `files`: dist, the two documents, fixtures; no sources, tests
# or benchmarks) and its production dependencies at the lockfile's exact versions: no vitest
# (an optional peer dependency, only `contract` needs it) and no swagger-ui-dist (the build
# copied what /docs serves into dist/swagger-ui). Run by the
# Dockerfile's build stage and by .ci/image-smoke, so the image and its smoke test outside
# Docker hold the same files. Expects a built checkout (npm run build) in <src>.
set -euo pipefail
src="$(cd "$1" && pwd)"
dest="$2"
pack="$(mktemp -d)"
trap 'rm -rf "$pack"' EXIT
# --ignore-scripts: `prepack` would build again; the caller has built.
tarball="$(cd "$src" && npm pack --ignore-scripts --silent --pack-destination "$pack" | tail -n 1)"
mkdir -p "$dest"
tar -xzf "$pack/$tarball" -C "$dest" --strip-components=1
cp "$src/package-lock.json" "$dest/"
(cd "$dest" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error)
