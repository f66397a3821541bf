package chart

import (
	"bytes"
	"testing"
	"time"

	"github.com/submatch/submatch/bench"
)

func TestWrite(t *testing.T) {
	var rs []bench.Result
	for _, g := range []string{"a", "b"} {
		for _, th := range []int{1, 2} {
			rs = append(rs, bench.Result{Case: g + "/1", Group: g, Threads: th, Status: bench.StatusOK,
				Match: time.Duration(th) * time.Millisecond, Speedup: float64(th)})
		}
	}
	var b bytes.Buffer
	if err := Write(&b, rs); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b.Bytes(), []byte("\x89PNG")) {
		t.Fatal("not a PNG")
	}
}
