package formats

import (
	"bytes"
	"math"
)

// The fast parsers read a block of whole lines in one pass, byte by byte, into arrays of ids
// (fastLines), for the plain lines that make up nearly every large file: unsigned decimal ids
// below 2^32, the usual separators, no self-loops. Any other line (a sign, a word, a large id,
// a self-loop, a short line, a syntax error) makes them give up on the block, which is then
// parsed line by line by the format's line parser and loader, whose rules and messages are
// the reference: a fast parser must accept only lines those would read the same way.

// byteClass classifies bytes for the fast parsers.
var byteClass = func() (c [256]uint8) {
	for _, b := range []byte{' ', '\t', '\r', '\v', '\f'} {
		c[b] = classBlank
	}
	c[','] = classComma
	c['\n'] = classNewline
	c['#'] = classHash
	for b := '0'; b <= '9'; b++ {
		c[b] = classDigit
	}
	return c
}()

const (
	classOther   uint8 = 0
	classBlank   uint8 = 1
	classComma   uint8 = 2
	classNewline uint8 = 4
	classHash    uint8 = 8
	classDigit   uint8 = 16
)

// fastUint parses the unsigned decimal number at text[i:] (up to 10 digits, below 2^32),
// returning it and the index after it; ok is false when there is no such number there.
func fastUint(text []byte, i int) (v uint32, j int, ok bool) {
	var x uint64
	j = i
	for j < len(text) && j-i <= 10 {
		d := text[j] - '0'
		if d > 9 {
			break
		}
		x = x*10 + uint64(d)
		j++
	}
	if j == i || j-i > 10 || x > math.MaxUint32 {
		return 0, j, false
	}
	return uint32(x), j, true
}

// fastEdges is the fast parser of edge lists (see edgelist.go): lines `u v [label]` with
// blanks or commas between the fields, a comment from a '#' on, comment lines starting with
// '#' or '%' after blanks.
//
// out.pairs has room for an edge a line: the parsers never grow it (it may be a part of the
// builder's array, see cutWhole).
func fastEdges(text []byte, out *fastLines) bool {
	pairs, labels := out.pairs[:0], out.labels[:0]
	labelled := false
	lo, hi := uint32(math.MaxUint32), uint32(0)
	firstData, firstN := -1, 0
	var f [3]uint32
	line := 0 // lines before the current, counted until the first data line
	// end is where the last newline is: the lines before it end with one, so that the plain
	// line's loops need not check for the end of the text (a digit loop stops at the newline
	// at the latest).
	end := bytes.LastIndexByte(text, '\n')
	for i := 0; i < len(text); {
		// The plain line, `u v` with one blank or comma between: straight through.
		for i < end && !labelled {
			u, v, k := plainEdge(text, i, classBlank|classComma)
			if k < 0 {
				break
			}
			if firstData < 0 {
				firstData, firstN = line, 2
			}
			pairs = append(pairs, u, v)
			lo, hi = min(lo, u, v), max(hi, u, v)
			i = k
		}
		if i == len(text) {
			break
		}
		// The start of a line: blanks, then a newline (a blank line), a comment, or data.
		for i < len(text) && byteClass[text[i]] == classBlank {
			i++
		}
		if i == len(text) {
			break
		}
		switch c := text[i]; {
		case c == '\n':
			i++
			line++
			continue
		case c == '#' || c == '%':
			for i < len(text) && text[i] != '\n' {
				i++
			}
			i++
			line++
			continue
		}
		k := 0
	fields:
		for i < len(text) {
			switch byteClass[text[i]] {
			case classBlank, classComma:
				i++
			case classNewline, classHash:
				break fields
			case classDigit:
				if k == len(f) {
					return false
				}
				v, j, ok := fastUint(text, i)
				if !ok || (j < len(text) && (byteClass[text[j]] == classOther || byteClass[text[j]] == classDigit)) {
					return false
				}
				f[k] = v
				k++
				i = j
			default:
				return false
			}
		}
		for i < len(text) && text[i] != '\n' { // a comment from '#' on
			i++
		}
		i++
		if k < 2 || f[0] == f[1] {
			return false
		}
		if firstData < 0 {
			firstData, firstN = line, k
		}
		line++
		pairs = append(pairs, f[0], f[1])
		lo, hi = min(lo, f[0], f[1]), max(hi, f[0], f[1])
		labels, labelled = addLabel(labels, labelled, len(pairs)/2, f, k)
	}
	*out = fastLines{pairs: pairs, labels: labels, labelled: labelled, minID: lo, maxID: hi,
		vids: out.vids[:0], vlabels: out.vlabels[:0], dataLines: len(pairs) / 2, firstData: uint32(max(firstData, 0)), firstN: firstN}
	return true
}

