# Sourced by scripts/gcsm-check.sh and scripts/dcsm-check.sh (their build mode, on a machine with
# Go): what both put into the device folder $dir.
#
# csm_build NAME: $dir/NAME.test (package ./csm/NAME, CGO_ENABLED=0), $dir/submatch, a fresh copy
# of csm-email10 in $dir/testdata and this script's caller copied to $dir/NAME-check.sh (the
# device machine gets the main checkout's tree, not this one); sets root (the repository).
csm_build() {
	local name=$1
	root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
	local shared="${SUBMATCH_SHARED_TESTDATA:-/work/shared/testdata}"
	mkdir -p "$dir/testdata"
	(cd "$root" && go vet "./csm/$name")
	(cd "$root" && CGO_ENABLED=0 go test -c -trimpath -o "$dir/$name.test" "./csm/$name")
	(cd "$root" && CGO_ENABLED=0 go build -trimpath -o "$dir/submatch" ./cmd/submatch)
	rm -rf "$dir/testdata/csm-email10"
	cp -r "$shared/csm-email10" "$dir/testdata/"
	chmod -R u+w "$dir/testdata"
	cp "$root/scripts/$name-check.sh" "$dir/$name-check.sh"
}
