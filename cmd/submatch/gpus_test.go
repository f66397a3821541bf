package main

import (
	"slices"
	"testing"
)

func TestParseGPUs(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []int
		ok   bool
	}{
		{"all", nil, true}, {"", nil, true}, {"1", []int{0}, true}, {"3", []int{0, 1, 2}, true},
		{"0,2", []int{0, 2}, true}, {" 1, 3 ", []int{1, 3}, true},
		{"0", nil, false}, {"-1", nil, false}, {"x", nil, false}, {"0,0", nil, false}, {"1,", nil, false}, {"2,-1", nil, false},
	} {
		got, err := parseGPUs(c.in)
		if (err == nil) != c.ok || !slices.Equal(got, c.want) {
			t.Errorf("parseGPUs(%q) = %v, %v; want %v (ok %v)", c.in, got, err, c.want, c.ok)
		}
		if err != nil && !isBadInput(err) {
			t.Errorf("parseGPUs(%q): %v is not a usage error", c.in, err)
		}
	}
}
