package core

import (
	"encoding/binary"
	"math/bits"
	"slices"
)

// subPart is one sub-partition of GENMAP: the not yet renamed vertices of the current ELP that
// share one share set.
type subPart struct {
	set     []uint64 // share set as a bitset over ELP indices
	size    int      // number of ELPs in set
	members []uint32 // old ids, increasing
}

// GenMap computes GENMAP (Algorithm 2, Section 4.2): a renaming of the n vertices under which
// each ELP's vertices form few intervals of consecutive ids. It repeatedly takes the ELP with the
// most vertices not yet renamed (step 1), splits those vertices into sub-partitions by share set
// (step 2), and renames the sub-partitions contiguously: first the one shared by the most ELPs,
// then each time the one whose share set has the most ELPs in common with the previous one's
// (step 3), until every ELP is done (step 4). Within a sub-partition vertices keep their relative
// order. Ties go to the smaller share set (fewer other ELPs interrupted), then the larger
// sub-partition, then the lower first vertex, so the result is deterministic. Vertices in no ELP
// (isolated vertices) get the last ids, so they never split an interval.
//
// It returns the permutation both ways: newID = oldToNew[oldID], oldID = newToOld[newID].
func GenMap(p *Partitions) (oldToNew, newToOld []uint32) {
	n := len(p.memOff) - 1
	k := p.Len()
	words := (k + 63) / 64
	oldToNew = make([]uint32, n)
	newToOld = make([]uint32, 0, n)
	assigned := make([]bool, n)
	remaining := make([]int, k)
	for e, vs := range p.Vertices {
		remaining[e] = len(vs)
	}
	rename := func(v uint32) {
		oldToNew[v] = uint32(len(newToOld))
		newToOld = append(newToOld, v)
		assigned[v] = true
		for _, e := range p.ShareSet(v) {
			remaining[e]--
		}
	}
	keyBuf := make([]byte, 8*words)
	setBuf := make([]uint64, words)
	for {
		// Step 1: the ELP with the most vertices still to rename.
		cur := -1
		for e, r := range remaining {
			if r > 0 && (cur < 0 || r > remaining[cur]) {
				cur = e
			}
		}
		if cur < 0 {
			break
		}
		// Step 2: sub-partitions by share set.
		var subs []*subPart
		byKey := map[string]*subPart{}
		for _, v := range p.Vertices[cur] {
			if assigned[v] {
				continue
			}
			clear(setBuf)
			for _, e := range p.ShareSet(v) {
				setBuf[e/64] |= 1 << (e % 64)
			}
			for i, w := range setBuf {
				binary.LittleEndian.PutUint64(keyBuf[8*i:], w)
			}
			sp := byKey[string(keyBuf)] // no allocation for the lookup
			if sp == nil {
				sp = &subPart{set: slices.Clone(setBuf), size: len(p.ShareSet(v))}
				byKey[string(keyBuf)] = sp
				subs = append(subs, sp)
			}
			sp.members = append(sp.members, v)
		}
		// Step 3: the sub-partition shared by the most ELPs, then a chain of largest overlaps.
		var prev *subPart
		for len(subs) > 0 {
			best, bestScore := -1, 0
			for i, sp := range subs {
				score := sp.size // first pick: the largest share set
				if prev != nil {
					score = overlap(prev.set, sp.set)
				}
				if best < 0 || score > bestScore || score == bestScore && subPartBefore(sp, subs[best]) {
					best, bestScore = i, score
				}
			}
			prev = subs[best]
			subs[best] = subs[len(subs)-1]
			subs = subs[:len(subs)-1]
			for _, v := range prev.members {
				rename(v)
			}
		}
	}
	for v := range assigned {
		if !assigned[v] {
			rename(uint32(v))
		}
	}
	return oldToNew, newToOld
}

// subPartBefore is GENMAP's tie-break between sub-partitions of equal score.
func subPartBefore(a, b *subPart) bool {
	if a.size != b.size {
		return a.size < b.size
	}
	if len(a.members) != len(b.members) {
		return len(a.members) > len(b.members)
	}
	return a.members[0] < b.members[0]
}

// overlap counts the ELPs two share sets have in common.
func overlap(a, b []uint64) int {
	c := 0
	for i := range a {
		c += bits.OnesCount64(a[i] & b[i])
	}
	return c
}
