package formats

import (
	"bytes"
	"errors"
	"io"
	"iter"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/mmapfile"
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

// lineBlock is a run of whole lines and, once a worker has parsed them, its data lines: either
// in bulk by the format's fast parser (fast), or line by line (recs).
type lineBlock struct {
	text     []byte
	first    int // number of the block's first line
	newlines int // the newlines in text
	storeAt  int // where pairs starts in the array of a file read whole (edgeStorage), or -1
	fast     bool
	fastLines
	recs []lineRecord
	err  error // a read error after the block's last line
	done chan struct{}
}

// lines returns the number of lines in b.text.
func (b *lineBlock) lines() int {
	if n := len(b.text); n > 0 && b.text[n-1] != '\n' {
		return b.newlines + 1 // the last line, without its newline
	}
	return b.newlines
}

// fastLines is what a fast parser makes of a block whose data lines are all of the plain kinds
// it knows (edges `u v [label]` with ids in 0..2^32-1, not self-loops; vertex lines): the edges
// and vertices in bulk, in line order (every vertex line before every edge line).
type fastLines struct {
	pairs     []uint32 // the edges (u, v)
	labels    []uint32 // one label an edge when labelled
	labelled  bool     // some edge line has a label field
	minID     uint32   // the smallest and largest id in pairs (when there are any)
	maxID     uint32
	vids      []uint32 // vertex lines: ids and labels
	vlabels   []uint32
	dataLines int    // the data lines parsed
	firstData uint32 // the number of the first data line - first
	firstN    int    // the integer fields of the first data line (after its kind letter)
}

// edgeLabels returns the edges' labels, or nil when no line gave one.
func (f *fastLines) edgeLabels() []uint32 {
	if !f.labelled {
		return nil
	}
	return f.labels
}

// fastParseFunc parses a block's whole lines in bulk into its fastLines, and reports whether
// every data line was of a kind it handles; when not, the block is parsed line by line.
type fastParseFunc func(text []byte, out *fastLines) bool

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
		for b, err := range lr.blocks(comments, nil, parse) {
			if err != nil {
				yield(nil, err)
				return
			}
			for pl := range lr.records(b, 0) {
				if !yield(pl, nil) {
					return
				}
			}
		}
	}
}

// records yields the data lines of block b from its from-th on, parsed line by line (by the
// parse function b was read with), setting lr.line to each line's number.
func (lr *lineReader) records(b *lineBlock, from int) iter.Seq[*parsedLine] {
	return func(yield func(*parsedLine) bool) {
		if b.fast {
			b.recs = splitData(b.recs[:0], b.text, lr.comments, lr.parse)
			b.fast = false
		}
		var pl parsedLine
		for i := from; i < len(b.recs); i++ {
			r := &b.recs[i]
			pl.lineFields, pl.line, pl.text = r.lineFields, b.first+int(r.dline), b.text[r.start:r.end]
			lr.line = pl.line
			if !yield(&pl) {
				return
			}
		}
	}
}

// blocks yields the remaining lines of lr in blocks of whole lines, in file order, each parsed
// on worker goroutines: by fast when it is not nil and handles every data line of the block
// (then b.fast is set), else line by line by parse (lines neither blank nor starting, after
// blanks, with a byte of comments), which lr.records yields. A yielded block is valid until the
// loop moves on. lr.line is the number of the block's last line when it is yielded. A read
// error ends the sequence with an *InputError, after the block of the lines before it.
// Breaking out of the loop stops the workers.
func (lr *lineReader) blocks(comments string, fast fastParseFunc, parse parseFunc) iter.Seq2[*lineBlock, error] {
	lr.comments, lr.parse = comments, parse
	return func(yield func(*lineBlock, error) bool) {
		workers := runtime.GOMAXPROCS(0)
		inFlight := workers * blocksPerWorker
		work := make(chan *lineBlock)
		order := make(chan *lineBlock, inFlight)
		free := make(chan *lineBlock, inFlight+1) // blocks the loader is done with, for reuse
		quit := make(chan struct{})
		// On return the reader and the workers are stopped and waited for: the caller may close
		// what lr reads from (a decompressor) as soon as the sequence ends.
		var wg sync.WaitGroup
		defer lr.release() // once the reader and the workers are done with the text
		defer wg.Wait()
		defer close(quit)
		for range workers {
			wg.Go(func() {
				for b := range work {
					lr.parseBlock(b, fast, parse, comments)
					close(b.done)
				}
			})
		}
		wg.Go(func() { lr.readBlocks(lr.line+1, work, order, free, quit) })
		for b := range order {
			<-b.done
			lr.line = b.first + b.lines() - 1
			if !yield(b, nil) {
				return
			}
			if b.err != nil {
				yield(nil, b.err)
				return
			}
			select { // for reuse, unless the reader is done
			case free <- b:
			default:
			}
		}
	}
}

