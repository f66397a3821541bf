package main

import _ "submatch/engine/stmatch"
