#!/usr/bin/env bash
# The README's first command on a fresh clone, timed: `go run ./cmd/submatch demo` with an empty
# build cache (the module cache kept), for a base commit and for HEAD, alternating, twice each;
# and the size of the binary each builds. Usage: scripts/first-run.sh [BASE] (default: HEAD~1).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
base=${1:-HEAD~1}
work=$(mktemp -d)
trap 'git -C "$repo" worktree remove --force "$work/before" 2>/dev/null; git -C "$repo" worktree remove --force "$work/after" 2>/dev/null; rm -rf "$work"' EXIT
git -C "$repo" worktree add -f "$work/before" "$base" >/dev/null 2>&1
git -C "$repo" worktree add -f "$work/after" HEAD >/dev/null 2>&1
for v in before after before after; do
	cd "$work/$v"
	rm -rf "$work/cache"
	export GOCACHE="$work/cache"
	s=$(date +%s.%N)
	go run ./cmd/submatch demo >/dev/null
	e=$(date +%s.%N)
	go build -o "$work/bin-$v" ./cmd/submatch
	echo "$v: first go run demo $(echo "$e - $s" | bc) s; binary $(stat -c %s "$work/bin-$v") bytes; load $(cut -d' ' -f1 /proc/loadavg)"
done
