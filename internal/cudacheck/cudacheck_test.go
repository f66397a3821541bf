package cudacheck

import "testing"

// TestSyntax: a correct kernel passes; a broken one is reported (checked with a fake t).
func TestSyntax(t *testing.T) {
	if Clang() == "" {
		t.Skip("no clang")
	}
	good := `extern "C" __global__ void k(unsigned long long* c) {
	unsigned int m = __ballot_sync(0xffffffffu, threadIdx.x & 1);
	if ((threadIdx.x & 31) == 0) atomicAdd(c, (unsigned long long)__popc(m));
}`
	Syntax(t, "good.cu", good)
	ft := &fakeT{TB: t}
	Syntax(ft, "bad.cu", good[:len(good)-3]+"undeclared_name; }")
	if !ft.failed {
		t.Error("a kernel with an undeclared name passed the check")
	}
}

type fakeT struct {
	testing.TB
	failed bool
}

func (f *fakeT) Errorf(string, ...any) { f.failed = true }
func (f *fakeT) Helper()               {}
