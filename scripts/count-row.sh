# count-row.sh, sourced by the R-MAT scripts: count_row runs one `submatch count --json` and
# prints one table row.
#
#   count_row RESULTS GRAPH_COL QUERY_COL ENGINE_COL -- ARGS...
#
# runs "$sm count --json ARGS..." (sm: the submatch binary) under `timeout -k 5 $HARD_LIMIT`
# (default 300 s) and appends to RESULTS, and prints, the columns: graph, query, engine, count,
# whole-process seconds, count call ms, plan ms, GPU kernel ms, note (a partial count, or the
# error when there is no count). Absent fields are "-".
count_row() {
	local res=$1 gcol=$2 qcol=$3 ecol=$4 t0 dt out cnt note
	shift 5
	t0=$(date +%s.%N)
	out=$(timeout -k 5 "${HARD_LIMIT:-300}" "$sm" count --json "$@" 2>&1 | tail -1)
	dt=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.2f", b-a}')
	field() { grep -q "\"$1\":" <<<"$out" && sed -E "s/.*\"$1\":([0-9.]+).*/\1/" <<<"$out" || echo -; }
	cnt=$(field count)
	note=$(grep -o '"partial":true' <<<"$out" | head -1)
	[ "$cnt" != - ] || note=$out
	[ -n "$out" ] || note="no output: killed at HARD_LIMIT ${HARD_LIMIT:-300}s"
	printf '%-10s %-16s %-10s %18s %9.2f %10s %9s %10s %s\n' "$gcol" "$qcol" "$ecol" "$cnt" "$dt" \
		"$(field elapsed_ms)" "$(field plan_ms)" "$(field kernel_ms)" "$note" | tee -a "$res"
}

# warm_kernels compiles the engines' kernels into the kernel cache before the first timed count
# (the stmatch kernel's cold NVRTC compile takes about 12 s on the H100 host; a count paying it
# would time out or be misread). Prints the compile times.
warm_kernels() {
	"$sm" gpu-info --compile 2>&1 | sed -n '/^kernels:/,$p'
}

# count_header RESULTS writes the column names to RESULTS (replacing it).
count_header() {
	printf '%-10s %-16s %-10s %18s %9s %10s %9s %10s %s\n' graph query engine count seconds call_ms plan_ms kernel_ms note > "$1"
}
