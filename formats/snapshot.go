package formats

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"unsafe"

	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/mmapfile"
	"github.com/submatch/submatch/internal/par"
	"github.com/submatch/submatch/internal/smg"
)

// The .smg snapshot: a graph's arrays (graph.Raw) as written in memory, so that loading is a
// memory map plus a checksum. Its layout is package internal/smg's.
//
// On a little-endian host the arrays are used in place (memory-mapped on Linux; the mapping lives
// as long as the process); otherwise they are decoded. The header's checksum is verified before
// any count is used, the data's while the graph is checked (the checks are safe on any bytes; a
// mismatch is reported first). The checksum only shows that the bytes are those some writer
// wrote, not that they obey the graph's rules, so the graph is then checked in full by
// graph.FromRaw (bounds, then label runs, sorted lists, no self-loops, symmetry) on all cores: a
// snapshot written by another program, or from a broken graph, is refused rather than trusted.
//
// A mapped snapshot must not shrink while the process runs: a read of its pages past the new
// end is a SIGBUS, which Go turns into a panic only on a goroutine that asked for it
// (debug.SetPanicOnFault), so a count reading the graph on its workers dies. That is not
// defended against: truncating or rewriting in place a snapshot that a running process maps
// (another program's doing, or cp over it) crashes that process. This package's writers never
// do it: every file they write (WriteFile, WriteFileUnsynced, WriteSnapshot, WriteAtomic,
// CreateAtomic; gen rmat -o, convert, watch's checkpoints, list -o) is a new file in the same
// folder renamed over the target, so a process that maps the old one keeps reading the old inode,
// intact. Reading the file into memory instead of mapping it would defend it, at a cost measured
// at 0.71-0.81 s against 0.42-0.52 s to load 333 MB: the map stays.

func init() { Register(smgLoader{}) }

// nativeLE reports whether the host stores integers little-endian and lays out graph.Run as the
// file does, so that file bytes can be used in place.
var nativeLE = func() bool {
	x := uint16(1)
	var r graph.Run
	return *(*byte)(unsafe.Pointer(&x)) == 1 && unsafe.Sizeof(r) == 16 &&
		unsafe.Offsetof(r.EdgeLabel) == 4 && unsafe.Offsetof(r.Start) == 8
}()

type smgLoader struct{}

func (smgLoader) Name() string { return "smg" }

func (smgLoader) scoresMagic() {}

func (smgLoader) Detect(path string, head []byte) int {
	if bytes.HasPrefix(head, []byte(smg.Magic)) {
		return MagicBytes
	}
	return NoMatch
}

func (smgLoader) Load(r io.Reader, path string, opts Options) (*graph.Graph, error) {
	// A file read from its start is mapped; one read from an offset (standard input redirected
	// after a script read some of it) is read as a stream, where the header's 8-byte alignment
	// holds.
	if fr, ok := r.(*fileReader); ok && fr.f != nil && fr.start == 0 {
		d, unmap, err := readFileAligned(fr.f)
		if err != nil {
			return nil, readError(path, 0, err)
		}
		g, err := decodeSnapshot(d, path, opts.pending)
		if err != nil && unmap != nil {
			unmap()
		}
		return g, err
	}
	data, err := readSnapshotStream(r, path)
	if err != nil {
		return nil, err
	}
	return decodeSnapshot(data, path, opts.pending)
}

