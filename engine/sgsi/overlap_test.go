package sgsi

import (
	"flag"
	"io"
	"strings"
	"testing"
)

// TestOverlapFlag: --sgsi-overlap takes pieces, off and all into Options.Overlap, refuses
// anything else, and leaves the default (the zero value, pieces) alone when not given.
func TestOverlapFlag(t *testing.T) {
	for _, c := range []struct {
		args []string
		want Overlap
		ok   bool
	}{
		{nil, OverlapPieces, true},
		{[]string{"--sgsi-overlap", "off"}, OverlapOff, true},
		{[]string{"--sgsi-overlap=all"}, OverlapAll, true},
		{[]string{"--sgsi-overlap", "pieces"}, OverlapPieces, true},
		{[]string{"--sgsi-overlap=true"}, 0, false},
		{[]string{"--sgsi-overlap", "on"}, 0, false},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		get := Engine{}.RegisterFlags(fs)
		err := fs.Parse(c.args)
		if (err == nil) != c.ok {
			t.Fatalf("%q: %v", c.args, err)
		}
		if err != nil {
			continue
		}
		e, err := get()
		if err != nil {
			t.Fatal(err)
		}
		if got := e.(Engine).Options.Overlap; got != c.want {
			t.Errorf("%q: %v, want %v", c.args, got, c.want)
		}
	}
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	var help strings.Builder
	fs.SetOutput(&help)
	Engine{Options: Options{Overlap: OverlapOff}}.RegisterFlags(fs)
	fs.PrintDefaults()
	if !strings.Contains(help.String(), "MODE") || !strings.Contains(help.String(), "default off") {
		t.Errorf("help: %s", help.String())
	}
}
