//go:build !race

package testenv

// Race reports whether the tests were built with the race detector; see race_on.go.
const Race = false
