// Package registry owns the by-name registries the project's plug-in points share (the matching
// engines of package engine, the continuous-matching engines of package csm): safe for
// concurrent use, filled from init functions, a duplicate name a programming error.
package registry

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Named is what a registry holds.
type Named interface{ Name() string }

// Registry maps names to values of T. The zero value is empty and ready to use.
type Registry[T Named] struct {
	// What names the kind of thing registered, in messages ("engine").
	What string

	mu    sync.RWMutex
	items map[string]T
}

// Register adds v under v.Name(); a name registered twice panics.
func (r *Registry[T]) Register(v T) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.items[v.Name()]; dup {
		panic(fmt.Sprintf("duplicate registration of %s %s", r.What, v.Name()))
	}
	if r.items == nil {
		r.items = map[string]T{}
	}
	r.items[v.Name()] = v
}

// Lookup returns the value registered under name; otherwise an error wrapping unknown that
// lists the names available.
func (r *Registry[T]) Lookup(name string, unknown error) (T, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if v, ok := r.items[name]; ok {
		return v, nil
	}
	var zero T
	return zero, fmt.Errorf("%w %q (available: %s)", unknown, name, strings.Join(r.namesLocked(), ", "))
}

// Names lists the registered names, sorted.
func (r *Registry[T]) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.namesLocked()
}

// All returns the registered values, by name.
func (r *Registry[T]) All() []T {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]T, 0, len(r.items))
	for _, n := range r.namesLocked() {
		out = append(out, r.items[n])
	}
	return out
}

func (r *Registry[T]) namesLocked() []string {
	names := make([]string, 0, len(r.items))
	for n := range r.items {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
