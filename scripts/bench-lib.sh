# bench-lib.sh, sourced by the device bench scripts (sgsi-bench.sh, ooc-bench.sh, stmatch-peer.sh): building their
# binaries here, unpacking them on the device host (no Go there), and reading the engines' logs.

# build_bins DIR NAME=PKG...: builds each PKG into DIR/NAME (a NAME ending in .test is the
# package's test binary), CGO_ENABLED=0 and stripped, then gzips them (DIR/NAME.gz).
build_bins() {
	local dir="$1" spec name pkg
	shift
	mkdir -p "$dir"
	for spec in "$@"; do
		name="${spec%%=*}" pkg="${spec#*=}"
		if [[ "$name" == *.test ]]; then
			CGO_ENABLED=0 go test -c -trimpath -ldflags='-s -w' -o "$dir/$name" "$pkg" || return
		else
			CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o "$dir/$name" "$pkg" || return
		fi
		gzip -f -9 "$dir/$name" || return
	done
}

# unpack_bins DIR NAME...: unzips DIR/NAME.gz to DIR/NAME where that is not there yet, and
# prints the device and the time.
unpack_bins() {
	local dir="$1" f
	shift
	for f in "$@"; do
		[ -x "$dir/$f" ] || { gunzip -c "$dir/$f.gz" > "$dir/$f" && chmod +x "$dir/$f"; }
	done
	nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | sed 's/^/# device: /'
	echo "# $(date -u '+%F %T') UTC, $(nproc) cores"
}

# field prints key's value in a slog text line.
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2" | tr -d '"'; }

# dispatch "$@": the bench scripts' command line, `build DIR` (here) or `run DIR` (on the device
# host), calling the script's own build or run; anything else is a usage error (exit 2).
dispatch() {
	case "${1:-}" in
	build) build "${2:?usage: $0 build DIR}" ;;
	run) run "${2:?usage: $0 run DIR}" ;;
	*)
		echo "usage: $0 build DIR | run DIR" >&2
		exit 2
		;;
	esac
}

# dur_ms D: a Go duration as slog writes it (1.5ms, 355.2µs, 1m2.5s, -3µs) in ms, three decimals
# ("" for an empty one).
dur_ms() {
	[ -n "$1" ] || { echo; return; }
	sed -E 's/([0-9.])(h|m|s|ms|µs|us|ns)/\1 \2 /g' <<<"$1" |
		awk 'BEGIN { f["h"] = 3.6e6; f["m"] = 6e4; f["s"] = 1e3; f["ms"] = 1; f["µs"] = f["us"] = 1e-3; f["ns"] = 1e-6 }
			{ t = 0; for (i = 1; i < NF; i += 2) t += $i * f[$(i + 1)]; printf "%.3f\n", t }'
}