// fastVE returns the fast parser of the `v`/`e` lines of the sm and gsi formats (see sm.go):
// `v id label [more fields, up to maxVertexFields]` and `e u v [label]`, fields separated by
// blanks, comment lines starting with a byte of comments after blanks; every `v` line of a
// block before its first `e` line.
func fastVE(comments string, maxVertexFields int) fastParseFunc {
	hash := comments == "#"
	if comments != "" && comments != "#" {
		panic("fastVE: comments must be \"\" or \"#\"")
	}
	return func(text []byte, out *fastLines) bool {
		pairs, labels, vids, vlabels := out.pairs[:0], out.labels[:0], out.vids[:0], out.vlabels[:0]
		labelled := false
		lo, hi := uint32(math.MaxUint32), uint32(0)
		firstData, firstN, data := -1, 0, 0
		var f [3]uint32
		line := 0
		end := bytes.LastIndexByte(text, '\n') // as in fastEdges
		for i := 0; i < len(text); {
			// The plain lines, `e u v` and (before the first edge) `v id label [degree]` with
			// single blanks: straight through.
			for i+1 < end && text[i+1] == ' ' && !labelled && firstData >= 0 {
				if text[i] == 'e' {
					u, v, k := plainEdge(text, i+2, classBlank)
					if k < 0 {
						break
					}
					pairs = append(pairs, u, v)
					lo, hi = min(lo, u, v), max(hi, u, v)
					i = k
				} else if text[i] == 'v' && len(pairs) == 0 {
					id, l, k := plainVertex(text, i+2, maxVertexFields)
					if k < 0 {
						break
					}
					vids = append(vids, id)
					vlabels = append(vlabels, l)
					i = k
				} else {
					break
				}
				data++
			}
			for i < len(text) && byteClass[text[i]] == classBlank {
				i++
			}
			if i == len(text) {
				break
			}
			kind := text[i]
			switch {
			case kind == '\n':
				i++
				line++
				continue
			case kind == '#' && hash:
				for i < len(text) && text[i] != '\n' {
					i++
				}
				i++
				line++
				continue
			case kind != 'v' && kind != 'e':
				return false
			}
			i++
			if i == len(text) || byteClass[text[i]] != classBlank {
				return false
			}
			k := 0
		fields:
			for i < len(text) {
				switch byteClass[text[i]] {
				case classBlank:
					i++
				case classNewline:
					break fields
				case classDigit:
					if k == len(f) {
						return false
					}
					v, j, ok := fastUint(text, i)
					if !ok || (j < len(text) && byteClass[text[j]] != classBlank && byteClass[text[j]] != classNewline) {
						return false
					}
					f[k] = v
					k++
					i = j
				default:
					return false
				}
			}
			i++ // the newline
			if firstData < 0 {
				firstData, firstN = line, k
			}
			line++
			data++
			if kind == 'v' {
				if k < 2 || k > maxVertexFields || len(pairs) > 0 {
					return false
				}
				vids = append(vids, f[0])
				vlabels = append(vlabels, f[1])
				continue
			}
			if k < 2 || f[0] == f[1] {
				return false
			}
			pairs = append(pairs, f[0], f[1])
			lo, hi = min(lo, f[0], f[1]), max(hi, f[0], f[1])
			labels, labelled = addLabel(labels, labelled, len(pairs)/2, f, k)
		}
		*out = fastLines{pairs: pairs, labels: labels, labelled: labelled, minID: lo, maxID: hi,
			vids: vids, vlabels: vlabels, dataLines: data, firstData: uint32(max(firstData, 0)), firstN: firstN}
		return true
	}
}

// plainUint parses the decimal number of 1 to 9 digits at text[i:], which a newline ends at the
// latest, and returns it and the index after it, or -1 when there is no such number.
func plainUint(text []byte, i int) (uint32, int) {
	v, n := uint32(0), 0
	for _, c := range text[i:] { // the newline ends it: a range only spares the index checks
		d := c - '0'
		if d > 9 {
			break
		}
		v = v*10 + uint32(d)
		n++
	}
	if n == 0 || n > 9 {
		return 0, -1
	}
	return v, i + n
}

// addLabel records the label of the edges-th edge, whose line had k fields f (a label when k is
// 3): once a line has one, labels holds one an edge (0 for the lines without).
func addLabel(labels []uint32, labelled bool, edges int, f [3]uint32, k int) ([]uint32, bool) {
	if k == 3 && !labelled {
		labelled = true
		labels = append(labels[:0], make([]uint32, edges-1)...)
	}
	if labelled {
		l := uint32(0)
		if k == 3 {
			l = f[2]
		}
		labels = append(labels, l)
	}
	return labels, labelled
}

// plainVertex parses the plain vertex line `id label [degree]` at text[i:] (after its `v `),
// of at most fields numbers of 1 to 9 digits with one blank between them and a newline (after
// an optional carriage return) at the end, which text must hold: it returns the id, the label
// and the index after the newline, or -1 when the line is not such a vertex.
func plainVertex(text []byte, i, fields int) (id, vl uint32, next int) {
	id, j := plainUint(text, i)
	if j < 0 || text[j] != ' ' {
		return 0, 0, -1
	}
	vl, k := plainUint(text, j+1)
	if k < 0 {
		return 0, 0, -1
	}
	if text[k] == ' ' && fields >= 3 {
		if _, k = plainUint(text, k+1); k < 0 {
			return 0, 0, -1
		}
	}
	if k = lineEnd(text, k); k < 0 {
		return 0, 0, -1
	}
	return id, vl, k
}

// plainEdge parses the plain edge `u v` at text[i:], its ids of 1 to 9 digits with one separator
// (a byte of class sep) between them, and a newline (after an optional carriage return) at the
// end, which text must hold: it returns the ids and the index after the newline, or -1 when
// the line is not such an edge (or a self-loop).
func plainEdge(text []byte, i int, sep uint8) (u, v uint32, next int) {
	u, j := plainUint(text, i)
	if j < 0 || byteClass[text[j]]&sep == 0 {
		return 0, 0, -1
	}
	v, k := plainUint(text, j+1)
	if k < 0 || u == v {
		return 0, 0, -1
	}
	if k = lineEnd(text, k); k < 0 {
		return 0, 0, -1
	}
	return u, v, k
}

// lineEnd returns the index after the newline at text[k] (after an optional carriage return),
// or -1 when the line does not end there.
func lineEnd(text []byte, k int) int {
	if text[k] == '\r' {
		k++
	}
	if text[k] != '\n' {
		return -1
	}
	return k + 1
}
