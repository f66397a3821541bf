package registry

import (
	"errors"
	"strings"
	"testing"
)

type thing string

func (t thing) Name() string { return string(t) }

func TestRegistry(t *testing.T) {
	var r Registry[thing]
	r.What = "thing"
	r.Register("b")
	r.Register("a")
	if got := strings.Join(r.Names(), ","); got != "a,b" {
		t.Errorf("Names() = %s", got)
	}
	if v, err := r.Lookup("b", nil); err != nil || v != "b" {
		t.Errorf("Lookup(b) = %q, %v", v, err)
	}
	unknown := errors.New("unknown thing")
	if _, err := r.Lookup("c", unknown); !errors.Is(err, unknown) || !strings.Contains(err.Error(), `"c" (available: a, b)`) {
		t.Errorf("Lookup(c): %v", err)
	}
	if all := r.All(); len(all) != 2 || all[0] != "a" {
		t.Errorf("All() = %v", all)
	}
	defer func() {
		if recover() == nil {
			t.Error("a duplicate registration did not panic")
		}
	}()
	r.Register("a")
}
