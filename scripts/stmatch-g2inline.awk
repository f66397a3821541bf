# stmatch-g2inline.awk: one of STMatch's pattern files (lines "v ID LABEL" and "e U V LABEL", both
# directions) in submatch's inline syntax, edges sorted; vertex i is the i-th letter. LABELLED=1 puts
# each vertex's label on its first mention. Used by scripts/stmatch-peer.sh build.
BEGIN { letters = "abcdefghijklmnopqrstuvwxyz" }
$1 == "v" { lab[$2] = $3 }
$1 == "e" { u = $2 + 0; v = $3 + 0; if (u > v) { t = u; u = v; v = t }; if (u != v) e[u " " v] = 1 }
END {
	n = 0
	for (k in e) keys[++n] = k
	# sort by (u, v), numerically
	for (i = 2; i <= n; i++) { x = keys[i]; j = i - 1
		while (j >= 1 && less(x, keys[j])) { keys[j + 1] = keys[j]; j-- }
		keys[j + 1] = x }
	out = ""
	for (i = 1; i <= n; i++) {
		split(keys[i], p, " ")
		out = out (i > 1 ? ", " : "") name(p[1]) "-" name(p[2])
	}
	print out
}
function less(a, b,   pa, pb) { split(a, pa, " "); split(b, pb, " ")
	return pa[1] + 0 < pb[1] + 0 || (pa[1] + 0 == pb[1] + 0 && pa[2] + 0 < pb[2] + 0) }
function name(v,   s) { s = "(" substr(letters, v + 1, 1)
	if (LABELLED && !(v in seen)) { s = s ":" lab[v]; seen[v] = 1 }
	return s ")" }