// parseBlock parses b's lines (see blocks). A fault reading them (a mapped file that shrank) is
// b's error, its lines dropped.
func (lr *lineReader) parseBlock(b *lineBlock, fast fastParseFunc, parse parseFunc, comments string) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if err := faultError(lr.path, recover(), lr.mapped); err != nil {
			b.fast, b.recs, b.err = false, b.recs[:0], err
		}
	}()
	if need := 2 * b.lines(); cap(b.pairs) < need {
		b.pairs = make([]uint32, 0, need) // room for every line's edge
	}
	b.fast = fast != nil && !slowOnly && fast(b.text, &b.fastLines)
	if !b.fast {
		b.recs = splitData(b.recs[:0], b.text, comments, parse)
	}
}

// readBlocks cuts the rest of lr, whose first line is number line, into blocks of whole lines and
// hands each to the workers and, in order, to the loader, until the end of the input, a read
// error or quit. It closes both channels.
func (lr *lineReader) readBlocks(line int, work, order chan<- *lineBlock, free <-chan *lineBlock, quit <-chan struct{}) {
	defer close(order)
	defer close(work)
	if lr.size >= 0 && lr.size <= wholeFileMax {
		// A fault reading a mapped file that shrank ends the blocks with an error.
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		defer func() {
			if err := faultError(lr.path, recover(), lr.mapped); err != nil {
				handOver(&lineBlock{first: line, done: make(chan struct{}), storeAt: -1, err: err}, work, order, quit)
			}
		}()
		lr.cutWhole(line, work, order, free, quit)
		return
	}
	var carry []byte
	for {
		var b *lineBlock
		select {
		case b = <-free:
		default:
			b = &lineBlock{text: make([]byte, 0, blockSize+blockSize/8)}
		}
		b.first, b.done, b.storeAt = line, make(chan struct{}), -1
		b.text, carry, b.err = lr.readBlock(b.text[:0], carry)
		if len(b.text) == 0 && b.err == nil {
			return // end of input
		}
		if b.err != nil {
			// The line being read when it failed is not a line: drop it, and name it.
			b.text = b.text[:bytes.LastIndexByte(b.text, '\n')+1]
		}
		b.newlines = bytes.Count(b.text, []byte{'\n'})
		line += b.newlines
		var long *tooLongError
		if errors.As(b.err, &long) {
			b.err = lr.tooLong(line)
		} else if b.err != nil {
			b.err = readError(lr.path, line, b.err)
		}
		if !handOver(b, work, order, quit) || b.err != nil {
			return
		}
	}
}

// slowOnly makes every block parsed line by line (tests compare the two ways).
var slowOnly = false

// wholeFileMax is the size up to which a file's text is read into one array (a chunk at a
// time, each block handed to the workers as soon as it is read) rather than into a few blocks'
// buffers used in turn: the edges are then parsed straight into the builder's array, in
// order, and once parsed the text's array holds the builder's first adjacency lists, so that a
// load touches little fresh memory (a page fault a page: about half of a small file's load).
// Past it, the text would outgrow what it is reused for.
const wholeFileMax = 64 << 20

// testBlockBytes, when positive, is the text of every block cut from a file read whole (at the
// first newline past it): tests cut files at every line or few.
var testBlockBytes = 0

// noMap makes cutWhole read a plain file instead of mapping it (tests compare the two ways).
var noMap = false

// cutWhole is readBlocks for a file of known size (lr.size, at most wholeFileMax), mapped or
// read into one array.
func (lr *lineReader) cutWhole(line int, work, order chan<- *lineBlock, free <-chan *lineBlock, quit <-chan struct{}) {
	var (
		words      []uint32
		data       []byte
		store      []uint32 // room for the edges, an edge a line, the blocks' one after another
		pos, start int      // store's next free entry, and where the text not handed over begins
		err        error
	)
	// A plain file is mapped: its text is then all there at once, without a copy or the fresh
	// memory it would be copied into (a page fault a page: reading wiki-Vote's 1.3 MB took
	// 0.7-1.0 ms of a process, mapping it 0.2 ms). Else the text goes into one array of uint32
	// (viewed as bytes), so that the builder can reuse it once the lines are parsed
	// (UseScratch). It is read a chunk at a time, the blocks handed over as soon as they are read.
	mapped := false
	if data, mapped = lr.mapRest(); mapped {
		err = io.EOF
	} else {
		words = make([]uint32, lr.size/4+1)
		data = unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), 4*len(words))[:0]
	}
	size := max(32<<10, int(lr.size)/(4*runtime.GOMAXPROCS(0)))
	if testBlockBytes > 0 {
		size = testBlockBytes
	}
	for {
		if err == nil {
			if len(data) == cap(data) {
				data, words = slices.Grow(data, cap(data)), nil // the file grew
			}
			var n int
			n, err = lr.r.Read(data[len(data):min(cap(data), len(data)+size)])
			data = data[:len(data)+n]
		}
		for {
			if mapped && err == io.EOF {
				// Nothing is read: the context is checked a block at a time instead, as the
				// reads would.
				if cerr := lr.ctx.Err(); cerr != nil {
					err, data = cerr, data[:start]
				}
			}
			end, failed := -1, false
			if i := bytes.IndexByte(data[min(start+size, len(data)):], '\n'); i >= 0 && len(data)-start > size {
				end = start + size + i + 1
			} else if err == io.EOF {
				end = len(data)
			} else if err != nil {
				// The line being read when it failed is not a line: drop it, and name it.
				end, failed = max(start, bytes.LastIndexByte(data, '\n')+1), true
			}
			if end < 0 || (end == start && !failed) {
				break
			}
			var b *lineBlock
			select {
			case b = <-free:
			default:
				b = &lineBlock{}
			}
			b.first, b.done, b.err = line, make(chan struct{}), nil
			b.text, start = data[start:end:end], end
			b.newlines = bytes.Count(b.text, []byte{'\n'})
			line += b.newlines
			if store == nil {
				// An estimate of the lines, from this block's: the edges are copied when it
				// falls short.
				lines := float64(b.newlines+1) * float64(lr.size) / float64(max(len(b.text), 1))
				store = make([]uint32, 0, 2*(int(lines*1.05)+64))
				lr.store, lr.text = store, words
			}
			b.pairs, b.storeAt = nil, -1
			if need := 2 * b.lines(); pos+need <= cap(store) {
				b.pairs, b.storeAt = store[pos:pos:pos+need], pos
				pos += need
			} else {
				pos = cap(store)
			}
			if failed {
				b.err = readError(lr.path, line, err)
			}
			if !handOver(b, work, order, quit) || failed {
				return
			}
		}
		if err != nil {
			return // every line handed over
		}
	}
}

