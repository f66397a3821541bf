//go:build race

package testenv

// Race reports whether the tests were built with the race detector (go test -race), which slows
// the oracle sweeps about tenfold: they then run a few cases, enough to exercise the engines'
// concurrency, and leave the breadth to the run without it.
const Race = true
