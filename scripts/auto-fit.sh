#!/usr/bin/env bash
# --engine auto's prediction of the CPU engine's time against the CPU engine's measured time, on
# STMatch's 24 unlabelled patterns on wiki-Vote (issue 17, branch autoc), for this tree and for
# main in one run (the CPU engine's search is the same in both: only the prediction differs).
#
#   scripts/auto-fit.sh build DIR   writes into DIR (git-ignored, e.g. .dev-autofit) this tree's
#                                   submatch and scripts/autofit, and main's autofit (the HEAD of
#                                   MAIN_REPO, default /work/main, exported with git archive into
#                                   a temporary folder, built with -tags noterms).
#   scripts/auto-fit.sh run DIR     for each pattern and each T of THREADS (default "1 2"):
#                                   `count --engine cpu --threads T --json` (its elapsed_ms: the
#                                   count call, without the load), the median of 3 runs when the
#                                   first takes under a second, else that run, cut at CUT seconds
#                                   (default 20); then both builds' autofit (the CPU engine's
#                                   prediction as auto makes it, a GPU taken as present) at T and
#                                   at 16 threads. Prints one table of measured times, predictions
#                                   and their ratios (also DIR/table.txt), then the 16-thread
#                                   choices of both against the device's measured best (the
#                                   whole-process times of docs/benchmarks.md, issue 17).
# SUBMATCH_SHARED_TESTDATA (default ../shared/testdata) holds wiki-Vote and the patterns.
set -u -o pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
shared="${SUBMATCH_SHARED_TESTDATA:-$root/../shared/testdata}"
data="$shared/wikivote-graphpi/wiki-vote_input"
patterns="$shared/stmatch-patterns/wikivote-unlabelled.tsv"

# The device's whole-process times (ms) of the CPU engine on 16 threads and of stmatch (H200,
# warm kernel cache), docs/benchmarks.md (issue 17: "After cpu20, sym and lab2", "STMatch itself,
# side by side", "The session's first device call"); "cut" = over 5 s, q18's CPU over a minute.
device_times() {
	cat <<'EOF2'
q1	114	806
q2	814	593
q3	134	380
q4	90	448
q5	79	397
q6	81	381
q7	46	351
q8	31	-
q9	166	418
q10	cut	901
q11	1023	773
q12	412	428
q13	3872	941
q14	144	549
q15	89	346
q16	38	-
q17	1629	963
q18	cut	9560
q19	cut	4031
q20	cut	1842
q21	376	947
q22	cut	882
q23	157	390
q24	45	377
EOF2
}

build() {
	set -e
	local dir="$1"
	mkdir -p "$dir"
	if ! git check-ignore -q "$dir"; then
		echo "build: $dir is not git-ignored (use .dev-autofit)" >&2
		return 2
	fi
	local tmp
	tmp="$(mktemp -d "${TMPDIR:-/tmp}/auto-fit.XXXXXX")"
	go build -o "$dir/submatch" ./cmd/submatch
	go build -o "$dir/autofit" ./scripts/autofit
	git -C "${MAIN_REPO:-/work/main}" archive HEAD | tar -x -C "$tmp"
	cp -r scripts/autofit "$tmp/scripts/"
	(cd "$tmp" && go build -tags noterms -o "$root/$dir/autofit-main" ./scripts/autofit)
	rm -rf "$tmp"
}

# measure DIR T: pattern, measured ms (or "cut") of the CPU engine on T threads.
measure() {
	local dir="$1" t="$2" cut="${CUT:-20}"
	grep '^q' "$patterns" | while IFS=$'\t' read -r name pat _; do
		local ms=() e p i
		for i in 1 2 3; do
			j="$("$dir/submatch" count --engine cpu --json --threads "$t" --timeout "${cut}s" "$data" "$pat" 2>/dev/null)"
			e="$(sed -n 's/.*"elapsed_ms":\([0-9.]*\).*/\1/p' <<<"$j")"
			p="$(grep -o '"partial":[a-z]*' <<<"$j" | cut -d: -f2)"
			ms+=("$e")
			if [ "$p" = true ]; then
				printf '%s\tcut\n' "$name"
				break
			fi
			if [ "$i" = 1 ] && awk "BEGIN{exit !($e>1000)}"; then
				printf '%s\t%s\n' "$name" "$e"
				break
			fi
			if [ "$i" = 3 ]; then
				printf '%s\t%s\n' "$name" "$(printf '%s\n' "${ms[@]}" | sort -g | sed -n 2p)"
			fi
		done
	done
}

run() {
	local dir="$1"
	local threads="${THREADS:-1 2}"
	local tlist
	tlist="$(tr ' ' ',' <<<"$threads"),16"
	"$dir/autofit" -data "$data" -patterns "$patterns" -threads "$tlist" >"$dir/pred-new.tsv" || return 1
	"$dir/autofit-main" -data "$data" -patterns "$patterns" -threads "$tlist" >"$dir/pred-main.tsv" || return 1
	device_times >"$dir/device.tsv"
	for t in $threads; do
		measure "$dir" "$t" >"$dir/measured-$t.tsv"
	done
	{
		printf 'q\tT\tmeasured ms\tmain predicted ms\tmain/measured\tnew predicted ms\tnew/measured\tnew note\n'
		for t in $threads; do
			awk -F'\t' -v T="$t" '
				FILENAME ~ /measured/ { m[$1] = $2; next }
				FILENAME ~ /pred-main/ { if ($2 == T) pm[$1] = $8 * 1000; next }
				FILENAME ~ /pred-new/ { if ($2 == T) { pn[$1] = $8 * 1000; note[$1] = $11; order[++n] = $1 } }
				END {
					for (i = 1; i <= n; i++) {
						q = order[i]
						rm = (m[q] == "cut") ? "-" : sprintf("%.2f", pm[q] / m[q])
						rn = (m[q] == "cut") ? "-" : sprintf("%.2f", pn[q] / m[q])
						printf "%s\t%s\t%s\t%.0f\t%s\t%.0f\t%s\t%s\n", q, T, m[q], pm[q], rm, pn[q], rn, note[q]
					}
				}' "$dir/measured-$t.tsv" "$dir/pred-main.tsv" "$dir/pred-new.tsv"
		done
		printf '\nq\tdevice cpu16 ms\tdevice stmatch ms\tbest\tmain chose\tnew chose\tmain cpu16/stmatch predicted ms\tnew cpu16/stmatch predicted ms\n'
		awk -F'\t' '
			FILENAME ~ /device/ { c[$1] = $2; s[$1] = $3; order[++n] = $1; next }
			FILENAME ~ /pred-main/ { if ($2 == 16) { mc[$1] = $7; mp[$1] = sprintf("%.0f/%.0f", $8 * 1000, $9 * 1000) }; next }
			FILENAME ~ /pred-new/ { if ($2 == 16) { nc[$1] = $7; np[$1] = sprintf("%.0f/%.0f", $8 * 1000, $9 * 1000) } }
			END {
				for (i = 1; i <= n; i++) {
					q = order[i]
					best = (s[q] == "-" || (c[q] != "cut" && c[q] + 0 <= s[q] + 0)) ? "cpu" : "stmatch"
					printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", q, c[q], s[q], best, mc[q], nc[q], mp[q], np[q]
				}
			}' "$dir/device.tsv" "$dir/pred-main.tsv" "$dir/pred-new.tsv"
	} | tee "$dir/table.txt"
}

case "${1:-}" in
build) build "${2:?DIR}" ;;
run) run "${2:?DIR}" ;;
*)
	echo "usage: $0 build DIR | run DIR" >&2
	exit 2
	;;
esac
