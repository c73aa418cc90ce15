package ingest

import (
	"fmt"
	"testing"
)

func BenchmarkParseItem(b *testing.B) {
	item := []byte(fmt.Sprintf(podTemplate, 1, 2, 3, 4, 5, 6))
	b.SetBytes(int64(len(item)))
	for b.Loop() {
		p := &jp{b: item}
		var o wireObject
		if err := p.run(func() { p.object(&o) }); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWS(b *testing.B) {
	item := []byte(fmt.Sprintf(podTemplate, 1, 2, 3, 4, 5, 6))
	b.SetBytes(int64(len(item)))
	for b.Loop() {
		p := &jp{b: item}
		p.skip()
	}
}
