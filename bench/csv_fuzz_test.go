package bench

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzReadCSV: results files never panic the reader, and what it accepts writes back to a CSV
// that reads as the same results.
func FuzzReadCSV(f *testing.F) {
	var b bytes.Buffer
	WriteCSV(&b, []Result{{Case: "a/q", Group: "a", Threads: 2, Status: StatusOK, Count: 7, HasExpected: true, Expected: 7, Speedup: 1.5}})
	f.Add(b.String())
	f.Add(strings.Join(csvHeader, ",") + "\n")
	f.Add("case\nx\n")
	f.Fuzz(func(t *testing.T, s string) {
		rs, err := ReadCSV(strings.NewReader(s))
		if err != nil {
			return
		}
		var out bytes.Buffer
		if err := WriteCSV(&out, rs); err != nil {
			t.Fatal(err)
		}
		back, err := ReadCSV(&out)
		if err != nil || len(back) != len(rs) {
			t.Fatalf("%d results written back as %d (%v)", len(rs), len(back), err)
		}
		for i := range rs {
			if back[i].Case != rs[i].Case || back[i].Count != rs[i].Count || back[i].Threads != rs[i].Threads {
				t.Fatalf("row %d: %+v read back as %+v", i, rs[i], back[i])
			}
		}
	})
}
