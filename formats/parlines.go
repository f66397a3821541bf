package formats

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"iter"
	"runtime"
	"strings"
)

// Tokenising is most of the time a large text graph takes to load (R-MAT scale 20 as `t/v/e`:
// about three quarters), and it needs nothing from the lines before, so the loaders of the
// large formats (sm, gsi, edge lists) tokenise on all cores: the file is cut into blocks of whole
// lines, worker goroutines parse each block's data lines into integer fields, and the loader
// consumes the parsed lines one at a time in file order, so that what it builds, and which error
// it reports first, are as when it read line by line.

// parsedLine is one data line (neither blank nor a comment) as a worker parsed it.
type parsedLine struct {
	line int    // 1-based line number
	text []byte // the line, trimmed; valid while the loader consumes it
	kind byte   // set by the format's parse function (for example 'v' or 'e')
	n    int    // integer fields parsed into f
	ok   bool   // every field after the kind was an integer, and there were at most len(f)
	f    [3]int64
}

// parseFunc fills l's kind, n, ok and f from l.text.
type parseFunc func(l *parsedLine)

// lineBlock is a run of whole lines and, once a worker has parsed them, its data lines.
type lineBlock struct {
	text  []byte
	first int // number of the block's first line
	lines []parsedLine
	err   error // a read error after the block's last line
	done  chan struct{}
}

const (
	// blockSize is about how many bytes of lines a worker parses at a time.
	blockSize = 1 << 20
	// blocksPerWorker bounds the blocks read ahead of the loader (memory: about
	// blockSize x 4 a block, lines and text).
	blocksPerWorker = 2
)

// parsedLines yields the remaining data lines of lr (lines neither blank nor starting, after
// blanks, with a byte of comments), each parsed by parse on worker goroutines, in file order.
// It sets lr.line to each line's number before yielding it, so that lr's error helpers name it.
// A yielded line, its text included, is valid until the loop moves on to the next one.
// A read error ends the sequence with an *InputError. Breaking out of the loop stops the
// workers.
func (lr *lineReader) parsedLines(comments string, parse parseFunc) iter.Seq2[*parsedLine, error] {
	return func(yield func(*parsedLine, error) bool) {
		workers := runtime.GOMAXPROCS(0)
		inFlight := workers * blocksPerWorker
		work := make(chan *lineBlock)
		order := make(chan *lineBlock, inFlight)
		free := make(chan *lineBlock, inFlight+1) // blocks the loader is done with, for reuse
		quit := make(chan struct{})
		defer close(quit)
		for range workers {
			go func() {
				for b := range work {
					b.lines = splitData(b.lines[:0], b.text, b.first, comments, parse)
					close(b.done)
				}
			}()
		}
		go lr.readBlocks(lr.line+1, work, order, free, quit)
		for b := range order {
			<-b.done
			for i := range b.lines {
				lr.line = b.lines[i].line
				if !yield(&b.lines[i], nil) {
					return
				}
			}
			if b.err != nil {
				yield(nil, b.err)
				return
			}
			free <- b // never blocks: at most inFlight+1 blocks exist
		}
	}
}

// readBlocks cuts the rest of lr, whose first line is number line, into blocks of whole lines and
// hands each to the workers and, in order, to the loader, until the end of the input, a read
// error or quit. It closes both channels.
func (lr *lineReader) readBlocks(line int, work, order chan<- *lineBlock, free <-chan *lineBlock, quit <-chan struct{}) {
	defer close(order)
	defer close(work)
	for {
		var b *lineBlock
		select {
		case b = <-free:
		default:
			b = &lineBlock{text: make([]byte, 0, blockSize+blockSize/8)}
		}
		b.first, b.done = line, make(chan struct{})
		b.text, b.err = lr.readBlock(b.text[:0])
		if len(b.text) == 0 && b.err == nil {
			return // end of input
		}
		if b.err != nil {
			// The line being read when it failed is not a line: drop it, and name it.
			b.text = b.text[:bytes.LastIndexByte(b.text, '\n')+1]
		}
		line += bytes.Count(b.text, []byte{'\n'})
		if b.err != nil {
			b.err = &InputError{Path: lr.path, Line: line, Msg: "read failed", Err: b.err}
		}
		select {
		case order <- b:
		case <-quit:
			return
		}
		select {
		case work <- b:
		case <-quit:
			return
		}
		if b.err != nil {
			return
		}
	}
}

// readBlock appends whole lines to buf until it holds at least blockSize bytes or the input ends (the last
// line may lack its newline). It returns no bytes and no error at the end of the input.
func (lr *lineReader) readBlock(buf []byte) ([]byte, error) {
	for {
		chunk, err := lr.r.ReadSlice('\n')
		buf = append(buf, chunk...)
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue // part of a line longer than the reader's buffer
		case err == io.EOF:
			return buf, nil
		case err != nil:
			return buf, err
		}
		if len(buf) >= blockSize {
			return buf, nil
		}
	}
}

// splitData appends to lines the data lines of text (whole lines; the first is line number
// first), each parsed.
func splitData(lines []parsedLine, text []byte, first int, comments string, parse parseFunc) []parsedLine {
	for n := first; len(text) > 0; n++ {
		var l []byte
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			l, text = text[:i], text[i+1:]
		} else {
			l, text = text, nil
		}
		l = trimSpace(l)
		if len(l) == 0 || (comments != "" && strings.IndexByte(comments, l[0]) >= 0) {
			continue
		}
		lines = append(lines, parsedLine{line: n, text: l})
		parse(&lines[len(lines)-1])
	}
	return lines
}
