package main

// The engines are linked through the public API's package, which imports every one (its
// engines.go): the command names none of them.
import _ "github.com/submatch/submatch"