// readSnapshotStream reads a snapshot from a stream (standard input, a decompressor): the header
// first, then no more bytes than it declares, so that an endless stream is not read to its end.
func readSnapshotStream(r io.Reader, path string) ([]byte, error) {
	var hdr [smg.HeaderSize]byte
	if n, err := io.ReadFull(r, hdr[:]); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return nil, corrupt(path, "%d bytes, shorter than the %d-byte header", n, smg.HeaderSize)
		}
		return nil, readError(path, 0, err)
	}
	if string(hdr[:8]) != smg.Magic {
		return nil, inputErrorf(path, "not a submatch snapshot (bad magic bytes)")
	}
	size := uint64(smg.HeaderSize)
	for i := range smg.Arrays {
		c := smg.Count(hdr[:], i)
		if c > 1<<50/smg.ElemSize[i] {
			return nil, corrupt(path, "%s: %d entries", smg.Names[i], c)
		}
		size = smg.Pad8(size + c*smg.ElemSize[i])
	}
	limit := int64(size-smg.HeaderSize) + 1
	if binary.LittleEndian.Uint32(hdr[smg.FlagsAt:])&smg.FlagNames != 0 {
		// The names section's size is only known from its offsets: bound it by the vertex count
		// (and a generous 1 KiB a name); decodeSnapshot checks it exactly.
		n := smg.Count(hdr[:], smg.VertexLabels)
		limit += int64(8*(n+2)) + int64(n)*1024 + 8
	}
	rest, err := io.ReadAll(io.LimitReader(r, limit))
	if err != nil {
		return nil, readError(path, 0, err)
	}
	return alignedCopy(append(hdr[:], rest...)), nil
}

// alignedCopy returns a copy of b whose first byte is 8-byte aligned.
func alignedCopy(b []byte) []byte {
	if len(b) == 0 {
		return b
	}
	buf := make([]uint64, (len(b)+7)/8)
	out := unsafe.Slice((*byte)(unsafe.Pointer(&buf[0])), len(b))
	copy(out, b)
	return out
}

// readFileAligned maps f read-only where possible (unmap then releases the mapping), or else
// reads it into an aligned buffer (unmap is nil).
func readFileAligned(f *os.File) (data []byte, unmap func(), err error) {
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	size := st.Size()
	if size > 0 && size == int64(int(size)) {
		if data, unmap, err := mmapfile.Map(f, int(size), false); err == nil {
			return data, unmap, nil
		}
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, nil, err
	}
	d, err := io.ReadAll(f)
	if err != nil {
		return nil, nil, err
	}
	return alignedCopy(d), nil, nil
}

func corrupt(path, format string, args ...any) error {
	return inputErrorf(path, "corrupt or truncated snapshot: "+format, args...)
}

