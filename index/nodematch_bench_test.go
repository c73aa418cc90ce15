package index

import (
	"fmt"
	"testing"
)

// BenchmarkTermNodes measures a node selector term's node set over
// 100,000 nodes: a requirement on a key of one value per node (asked per
// listed value and once for the others), one on a key of five values, and
// a DaemonSet pod's term (a named node, whose labels are asked directly).
func BenchmarkTermNodes(b *testing.B) {
	nodes := make([]Node, 100000)
	for i := range nodes {
		name := fmt.Sprintf("node-%d", i)
		nodes[i] = Node{Name: name, Labels: map[string]string{"kubernetes.io/hostname": name, "zone": fmt.Sprint("z", i%5)}}
	}
	c, err := NodeIndex(nodes)
	if err != nil {
		b.Fatal(err)
	}
	expr := func(k, op string, v ...string) []Requirement { return []Requirement{{Key: k, Operator: op, Values: v}} }
	for _, tc := range []struct {
		name string
		term NodeSelectorTerm
	}{
		{"hostname-NotIn", NodeSelectorTerm{MatchExpressions: expr("kubernetes.io/hostname", SelNotIn, "node-7")}},
		{"hostname-In", NodeSelectorTerm{MatchExpressions: expr("kubernetes.io/hostname", SelIn, "node-7", "node-9")}},
		{"zone-In", NodeSelectorTerm{MatchExpressions: expr("zone", SelIn, "z1")}},
		{"daemonset", NodeSelectorTerm{MatchFields: expr(FieldNodeName, SelIn, "node-77"), MatchExpressions: expr("zone", SelIn, "z2")}},
	} {
		b.Run("nodes=100000/"+tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c.TermNodes(&tc.term)
			}
		})
	}
}
