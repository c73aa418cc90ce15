package ingest

import (
	"bytes"
	"testing"
)

func BenchmarkWSOnly(b *testing.B) {
	line := append(bytes.Repeat([]byte{' '}, 22), 'x', '\n')
	buf := bytes.Repeat(line, 117)
	b.SetBytes(int64(len(buf)))
	for b.Loop() {
		p := &jp{b: buf}
		for p.i < len(buf) {
			p.ws()
			p.i++
		}
	}
}

var sink int

func BenchmarkCalib(b *testing.B) {
	buf := bytes.Repeat([]byte("abcdefgh"), 350)
	b.SetBytes(int64(len(buf)))
	for b.Loop() {
		s := 0
		for _, c := range buf {
			s += int(c)
		}
		sink = s
	}
}
