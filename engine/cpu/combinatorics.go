package cpu

import "github.com/submatch/submatch/internal/checked"

// The search's counts use the project's checked arithmetic (package checked); these adapt it to
// the signed sizes the leaf counter computes with (a negative size has no injective maps).

func mulChecked(a, b uint64) (uint64, bool) { return checked.Mul(a, b) }

func addChecked(a, b uint64) (uint64, bool) { return checked.Add(a, b) }

// falling returns n (n-1) ... (n-k+1), the number of injective maps of k labelled items into n.
func falling(n int64, k int) (uint64, bool) {
	if n < 0 {
		return 0, true
	}
	return checked.Falling(uint64(n), k)
}

// binomial returns C(n, k).
func binomial(n int64, k int) (uint64, bool) {
	if n < 0 {
		return 0, true
	}
	return checked.Binomial(uint64(n), k)
}
