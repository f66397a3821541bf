package sysmem

import (
	"runtime"
	"testing"
)

func TestMeminfoAvailable(t *testing.T) {
	in := "MemTotal:       32768000 kB\nMemFree:  100 kB\nMemAvailable:   23455144 kB\nBuffers: 1 kB\n"
	if got, want := meminfoAvailable([]byte(in)), uint64(23455144*1024); got != want {
		t.Errorf("meminfoAvailable = %d, want %d", got, want)
	}
	for _, bad := range []string{"", "MemTotal: 5 kB\n", "MemAvailable:\n", "MemAvailable: x kB\n"} {
		if got := meminfoAvailable([]byte(bad)); got != 0 {
			t.Errorf("meminfoAvailable(%q) = %d, want 0", bad, got)
		}
	}
}

func TestLimitLeft(t *testing.T) {
	for _, c := range []struct {
		limit, usage string
		left         uint64
		ok           bool
	}{
		{"1000\n", "300\n", 700, true},
		{"1000", "3000", 0, true},
		{"max\n", "300\n", 0, false},
		{"9223372036854771712\n", "300\n", 0, false}, // v1's "no limit"
		{"", "", 0, false},
		{"1000", "", 0, false},
	} {
		left, ok := limitLeft([]byte(c.limit), []byte(c.usage))
		if left != c.left || ok != c.ok {
			t.Errorf("limitLeft(%q, %q) = %d, %v; want %d, %v", c.limit, c.usage, left, ok, c.left, c.ok)
		}
	}
}

func TestAvailableOnLinux(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("MemAvailable is Linux's")
	}
	if a := Available(); a == 0 {
		t.Error("Available() = 0 on Linux")
	}
	if s, a := Share(3, 4), Available(); s == 0 || s > a {
		t.Errorf("Share(3, 4) = %d with Available %d", s, a)
	}
}
