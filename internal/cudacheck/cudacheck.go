// Package cudacheck checks the syntax and types of the project's CUDA kernels on machines without
// CUDA or NVRTC, with clang's CUDA front end and a header declaring the device built-ins
// (cuda_stub.h). NVRTC compiles the kernels for real on a GPU machine; this catches the typo that
// would otherwise only show up there.
package cudacheck

import (
	"bytes"
	_ "embed"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

//go:embed cuda_stub.h
var stub []byte

// clangNames are the clang binaries tried, newest first.
var clangNames = []string{"clang", "clang-19", "clang-18", "clang-17", "clang-16", "clang-15", "clang-14"}

// Clang returns the path of a clang binary, or "" when there is none.
func Clang() string {
	for _, n := range clangNames {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	return ""
}

// Syntax checks the CUDA source src (named name in messages) for sm_90 (or sm_80) with clang's
// front end (-fsyntax-only: nothing is generated). It skips the test when no clang is installed.
func Syntax(t testing.TB, name, src string) {
	t.Helper()
	clang := Clang()
	if clang == "" {
		t.Skipf("no clang: the CUDA syntax check of %s is skipped (NVRTC checks it on a GPU machine)", name)
	}
	dir := t.TempDir()
	header := filepath.Join(dir, "cuda_stub.h")
	file := filepath.Join(dir, filepath.Base(name))
	if err := os.WriteFile(header, stub, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	// clang before 15 (Debian 12's default is 14) knows no sm_90: the check then targets sm_80,
	// which the kernels' syntax does not tell apart.
	var out []byte
	var err error
	for _, arch := range []string{"sm_90", "sm_80"} {
		cmd := exec.Command(clang, "-fsyntax-only", "-x", "cuda", "--cuda-device-only", "--cuda-gpu-arch="+arch,
			"-nocudainc", "-nocudalib", "-std=c++17", "-include", header, file)
		if out, err = cmd.CombinedOutput(); err == nil || !bytes.Contains(out, []byte("unsupported CUDA gpu architecture")) {
			break
		}
	}
	if err != nil {
		t.Errorf("%s does not compile (clang %s): %v\n%s", name, clang, err, out)
	}
}
