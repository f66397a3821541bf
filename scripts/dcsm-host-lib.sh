# Sourced by scripts/dcsm-host-bench.sh and scripts/dcsm-host-callgrind.sh: the csm/dcsm test
# binary of a baseline revision and of this tree, for host-side comparisons.
#
# dcsm_host_tests BASE: sets root (the repository) and tmp (a temporary directory, removed at
# exit with BASE's worktree), and builds $tmp/base.test (BASE, with this tree's
# host_bench_test.go and csmtest fixture, so that both run the same benchmarks) and
# $tmp/new.test (this tree).
dcsm_host_tests() {
	local base="$1"
	root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
	tmp="$(mktemp -d)"
	trap 'git -C "$root" worktree remove --force "$tmp/base" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
	git -C "$root" worktree add --detach "$tmp/base" "$base" >/dev/null 2>&1
	cp "$root/csm/dcsm/host_bench_test.go" "$tmp/base/csm/dcsm/"
	mkdir -p "$tmp/base/csm/internal/csmtest"
	cp "$root/csm/internal/csmtest/csmtest.go" "$tmp/base/csm/internal/csmtest/"
	(cd "$tmp/base" && go test -c -o "$tmp/base.test" ./csm/dcsm)
	(cd "$root" && go test -c -o "$tmp/new.test" ./csm/dcsm)
}
