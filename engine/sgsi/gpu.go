package sgsi

import (
	"context"
	"fmt"

	"github.com/submatch/submatch/engine"
)

func newGPUBackend(ctx context.Context, p *engine.Problem, o Options, st *Stats) (Backend, error) {
	return nil, fmt.Errorf("sgsi: no GPU backend yet")
}
