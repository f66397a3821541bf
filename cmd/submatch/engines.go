package main

import (
	_ "submatch/engine/genevagpu"
	_ "submatch/engine/stmatch"
)
