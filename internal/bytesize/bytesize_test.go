package bytesize

import (
	"fmt"
	"testing"
)

func TestParse(t *testing.T) {
	for s, want := range map[string]uint64{
		"4GB": 4_000_000_000, "4GiB": 4 << 30, "4 gib": 4 << 30, "512MiB": 512 << 20, "512MB": 512_000_000,
		"1.5GiB": 3 << 29, "100": 100, "1k": 1000, "1KiB": 1024, "2TB": 2_000_000_000_000, "7B": 7,
	} {
		if got, err := Parse(s); err != nil || got != want {
			t.Errorf("Parse(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"", "-1GB", "GB", "4XB", "1e30", "99999EiB", "+4"} {
		if v, err := Parse(s); err == nil {
			t.Errorf("Parse(%q) = %d, accepted", s, v)
		}
	}
}

func ExampleParse() {
	si, _ := Parse("4GB")
	iec, _ := Parse("4GiB")
	fmt.Println(si, iec)
	// Output: 4000000000 4294967296
}
