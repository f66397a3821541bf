package formats

import (
	"bytes"
	"errors"
	"io"
	"iter"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// Tokenising is most of the time a large text graph takes to load (R-MAT scale 20 as `t/v/e`:
// about three quarters), and it needs nothing from the lines before, so the loaders of the
// large formats (sm, gsi, edge lists) tokenise on all cores: the file is cut into blocks of whole
// lines, worker goroutines parse each block's data lines into integer fields, and the loader
// consumes the parsed lines one at a time in file order, so that what it builds, and which error
// it reports first, are as when it read line by line.

// lineFields are what a format's parse function reads from a data line.
type lineFields struct {
	f    [3]int64
	n    int  // integer fields parsed into f
	kind byte // set by the format's parse function (for example 'v' or 'e')
	ok   bool // every field after the kind was an integer, and there were at most len(f)
}

// parsedLine is one data line (neither blank nor a comment) as the loader sees it.
type parsedLine struct {
	lineFields
	line int    // 1-based line number
	text []byte // the line, trimmed
}

// parseFunc fills out from text, a trimmed data line.
type parseFunc func(text []byte, out *lineFields)

// lineRecord is a parsed data line inside its block. It holds no pointers (the text is given by
// offsets), so that a block's records cost the garbage collector nothing.
type lineRecord struct {
	lineFields
	start, end int    // the trimmed line: text[start:end] of the block
	dline      uint32 // line number - the block's first
}

// lineBlock is a run of whole lines and, once a worker has parsed them, its data lines.
type lineBlock struct {
	text  []byte
	first int // number of the block's first line
	recs  []lineRecord
	err   error // a read error after the block's last line
	done  chan struct{}
}

const (
	// blockSize is about how many bytes of lines a worker parses at a time: small enough that a
	// file of a megabyte (wiki-Vote) is several blocks, parsed while the loader consumes the
	// first, and large enough that a block's hand-offs cost nothing next to its parse.
	blockSize = 1 << 17
	// blocksPerWorker bounds the blocks read ahead of the loader (memory: a block's text, and
	// a 64-byte record a line of it).
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
		// On return the reader and the workers are stopped and waited for: the caller may close
		// what lr reads from (a decompressor) as soon as the sequence ends.
		var wg sync.WaitGroup
		defer wg.Wait()
		defer close(quit)
		for range workers {
			wg.Go(func() {
				for b := range work {
					b.recs = splitData(b.recs[:0], b.text, comments, parse)
					close(b.done)
				}
			})
		}
		wg.Go(func() { lr.readBlocks(lr.line+1, work, order, free, quit) })
		var pl parsedLine
		for b := range order {
			<-b.done
			for i := range b.recs {
				r := &b.recs[i]
				pl.lineFields, pl.line, pl.text = r.lineFields, b.first+int(r.dline), b.text[r.start:r.end]
				lr.line = pl.line
				if !yield(&pl, nil) {
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
	var carry []byte
	for {
		var b *lineBlock
		select {
		case b = <-free:
		default:
			b = &lineBlock{text: make([]byte, 0, blockSize+blockSize/8)}
		}
		b.first, b.done = line, make(chan struct{})
		b.text, carry, b.err = lr.readBlock(b.text[:0], carry)
		if len(b.text) == 0 && b.err == nil {
			return // end of input
		}
		if b.err != nil {
			// The line being read when it failed is not a line: drop it, and name it.
			b.text = b.text[:bytes.LastIndexByte(b.text, '\n')+1]
		}
		line += bytes.Count(b.text, []byte{'\n'})
		var long *tooLongError
		if errors.As(b.err, &long) {
			b.err = lr.tooLong(line)
		} else if b.err != nil {
			b.err = readError(lr.path, line, b.err)
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

// readBlock reads whole lines into buf: carry (the start of a line that the previous block read
// past) and then the input in bulk, until buf holds at least blockSize bytes or the input ends
// (the last line may lack its newline). It returns the lines, and the start of the next line
// read past them in carry's storage. It returns no bytes and no error at the end of the input.
// On an error, text holds the whole lines read before it.
func (lr *lineReader) readBlock(buf, carry []byte) (text, rest []byte, err error) {
	buf = append(buf[:0], carry...)
	lastNL := bytes.LastIndexByte(buf, '\n')
	for {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, cap(buf)) // doubling: a long line costs linear time
		}
		n, err := lr.r.Read(buf[len(buf):cap(buf)])
		if i := bytes.LastIndexByte(buf[len(buf):len(buf)+n], '\n'); i >= 0 {
			lastNL = len(buf) + i
		}
		buf = buf[:len(buf)+n]
		switch {
		case len(buf)-(lastNL+1) > MaxLineBytes:
			// Also at the end of the input: a reader may hand over the last line with io.EOF.
			return buf[:lastNL+1], carry[:0], &tooLongError{}
		case err == io.EOF:
			return buf, carry[:0], nil
		case err != nil:
			return buf[:lastNL+1], carry[:0], err
		case len(buf) >= blockSize && lastNL >= 0:
			return buf[:lastNL+1], append(carry[:0], buf[lastNL+1:]...), nil
		}
	}
}

// tooLongError is readBlock's error for a line longer than MaxLineBytes.
type tooLongError struct{}

func (*tooLongError) Error() string { return "line too long" }

// splitData appends to recs the data lines of text (whole lines), each parsed.
func splitData(recs []lineRecord, text []byte, comments string, parse parseFunc) []lineRecord {
	if lines := bytes.Count(text, []byte{'\n'}) + 1; cap(recs) < lines {
		recs = make([]lineRecord, 0, lines)
	}
	var dline uint32
	for start := 0; start < len(text); dline++ {
		end := len(text)
		if i := bytes.IndexByte(text[start:], '\n'); i >= 0 {
			end = start + i
		}
		line := trimSpace(text[start:end])
		lo := start + cap(text[start:end]) - cap(line) // trimSpace returns a subslice
		hi := lo + len(line)
		start = end + 1
		if lo == hi || (comments != "" && strings.IndexByte(comments, text[lo]) >= 0) {
			continue
		}
		recs = append(recs, lineRecord{start: lo, end: hi, dline: dline})
		parse(text[lo:hi], &recs[len(recs)-1].lineFields)
	}
	return recs
}
