package ingest

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v15/arrow/ipc"
	"github.com/apache/arrow/go/v15/arrow/memory"
	flatbuffers "github.com/google/flatbuffers/go"
	"github.com/klauspost/compress/zstd"
)

// rawMessage is one IPC message of a snapshot as the file holds it.
type rawMessage struct {
	typ        ipc.MessageType
	meta, body []byte
}

// rawMessages splits a snapshot into its messages, end-of-stream markers
// apart, without the msgReader.
func rawMessages(t *testing.T, data []byte) []rawMessage {
	t.Helper()
	var out []rawMessage
	for p := 0; p < len(data); {
		size := int(binary.LittleEndian.Uint32(data[p:]))
		p += 4
		if size == 0xffffffff {
			size = int(binary.LittleEndian.Uint32(data[p:]))
			p += 4
		}
		if size == 0 {
			continue
		}
		meta := data[p : p+size]
		p += size
		m := ipc.NewMessage(memory.NewBufferBytes(meta), memory.NewBufferBytes(nil))
		n := int(m.BodyLen())
		out = append(out, rawMessage{m.Type(), slicesClone(meta), slicesClone(data[p : p+n])})
		p += n
	}
	return out
}

// batchBuffers returns the buffer entries (offset, length) of a record
// batch message's metadata, and where the entries lie in meta.
func batchBuffers(t *testing.T, meta []byte) (entries [][2]int64, at int) {
	t.Helper()
	msg := flatbuffers.Table{Bytes: meta, Pos: flatbuffers.GetUOffsetT(meta)}
	rb := flatbuffers.Table{Bytes: meta, Pos: msg.Indirect(msg.Pos + flatbuffers.UOffsetT(msg.Offset(fbMessageHeader)))}
	o := flatbuffers.UOffsetT(rb.Offset(fbBatchBuffers))
	vec, n := int(rb.Vector(o)), rb.VectorLen(o)
	for i := range n {
		e := meta[vec+16*i:]
		entries = append(entries, [2]int64{int64(binary.LittleEndian.Uint64(e)), int64(binary.LittleEndian.Uint64(e[8:]))})
	}
	return entries, vec
}

// TestInflate: the zstd buffers of a pods record batch come out as the
// format's uncompressed buffers (prefix -1) holding what each
// decompresses to, and the entries point at them; a wrong size prefix,
// an entry outside the body or a body past the limit is an error.
func TestInflate(t *testing.T) {
	data, _ := goldenSnapshot(t)
	var batch *rawMessage
	msgs := rawMessages(t, data)
	for i := range msgs {
		if msgs[i].typ == ipc.MessageRecordBatch && len(msgs[i].body) > 256 {
			batch = &msgs[i]
			break
		}
	}
	if batch == nil {
		t.Fatal("no record batch with a body")
	}
	dec, err := zstd.NewReader(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	before, _ := batchBuffers(t, batch.meta)

	meta := slicesClone(batch.meta)
	var in inflater
	out, err := in.inflate(meta, slicesClone(batch.body), 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	after, _ := batchBuffers(t, meta)
	compressed := 0
	for i, e := range before {
		if e[1] == 0 {
			continue
		}
		src := batch.body[e[0] : e[0]+e[1]]
		want := src[8:]
		if int64(binary.LittleEndian.Uint64(src)) != -1 {
			compressed++
			if want, err = dec.DecodeAll(src[8:], nil); err != nil {
				t.Fatalf("buffer %d: %v", i, err)
			}
		}
		a := after[i]
		if a[0]%8 != 0 || a[1] != int64(8+len(want)) || a[0]+a[1] > int64(len(out)) {
			t.Fatalf("buffer %d: entry %v for %d bytes in a body of %d", i, a, len(want), len(out))
		}
		if got := out[a[0] : a[0]+a[1]]; int64(binary.LittleEndian.Uint64(got)) != -1 || !bytes.Equal(got[8:], want) {
			t.Fatalf("buffer %d: not the decompressed bytes after a -1 prefix", i)
		}
	}
	if compressed == 0 {
		t.Fatal("no compressed buffer in the batch")
	}

	// The first compressed buffer, corrupted three ways.
	first := -1
	for i, e := range before {
		if e[1] > 8 && int64(binary.LittleEndian.Uint64(batch.body[e[0]:])) != -1 {
			first = i
			break
		}
	}
	e := before[first]
	for _, tc := range []struct {
		name  string
		spoil func(meta, body []byte)
		max   int64
		want  string
	}{
		{"prefix one byte short", func(_, body []byte) {
			p := body[e[0]:]
			binary.LittleEndian.PutUint64(p, binary.LittleEndian.Uint64(p)-1)
		}, 1 << 30, "buffer"},
		{"prefix one byte long", func(_, body []byte) {
			p := body[e[0]:]
			binary.LittleEndian.PutUint64(p, binary.LittleEndian.Uint64(p)+1)
		}, 1 << 30, "decompresses to"},
		{"entry past the body", func(meta, body []byte) {
			_, at := batchBuffers(t, meta)
			binary.LittleEndian.PutUint64(meta[at+16*first:], uint64(len(body)-4))
		}, 1 << 30, "outside the message body"},
		{"over the limit", func(_, _ []byte) {}, 64, "more than 64 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			meta, body := slicesClone(batch.meta), slicesClone(batch.body)
			tc.spoil(meta, body)
			var in inflater
			_, err := in.inflate(meta, body, tc.max)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one saying %q", err, tc.want)
			}
		})
	}

	// A message that is no batch passes as it is.
	for _, m := range msgs {
		if m.typ == ipc.MessageSchema {
			var in inflater
			body := []byte{1, 2, 3}
			if out, err := in.inflate(slicesClone(m.meta), body, 1<<30); err != nil || &out[0] != &body[0] {
				t.Fatalf("schema message: %v, body replaced", err)
			}
			return
		}
	}
	t.Fatal("no schema message")
}
