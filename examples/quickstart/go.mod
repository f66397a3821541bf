module example.com/quickstart

go 1.26.0

require github.com/submatch/submatch v0.0.0

require (
	github.com/dustin/go-humanize v1.0.1 // indirect
	github.com/ebitengine/purego v0.11.3 // indirect
	github.com/klauspost/compress v1.18.0 // indirect
)

replace github.com/submatch/submatch => ../..
