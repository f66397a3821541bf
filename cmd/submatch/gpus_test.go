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

// FuzzParseGPUs: any --gpus value is either rejected as bad usage or gives distinct device
// numbers in range; never a panic.
func FuzzParseGPUs(f *testing.F) {
	for _, s := range []string{"all", "", "2", "0,2", " 1, 3 ", "0,0", "-1", "1,", "99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := parseGPUs(s)
		if err != nil {
			if !isBadInput(err) {
				t.Fatalf("parseGPUs(%q): %v is not a usage error", s, err)
			}
			return
		}
		seen := map[int]bool{}
		for _, k := range got {
			if k < 0 || k > 1023 || seen[k] {
				t.Fatalf("parseGPUs(%q) = %v", s, got)
			}
			seen[k] = true
		}
	})
}