// decodeSnapshot turns snapshot bytes (8-byte aligned for in-place use) into a graph. With pending
// not nil, it returns once the graph's bounds are checked (graph.FromRawTrusted: every accessor
// stays in range) and sets *pending to a func that waits for the data checksum and the graph's
// rules, still running on all cores, and returns the error this call would otherwise have
// returned (LoadChecking); a broken bound is still reported here, as without pending. After an
// error nothing it started still reads data (the caller may unmap it), and *pending is nil.
func decodeSnapshot(data []byte, path string, pending *func() error) (g *graph.Graph, err error) {
	if len(data) < smg.HeaderSize {
		return nil, corrupt(path, "%d bytes, shorter than the %d-byte header", len(data), smg.HeaderSize)
	}
	if string(data[:8]) != smg.Magic {
		return nil, inputErrorf(path, "not a submatch snapshot (bad magic bytes)")
	}
	le := binary.LittleEndian
	if smg.HeaderSum(data) != le.Uint32(data[smg.HeaderSumAt:]) {
		return nil, corrupt(path, "header checksum mismatch")
	}
	if v := le.Uint32(data[smg.VersionAt:]); v != smg.Version {
		return nil, inputErrorf(path, "snapshot version %d; this build reads version %d (rewrite the snapshot)", v, smg.Version)
	}
	var starts, counts [smg.Arrays]uint64
	off := uint64(smg.HeaderSize)
	size := uint64(len(data))
	for i := range counts {
		counts[i] = smg.Count(data, i)
		if counts[i] > (size-off)/smg.ElemSize[i] {
			return nil, corrupt(path, "%s (%d entries) run past the end of the %d-byte file", smg.Names[i], counts[i], size)
		}
		starts[i] = off
		off = smg.Pad8(off + counts[i]*smg.ElemSize[i])
		if off > size {
			return nil, corrupt(path, "%s run past the end of the %d-byte file", smg.Names[i], size)
		}
	}
	flags := le.Uint32(data[smg.FlagsAt:])
	if flags&^smg.FlagNames != 0 {
		return nil, inputErrorf(path, "snapshot flags %#x: written by a newer build (rewrite the snapshot)", flags)
	}
	namesAt := off
	if flags&smg.FlagNames != 0 {
		end, err := namesEnd(data, off, counts[0], path)
		if err != nil {
			return nil, err
		}
		off = end
	}
	if off != size {
		return nil, corrupt(path, "%d bytes after the last array", size-off)
	}
	// The data checksum runs beside the graph's checks, which are safe on any bytes (bounds
	// first); a mismatch is reported before what they found.
	crc := make(chan uint32, 1)
	go func() { crc <- parallelCRC(data[smg.HeaderSize:]) }()
	checksumOK := sync.OnceValue(func() bool { return <-crc == le.Uint32(data[smg.DataSumAt:]) })
	var rules func() error // the verdict of the rules checked beside the caller (pending), once started
	// An error from here on waits for the checks still reading data, whose verdict comes first
	// as without pending.
	defer func() {
		if err == nil {
			return
		}
		g = nil
		if rules != nil {
			if v := rules(); v != nil {
				err = v
			}
			*pending = nil
		}
		checksumOK()
	}()
	inPlace := nativeLE && uintptr(unsafe.Pointer(unsafe.SliceData(data)))%8 == 0
	arr := func(i int) []byte { return data[starts[i] : starts[i]+counts[i]*smg.ElemSize[i]] }
	var raw graph.Raw
	if inPlace {
		raw = graph.Raw{
			VertexLabels: view[uint32](arr(0), counts[0]),
			Offsets:      view[uint64](arr(1), counts[1]),
			Neighbors:    view[uint32](arr(2), counts[2]),
			EdgeLabels:   view[uint32](arr(3), counts[3]),
			RunOffsets:   view[uint64](arr(4), counts[4]),
			Runs:         view[graph.Run](arr(5), counts[5]),
			OriginalIDs:  view[int64](arr(6), counts[6]),
		}
	} else {
		raw = graph.Raw{
			VertexLabels: decodeU32(arr(0)),
			Offsets:      decodeU64(arr(1)),
			Neighbors:    decodeU32(arr(2)),
			EdgeLabels:   decodeU32(arr(3)),
			RunOffsets:   decodeU64(arr(4)),
			Runs:         decodeRuns(arr(5)),
			OriginalIDs:  decodeI64(arr(6)),
		}
	}
	// The error of a snapshot whose checks found err (nil: none), the checksum's first.
	verdict := func(err error) error {
		if !checksumOK() {
			return corrupt(path, "checksum mismatch")
		}
		if err != nil {
			return &InputError{Path: path, Msg: "corrupt snapshot: " + err.Error(), Err: err}
		}
		return nil
	}
	if pending != nil {
		if g, err = graph.FromRawTrusted(raw); err == nil {
			checked := make(chan error, 1)
			go func(g *graph.Graph) { checked <- g.ValidateRules() }(g)
			rules = sync.OnceValue(func() error { return verdict(<-checked) })
			*pending = rules
		}
	}
	if pending == nil || err != nil {
		// Checked in full now (a broken bound under pending too: the full check's message is
		// the one reported).
		g, err = graph.FromRaw(raw)
		if err := verdict(err); err != nil {
			return nil, err
		}
	}
	if flags&smg.FlagNames != 0 {
		if g, err = g.WithVertexNames(decodeNames(data, namesAt, counts[0])); err != nil {
			return nil, corrupt(path, "%v", err)
		}
	}
	if testHookDecoded != nil {
		if err = testHookDecoded(); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// testHookDecoded, when set (by tests), runs as decodeSnapshot ends, the graph's checks maybe
// still running beside it; an error it returns fails the decoding, later than any bytes can.
var testHookDecoded func() error

// namesEnd checks the names section at off (n names) and returns where it ends.
func namesEnd(data []byte, off, n uint64, path string) (uint64, error) {
	le := binary.LittleEndian
	size := uint64(len(data))
	if size-off < 8 || le.Uint64(data[off:]) != n {
		return 0, corrupt(path, "names section does not hold %d names", n)
	}
	if n+1 > (size-off-8)/8 {
		return 0, corrupt(path, "names section runs past the end of the file")
	}
	base := off + 8 + 8*(n+1)
	prev := uint64(0)
	for i := uint64(0); i <= n; i++ {
		o := le.Uint64(data[off+8+8*i:])
		if o < prev || (i == 0 && o != 0) || o > size-base {
			return 0, corrupt(path, "names section offsets out of order or range")
		}
		prev = o
	}
	return (base + prev + 7) &^ 7, nil
}

// decodeNames copies the n names of a checked names section at off.
func decodeNames(data []byte, off, n uint64) []string {
	le := binary.LittleEndian
	base := off + 8 + 8*(n+1)
	names := make([]string, n)
	for i := range names {
		lo, hi := le.Uint64(data[off+8+8*uint64(i):]), le.Uint64(data[off+16+8*uint64(i):])
		names[i] = string(data[base+lo : base+hi])
	}
	return names
}

// view reinterprets aligned little-endian bytes as n elements of E (nil when n is 0).
func view[E any](b []byte, n uint64) []E {
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*E)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

func decodeU32(b []byte) []uint32 {
	if len(b) == 0 {
		return nil
	}
	s := make([]uint32, len(b)/4)
	for i := range s {
		s[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return s
}

func decodeU64(b []byte) []uint64 {
	if len(b) == 0 {
		return nil
	}
	s := make([]uint64, len(b)/8)
	for i := range s {
		s[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	return s
}

func decodeI64(b []byte) []int64 {
	if len(b) == 0 {
		return nil
	}
	s := make([]int64, len(b)/8)
	for i := range s {
		s[i] = int64(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return s
}

func decodeRuns(b []byte) []graph.Run {
	if len(b) == 0 {
		return nil
	}
	le := binary.LittleEndian
	s := make([]graph.Run, len(b)/16)
	for i := range s {
		s[i] = graph.Run{VertexLabel: le.Uint32(b[16*i:]), EdgeLabel: le.Uint32(b[16*i+4:]), Start: le.Uint64(b[16*i+8:])}
	}
	return s
}

// WriteSnapshot writes g to path in the .smg format (through a temporary file renamed into
// place, so a reader never sees a partial snapshot), with the replaced file's mode (a new
// one: 0666 less the umask).
func WriteSnapshot(path string, g *graph.Graph) error {
	if err := writeAtomic(path, true, func(w io.Writer) error { return writeSnapshot(w, g) }); err != nil {
		return fmt.Errorf("write snapshot: %w", err)
	}
	return nil
}

// writeSnapshot writes g's snapshot to w: the arrays are checksummed first, so that the header
// can go first on a stream.
func writeSnapshot(out io.Writer, g *graph.Graph) error {
	raw := g.Raw()
	arrays := [smg.Arrays][]byte{
		bytesOf(raw.VertexLabels, 4, func(b []byte, i int) { binary.LittleEndian.PutUint32(b, raw.VertexLabels[i]) }),
		bytesOf(raw.Offsets, 8, func(b []byte, i int) { binary.LittleEndian.PutUint64(b, raw.Offsets[i]) }),
		bytesOf(raw.Neighbors, 4, func(b []byte, i int) { binary.LittleEndian.PutUint32(b, raw.Neighbors[i]) }),
		bytesOf(raw.EdgeLabels, 4, func(b []byte, i int) { binary.LittleEndian.PutUint32(b, raw.EdgeLabels[i]) }),
		bytesOf(raw.RunOffsets, 8, func(b []byte, i int) { binary.LittleEndian.PutUint64(b, raw.RunOffsets[i]) }),
		bytesOf(raw.Runs, 16, func(b []byte, i int) {
			r := raw.Runs[i]
			binary.LittleEndian.PutUint32(b, r.VertexLabel)
			binary.LittleEndian.PutUint32(b[4:], r.EdgeLabel)
			binary.LittleEndian.PutUint64(b[8:], r.Start)
		}),
		bytesOf(raw.OriginalIDs, 8, func(b []byte, i int) { binary.LittleEndian.PutUint64(b, uint64(raw.OriginalIDs[i])) }),
	}
	counts := [smg.Arrays]int{len(raw.VertexLabels), len(raw.Offsets), len(raw.Neighbors), len(raw.EdgeLabels),
		len(raw.RunOffsets), len(raw.Runs), len(raw.OriginalIDs)}
	var pad [8]byte
	// The data after the header: each array, then zeros to the next multiple of 8 bytes.
	data := make([][]byte, 0, 2*len(arrays)+1)
	for _, a := range arrays {
		data = append(data, a, pad[:(8-len(a)%8)%8])
	}
	var names []byte // the names section, if any
	if g.HasVertexNames() {
		vn := g.VertexNames()
		names = binary.LittleEndian.AppendUint64(names, uint64(len(vn)))
		var o uint64
		names = binary.LittleEndian.AppendUint64(names, 0)
		for _, s := range vn {
			o += uint64(len(s))
			names = binary.LittleEndian.AppendUint64(names, o)
		}
		for _, s := range vn {
			names = append(names, s...)
		}
		names = append(names, pad[:(8-len(names)%8)%8]...)
	}
	data = append(data, names)
	// The data's checksum: each piece's on all cores, combined in order (a snapshot of 10^9
	// edges holds tens of GB).
	var sum uint32
	for _, b := range data {
		sum = crcCombine(sum, parallelCRC(b), int64(len(b)))
	}
	var hdr [smg.HeaderSize]byte
	copy(hdr[:], smg.Magic)
	le := binary.LittleEndian
	le.PutUint32(hdr[smg.VersionAt:], smg.Version)
	if names != nil {
		le.PutUint32(hdr[smg.FlagsAt:], smg.FlagNames)
	}
	for i, c := range counts {
		le.PutUint64(hdr[smg.CountsAt+8*i:], uint64(c))
	}
	le.PutUint32(hdr[smg.DataSumAt:], sum)
	le.PutUint32(hdr[smg.HeaderSumAt:], smg.HeaderSum(hdr[:]))
	if f, ok := out.(*os.File); ok {
		return writeAtParallel(f, append([][]byte{hdr[:]}, data...))
	}
	w := bufio.NewWriterSize(out, 1<<20)
	w.Write(hdr[:])
	for _, b := range data {
		w.Write(b) // a write error sticks in w and is returned by Flush
	}
	return w.Flush()
}

// bytesOf returns the little-endian bytes of s: its memory on a little-endian host, else an
// encoded copy (put writes element i into an elem-byte slice).
func bytesOf[E any](s []E, elem int, put func(b []byte, i int)) []byte {
	if len(s) == 0 {
		return nil
	}
	if nativeLE {
		return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*elem)
	}
	b := make([]byte, len(s)*elem)
	for i := range s {
		put(b[i*elem:], i)
	}
	return b
}

// writeAtPiece is how many bytes one goroutine of writeAtParallel writes at a time.
const writeAtPiece = 64 << 20

// writeAtParallel writes parts one after another from f's start, in pieces of writeAtPiece bytes
// at their offsets on all cores: the kernel's copy into the page cache of a snapshot of tens of
// GB takes one core seconds per GB.
func writeAtParallel(f *os.File, parts [][]byte) error {
	type piece struct {
		b   []byte
		off int64
	}
	var pieces []piece
	var off int64
	for _, p := range parts {
		for lo := 0; lo < len(p); lo += writeAtPiece {
			pieces = append(pieces, piece{p[lo:min(lo+writeAtPiece, len(p))], off + int64(lo)})
		}
		off += int64(len(p))
	}
	errs := make([]error, len(pieces))
	par.For(len(pieces), 0, func(i int) { _, errs[i] = f.WriteAt(pieces[i].b, pieces[i].off) })
	return errors.Join(errs...)
}
