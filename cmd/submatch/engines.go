package main

import (
	_ "github.com/submatch/submatch/engine/geneva"
	_ "github.com/submatch/submatch/engine/stmatch"
)
