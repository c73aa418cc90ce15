package ingest

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// TestParallelKeepsHeldItems loads lists whose items come before their
// kind, and lists nested in a List, on workers that reuse their parse
// scratch (the object, its resource entries, the batch's results) from
// item to item: the held items (their resources and tolerations) must
// read as the sequential reader reads them.
func TestParallelKeepsHeldItems(t *testing.T) {
	pod := func(b *strings.Builder, i int) {
		if i%2 == 1 {
			b.WriteString(`{"apiVersion":"v1","kind":"Pod",`) // converted by a worker, held by the merger
		} else {
			b.WriteString(`{`)
		}
		fmt.Fprintf(b, `"metadata":{"name":"p%d","namespace":"ns","uid":"u%d"},"spec":{"containers":[`+
			`{"name":"a","image":"img","resources":{"requests":{"cpu":"%dm","memory":"%dMi","example.com/gpu":"%d"},`+
			`"limits":{"cpu":"%dm","memory":"%dMi","example.com/gpu":"%d","ephemeral-storage":"1Gi"}}}],`+
			`"overhead":{"cpu":"%dm"},"tolerations":[{"key":"k%d","operator":"Exists"},{"key":"t","value":"v%d","effect":"NoSchedule"}]}}`,
			i, i, 100+i, 64+i, i%3, 200+i, 128+i, i%3, i%7, i, i)
	}
	var b strings.Builder
	b.WriteString(`{"apiVersion":"v1","items":[`)
	for i := 0; i < 3000; i++ {
		if i > 0 {
			b.WriteString(",\n")
		}
		pod(&b, i)
	}
	b.WriteString("],\"kind\":\"PodList\"}\n" + `{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"PodList","items":[`)
	for i := 3000; i < 3400; i++ {
		if i > 3000 {
			b.WriteString(",")
		}
		pod(&b, i)
	}
	b.WriteString(`]}]}`)
	data := []byte(b.String())
	seq, err := loadBytes(data, Options{Parallelism: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(seq.Pods) != 3400 {
		t.Fatalf("sequential read %d pods, want 3400", len(seq.Pods))
	}
	par, err := loadBytes(data, Options{Parallelism: 3})
	if err != nil {
		t.Fatal(err)
	}
	if want, got := dump(t, seq), dump(t, par); !bytes.Equal(want, got) {
		t.Fatalf("parallel read differs from sequential: %s", firstDiff(want, got))
	}
}
