package partition

import (
	"fmt"
	"math/rand/v2"
)

// Cluster coarsening (Options.Coarsening ClusterCoarsening), after the size-constrained label
// propagation of KaHIP (Meyerhenke, Sanders and Schulz, 2014) and the cluster coarsening of
// Mt-KaHyPar: a coarse vertex merges a cluster of fine vertices, not at most two. On power-law
// graphs pair matching merges a hub with one neighbour a level, so a level keeps most of the
// edges and coarsening takes many levels, each costing a scan of about the whole graph; a hub's
// cluster takes many of its neighbours at once, and their edges to it vanish.
//
// A level: every vertex starts alone; in rounds over the vertices by ascending degree (random among
// equal degrees: SCLaP's order, in which the leaves choose first and gather round their hubs; a
// random order cut 1-1.5 points more of R-MAT 18's edges at a quarter), a vertex joins the
// neighbouring cluster it shares the most edge weight with (the lighter one on ties) when that is
// more than it shares with its own and the cluster stays within the weight bound, until fewer than
// 1 vertex in 100 moves or the clusters are a fraction 1/clusterShrink of the vertices. Then
// vertices of small degree left alone and sharing a neighbour are grouped (the 2-hop matching's
// clusters: a hub's leaves whose hub's cluster is full), and so are isolated vertices, each group
// within the bound too.

// Coarsening selects how Multilevel coarsens a level.
type Coarsening int

const (
	// DefaultCoarsening is ClusterCoarsening.
	DefaultCoarsening Coarsening = iota
	// PairCoarsening is heavy-edge matching with 2-hop matching (METIS's): a coarse vertex
	// merges at most two fine ones.
	PairCoarsening
	// ClusterCoarsening is size-constrained label-propagation clustering (cluster.go).
	ClusterCoarsening
)

// String names the coarsening.
func (c Coarsening) String() string {
	switch c {
	case DefaultCoarsening:
		return "default"
	case PairCoarsening:
		return "pairs"
	case ClusterCoarsening:
		return "clusters"
	}
	return fmt.Sprintf("Coarsening(%d)", int(c))
}

// ParseCoarsening is the inverse of Coarsening.String.
func ParseCoarsening(s string) (Coarsening, error) {
	for _, c := range []Coarsening{DefaultCoarsening, PairCoarsening, ClusterCoarsening} {
		if s == c.String() {
			return c, nil
		}
	}
	return 0, fmt.Errorf("coarsening %q: want pairs, clusters or default", s)
}

// resolve is c with the default made explicit.
func (c Coarsening) resolve() Coarsening {
	if c == DefaultCoarsening {
		return ClusterCoarsening
	}
	return c
}

// Label propagation's limits a level.
const (
	// clusterRounds is the most rounds over the vertices.
	clusterRounds = 4
	// clusterShrink: clustering stops once the clusters are this many times fewer than the
	// vertices (levels that shrink too fast leave the uncoarsening few levels to refine at).
	clusterShrink = 4
)

// clusterCoarsen clusters w's vertices (weights at most maxVW) and returns the coarse graph and
// the map fine -> coarse; large graphs are contracted on threads goroutines (the same coarse
// graph).
func (w *wgraph) clusterCoarsen(rng *rand.Rand, maxVW uint64, threads int) (*wgraph, []uint32) {
	cl := w.clusters(rng, maxVW)
	// Coarse ids in the order of the clusters' lowest members.
	id := make([]uint32, w.n())
	for i := range id {
		id[i] = unset
	}
	nc := uint32(0)
	for v, c := range cl {
		if id[c] == unset {
			id[c] = nc
			nc++
		}
		cl[v] = id[c]
	}
	return w.contract(cl, int(nc), threads), cl
}

// clusters is a cluster of every vertex of w (a vertex id naming it), each cluster's vertices
// weighing at most maxVW together (a vertex heavier than that alone excepted).
func (w *wgraph) clusters(rng *rand.Rand, maxVW uint64) []uint32 {
	n := w.n()
	cl := make([]uint32, n)
	size := make([]uint32, n) // vertices of each cluster
	cw := make([]uint64, n)   // weight of each cluster
	for v := range cl {
		cl[v], size[v], cw[v] = uint32(v), 1, w.vw[v]
	}
	order := w.degreeOrder(rng)
	join := func(v, c uint32) {
		old := cl[v]
		cw[old] -= w.vw[v]
		size[old]--
		cl[v] = c
		cw[c] += w.vw[v]
		size[c]++
	}
	conn := make([]uint64, n) // v's edge weight to each cluster, zero between vertices
	var touched []uint32
	clusters, enough := n, n/clusterShrink
	for range clusterRounds {
		moved := 0
		for _, v := range order {
			if clusters <= enough {
				break
			}
			own := cl[v]
			touched = touched[:0]
			for j := w.xadj[v]; j < w.xadj[v+1]; j++ {
				c := cl[w.adj[j]]
				if conn[c] == 0 {
					touched = append(touched, c)
				}
				conn[c] += w.ew[j]
			}
			best, bestConn := own, conn[own]
			for _, c := range touched {
				if c == own || cw[c]+w.vw[v] > maxVW {
					continue
				}
				if conn[c] > bestConn || conn[c] == bestConn && best != own && cw[c] < cw[best] {
					best, bestConn = c, conn[c]
				}
			}
			for _, c := range touched {
				conn[c] = 0
			}
			if best != own {
				if size[own] == 1 {
					clusters--
				}
				join(v, best)
				moved++
			}
		}
		if moved < n/100+1 || clusters <= enough {
			break
		}
	}
	// Vertices left alone: those of small degree that share a neighbour are grouped (a hub's
	// leaves whose hub's cluster is full), then the isolated ones. group is the open group.
	alone := func(x uint32) bool { return size[cl[x]] == 1 }
	group := unset
	add := func(x uint32) {
		if group == unset || cw[group]+w.vw[x] > maxVW {
			group = cl[x] // x opens the next group
		} else {
			join(x, group)
		}
	}
	for _, u := range order {
		group = unset
		for j := w.xadj[u]; j < w.xadj[u+1]; j++ {
			if x := w.adj[j]; x != u && alone(x) && w.xadj[x+1]-w.xadj[x] <= twoHopDegree {
				add(x)
			}
		}
	}
	group = unset
	for _, v := range order {
		if w.xadj[v+1] == w.xadj[v] && alone(v) {
			add(v)
		}
	}
	return cl
}

// degreeOrder is w's vertices by ascending degree, in a random order within a degree (a counting
// sort of a random permutation).
func (w *wgraph) degreeOrder(rng *rand.Rand) []uint32 {
	n := w.n()
	maxDeg := 0
	for v := range n {
		maxDeg = max(maxDeg, w.xadj[v+1]-w.xadj[v])
	}
	at := make([]int, maxDeg+2) // at[d+1]: the vertices of degree d, then where they start
	for v := range n {
		at[w.xadj[v+1]-w.xadj[v]+1]++
	}
	for d := range maxDeg + 1 {
		at[d+1] += at[d]
	}
	order := make([]uint32, n)
	for _, v := range rng.Perm(n) {
		d := w.xadj[v+1] - w.xadj[v]
		order[at[d]] = uint32(v)
		at[d]++
	}
	return order
}
