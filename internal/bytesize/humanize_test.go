package bytesize

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dustin/go-humanize"
)

// The package replaced go-humanize's ParseBytes and IBytes; these tests hold it to their results.

// parseCases are sizes on both sides of every rule: units in any case, blanks, commas, fractions,
// non-ASCII digits and letters (the Kelvin sign lower-cases to k), overflow.
var parseCases = []string{
	"0", "7", "100", "4GB", "4GiB", "4 gib", "512MiB", "512MB", "1.5GiB", "1k", "1KiB", "2TB", "7B",
	"1,000", "1,5kb", ",", ".", "..", "1..5", "1.", ".5k", "1e3", "1e30", "99999EiB", "16EiB", "15.9EiB",
	"18446744073709551615", "18446744073709551616", "1 k", "1\tKB", "1  kb ", "1\u00a0kb", "1\u212aB",
	"1\u0663", "\u0663", "1kb2", "GB", "4XB", "kB", "Inf", "NaN", "0x10", "1_000", "3 PIB", "2ei", "9e",
	"0.0000001k", "123456789.987654321 MiB",
}

func TestParseMatchesHumanize(t *testing.T) {
	for _, s := range parseCases {
		checkParse(t, s)
	}
}

func checkParse(t *testing.T, s string) {
	t.Helper()
	got, ok := parse(s)
	want, err := humanize.ParseBytes(s)
	if ok != (err == nil) || got != want {
		t.Errorf("parse(%q) = %d, %v; go-humanize: %d, %v", s, got, ok, want, err)
	}
	// Parse is parse of the trimmed size behind the refusal of signs and of a blank size.
	if tr := strings.TrimSpace(s); tr != "" && tr[0] != '-' && tr[0] != '+' {
		n, err := Parse(s)
		want, ok := parse(tr)
		if (err == nil) != ok || n != want {
			t.Errorf("Parse(%q) = %d, %v; parse(%q): %d, %v", s, n, err, tr, want, ok)
		}
	}
}

func FuzzParseMatchesHumanize(f *testing.F) {
	for _, s := range parseCases {
		f.Add(s)
	}
	f.Fuzz(checkParse)
}

func TestIEC(t *testing.T) {
	for n, want := range map[uint64]string{
		0: "0 B", 9: "9 B", 10: "10 B", 1023: "1023 B", 1024: "1.0 KiB", 1536: "1.5 KiB", 10239: "10 KiB",
		82854982: "79 MiB", 4 << 30: "4.0 GiB", math.MaxUint64: "16 EiB",
	} {
		if got := IEC(n); got != want {
			t.Errorf("IEC(%d) = %q, want %q", n, got, want)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	values := []uint64{math.MaxUint64, math.MaxUint64 - 1}
	for k := range 64 {
		p := uint64(1) << k
		values = append(values, p-1, p, p+1, p+p/2, p*10/1024)
	}
	for range 10000 {
		values = append(values, r.Uint64()>>r.IntN(64))
	}
	for _, n := range values {
		if got, want := IEC(n), humanize.IBytes(n); got != want {
			t.Errorf("IEC(%d) = %q; go-humanize: %q", n, got, want)
		}
	}
}
