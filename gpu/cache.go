package gpu

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"os"
	"path/filepath"
)

// EnvKernelCache overrides the folder of the on-disk kernel cache ("off" disables the cache).
const EnvKernelCache = "SUBMATCH_KERNEL_CACHE"

// CacheKey is the hex sha256 of the compilation's inputs: source, options (in order), target
// architecture and NVRTC version. Each field is length-prefixed, so no two different inputs share
// a key by concatenation.
func CacheKey(src string, opts []string, arch, nvrtcVersion string) string {
	h := sha256.New()
	field := func(s string) {
		var n [8]byte
		binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	field("submatch-kernel-cache-v1")
	field(src)
	field(arch)
	field(nvrtcVersion)
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(opts)))
	h.Write(n[:])
	for _, o := range opts {
		field(o)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// CacheDir returns the kernel cache folder: $SUBMATCH_KERNEL_CACHE, else
// os.UserCacheDir()/submatch/kernels. It returns "" when caching is off or no folder is known.
func CacheDir() string {
	if d := os.Getenv(EnvKernelCache); d != "" {
		if d == "off" {
			return ""
		}
		return d
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(base, "github.com/submatch/submatch", "kernels")
}

// cacheLoad returns the cached image for key, or nil.
func cacheLoad(dir, key string) []byte {
	if dir == "" {
		return nil
	}
	b, err := os.ReadFile(filepath.Join(dir, key+".bin"))
	if err != nil || len(b) == 0 {
		return nil
	}
	return b
}

// cacheStore writes the image atomically (temporary file, then rename). Errors are ignored: the
// cache is an optimisation, and a read-only home must not stop a run.
func cacheStore(dir, key string, img []byte) {
	if dir == "" {
		return
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return
	}
	f, err := os.CreateTemp(dir, key+".tmp*")
	if err != nil {
		return
	}
	_, werr := f.Write(img)
	cerr := f.Close()
	if werr != nil || cerr != nil {
		os.Remove(f.Name())
		return
	}
	if err := os.Rename(f.Name(), filepath.Join(dir, key+".bin")); err != nil {
		os.Remove(f.Name())
	}
}
