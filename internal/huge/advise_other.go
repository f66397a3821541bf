//go:build !linux

package huge

func advise([]byte) {}
