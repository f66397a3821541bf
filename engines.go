package submatch

// Every engine registers itself with package engine when linked in; this API, and through it the
// command, links them all. A new engine is one folder under engine/ and one line here.
import (
	_ "github.com/submatch/submatch/csm/dcsm"
	_ "github.com/submatch/submatch/csm/gcsm"
	_ "github.com/submatch/submatch/engine/auto"
	_ "github.com/submatch/submatch/engine/cpu"
	_ "github.com/submatch/submatch/engine/geneva"
	_ "github.com/submatch/submatch/engine/pbe"
	_ "github.com/submatch/submatch/engine/sgsi"
	_ "github.com/submatch/submatch/engine/stmatch"
)
