package sysmem

import (
	"os"
	"path/filepath"
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
		limit, usage, stat string
		left               uint64
		ok                 bool
	}{
		{"1000\n", "300\n", "", 700, true},
		{"1000", "3000", "", 0, true},
		{"max\n", "300\n", "", 0, false},
		{"9223372036854771712\n", "300\n", "", 0, false}, // v1's "no limit"
		{"", "", "", 0, false},
		{"1000", "", "", 0, false},
		{"1000", "900", "anon 100\nfile 800\nactive_file 300\ninactive_file 400\n", 800, true},
		{"1000", "900", "active_file 3000\n", 1000, true},
	} {
		left, ok := limitLeft([]byte(c.limit), []byte(c.usage), []byte(c.stat), v2.cache)
		if left != c.left || ok != c.ok {
			t.Errorf("limitLeft(%q, %q, %q) = %d, %v; want %d, %v", c.limit, c.usage, c.stat, left, ok, c.left, c.ok)
		}
	}
}

// fakeRoot lays files out under a temporary directory as / and reads from it for the test.
func fakeRoot(t *testing.T, files map[string]string) {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := root
	root = dir
	t.Cleanup(func() { root = old })
}

const gib = 1 << 30

// TestAvailableCgroups reads fake hosts: the process's own cgroup and its ancestors bound it,
// not only the mount's root (a systemd slice or a batch job's cgroup without a cgroup
// namespace), and the page cache that the cgroup's usage counts is not taken as used (a graph
// read from a file: its pages are cached, the kernel reclaims them before it kills).
func TestAvailableCgroups(t *testing.T) {
	meminfo := "MemTotal: 67108864 kB\nMemAvailable: 50331648 kB\n" // 48 GiB
	for _, c := range []struct {
		name  string
		files map[string]string
		want  uint64
	}{
		{"no cgroup limit", map[string]string{"proc/meminfo": meminfo}, 48 * gib},
		{"v2 namespace root", map[string]string{"proc/meminfo": meminfo, "proc/self/cgroup": "0::/\n",
			"sys/fs/cgroup/memory.max": "8589934592\n", "sys/fs/cgroup/memory.current": "2147483648\n"}, 6 * gib},
		{"v2 own cgroup", map[string]string{"proc/meminfo": meminfo, "proc/self/cgroup": "0::/system.slice/job.scope\n",
			"sys/fs/cgroup/system.slice/job.scope/memory.max": "8589934592\n", "sys/fs/cgroup/system.slice/job.scope/memory.current": "2147483648\n"}, 6 * gib},
		{"v2 parent's limit", map[string]string{"proc/meminfo": meminfo, "proc/self/cgroup": "0::/job/step\n",
			"sys/fs/cgroup/job/memory.max": "4294967296\n", "sys/fs/cgroup/job/memory.current": "1073741824\n",
			"sys/fs/cgroup/job/step/memory.max": "max\n", "sys/fs/cgroup/job/step/memory.current": "1073741824\n"}, 3 * gib},
		{"v2 page cache", map[string]string{"proc/meminfo": meminfo, "proc/self/cgroup": "0::/\n",
			"sys/fs/cgroup/memory.max": "17179869184\n", "sys/fs/cgroup/memory.current": "16106127360\n", // 16 GiB, 15 used
			"sys/fs/cgroup/memory.stat": "anon 5368709120\nfile 10737418240\nactive_file 2147483648\ninactive_file 8589934592\n"}, 11 * gib},
		{"v1 own cgroup", map[string]string{"proc/meminfo": meminfo, "proc/self/cgroup": "4:memory:/process_api/x\n3:cpu:/\n0::/\n",
			"sys/fs/cgroup/memory/memory.limit_in_bytes": "9223372036854771712\n", "sys/fs/cgroup/memory/memory.usage_in_bytes": "1\n",
			"sys/fs/cgroup/memory/process_api/x/memory.limit_in_bytes": "2147483648\n", "sys/fs/cgroup/memory/process_api/x/memory.usage_in_bytes": "1610612736\n",
			"sys/fs/cgroup/memory/process_api/x/memory.stat": "cache 1073741824\ntotal_cache 1073741824\ntotal_inactive_file 1073741824\n"}, 1536 << 20},
		{"v1 path outside the mount (container)", map[string]string{"proc/meminfo": meminfo, "proc/self/cgroup": "9:memory,hugetlb:/docker/abc\n",
			"sys/fs/cgroup/memory/memory.limit_in_bytes": "2147483648\n", "sys/fs/cgroup/memory/memory.usage_in_bytes": "1073741824\n"}, gib},
		{"full cgroup", map[string]string{"proc/meminfo": meminfo, "proc/self/cgroup": "0::/\n",
			"sys/fs/cgroup/memory.max": "1000\n", "sys/fs/cgroup/memory.current": "2000\n"}, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			fakeRoot(t, c.files)
			if got := Available(); got != c.want {
				t.Errorf("Available() = %d, want %d", got, c.want)
			}
		})
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