// mapRest maps what remains of the file lr reads, from the first byte its buffer has not handed
// out to the end of the file (lr.size), and reports whether it did: not when lr reads no plain
// file, the file changed size since it was opened, or it cannot be mapped. The mapping is
// released when the blocks end (release); lr's buffer is not read any more.
func (lr *lineReader) mapRest() ([]byte, bool) {
	if noMap || lr.f == nil || lr.size <= 0 || int64(int(lr.size)) != lr.size {
		return nil, false
	}
	pos, err := lr.f.Seek(0, io.SeekCurrent)
	start := pos - int64(lr.r.Buffered())
	if err != nil || start < 0 || pos > lr.size {
		return nil, false
	}
	if st, err := lr.f.Stat(); err != nil || st.Size() != lr.size {
		return nil, false
	}
	data, unmap, err := mmapfile.Map(lr.f, int(lr.size), false)
	if err != nil {
		return nil, false
	}
	lr.mapped, lr.unmap = mmapfile.SpanOf(data), unmap
	if lr.fr != nil {
		lr.fr.mapped = lr.mapped
	}
	if afterMap != nil {
		afterMap()
	}
	return data[start:], true
}

// afterMap, when set, is called once a file is mapped (tests shrink it then).
var afterMap func()

// release unmaps the file mapped by mapRest, if any, on a goroutine of its own: an unmapping
// waits for every core that ran the process to drop the mapping from its TLB, which on a busy
// virtual machine took 0.05-0.6 ms of a load.
func (lr *lineReader) release() {
	if lr.unmap != nil {
		go lr.unmap()
		lr.unmap = nil
	}
}

// useStorage hands b, before its first edges, the array a file read whole has its edges parsed
// into (graph.Builder.UseEdgeStorage), from where pairs, the first edges of block blk, lie in
// it: the edges of the following blocks then lie where the builder adds them, unless lines
// that are not edges come between.
// It reports whether it did.
func (lr *lineReader) useStorage(b *graph.Builder, blk *lineBlock, pairs []uint32) bool {
	store := lr.store
	lr.store = nil
	if store == nil || blk.storeAt < 0 || b.NumEdgesAdded() > 0 {
		return false
	}
	at := blk.storeAt + len(blk.pairs) - len(pairs)
	b.UseEdgeStorage(store[at:at])
	return true
}

// takeText returns the array holding the text of a file read whole, which the caller may reuse
// once it is done with the lines (for graph.Builder.UseScratch), or nil.
func (lr *lineReader) takeText() []uint32 {
	t := lr.text
	lr.text = nil
	return t
}

// handOver queues b for the loader, in order, and for the workers; it reports false when quit
// came first.
func handOver(b *lineBlock, work, order chan<- *lineBlock, quit <-chan struct{}) bool {
	select {
	case order <- b:
	case <-quit:
		return false
	}
	select {
	case work <- b:
		return true
	case <-quit:
		return false
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

// A mapped text file that shrinks while it is read (truncated, or rewritten in place) faults
// when its pages past the new end are read: the goroutines that read its text (the cutter, the
// parsers, the loader's) turn such a fault into a panic (debug.SetPanicOnFault) and the panic
// into an error for the file, instead of the crash it would be.

// faultError returns the error for r, what recover returned on a goroutine that reads the
// mapping in: nil for nil, an *InputError naming path for a fault inside in, and for anything
// else it panics again with r.
func faultError(path string, r any, in mmapfile.Span) error {
	if r == nil {
		return nil
	}
	if in.Faulted(r) {
		err, _ := r.(error)
		return &InputError{Path: path, Msg: "the file shrank while it was read (truncated or rewritten meanwhile)", Err: err}
	}
	panic(r)
}
