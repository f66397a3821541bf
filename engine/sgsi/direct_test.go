package sgsi

// directPatterns are the direct count's test patterns: triangles and wedges (rows generated from
// edges; an induced wedge reads a non-edge), 4-cliques (rows of a table), a labelled diamond,
// then 4-cycles and a tailed triangle.
var directPatterns = []string{
	"(a)-(b)-(c)-(a)",
	"(a)-(b)-(c)",
	"(a)-(b)-(c)-(d)-(a), (a)-(c), (b)-(d)",
	"(a:0)-(b:1)-(c:1)-(a), (a)-(d:1)-(b)",
	"(a)-(b)-(c)-(d)-(a)",
	"(a)-(b)-(c)-(a), (c)-(d)",
}
