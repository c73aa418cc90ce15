package ingest

import (
	"encoding/binary"
	"fmt"

	flatbuffers "github.com/google/flatbuffers/go"
	"github.com/klauspost/compress/zstd"
)

// Decompressing a record batch's buffers before the ipc package sees it.
//
// The ipc package decompresses a zstd body with a streaming decoder that it
// makes for every batch, which decodes on goroutines of its own and
// allocates its window for every buffer: the reading goroutine, which
// bounds a snapshot's decoding, then waits for goroutines that the row
// decoders keep off the processors, and the 100,000-node snapshot left
// 0.36 GB of windows behind. msgReader instead inflates each buffer with
// one synchronous decoder into one body it reuses, marks it uncompressed
// (the format's length prefix of -1) and points the message's buffer
// entries at the new body; the ipc package then copies the buffers as it
// copies uncompressed ones.

// Arrow's Message.fbs, as vtable slots (4 + 2*field id): Message {version;
// header_type; header; bodyLength}; the MessageHeader union's Schema (1),
// DictionaryBatch (2) {id; data: RecordBatch} and RecordBatch (3) {length;
// nodes; buffers: [Buffer]; compression: BodyCompression}; BodyCompression
// {codec (0 LZ4_FRAME, 1 ZSTD)}; struct Buffer {offset: long; length:
// long}.
const (
	fbMessageHeaderType = 6
	fbMessageHeader     = 8
	fbDictionaryData    = 6
	fbBatchBuffers      = 8
	fbBatchCompression  = 10
	fbCompressionCodec  = 4

	headerSchema          = 1
	headerDictionaryBatch = 2
	headerRecordBatch     = 3
	codecZstd             = 1
)

// inflater decompresses the zstd buffers of a message body.
type inflater struct {
	dec  *zstd.Decoder
	body []byte // the last inflated body, reused
}

// inflate returns body with its zstd buffers decompressed and meta's
// buffer entries rewritten to match, or body unchanged when the message
// is no zstd-compressed batch. It checks every buffer entry against the
// body, and each decompressed size against its prefix and max.
func (in *inflater) inflate(meta, body []byte, max int64) (out []byte, err error) {
	defer func() {
		if p := recover(); p != nil { // an offset out of range in meta
			out, err = nil, fmt.Errorf("corrupt message metadata: %s", panicDetail(p))
		}
	}()
	if len(meta) < 8 {
		return body, nil // the ipc package refuses it
	}
	msg := fbTable(meta, flatbuffers.GetUOffsetT(meta))
	o := msg.Offset(fbMessageHeaderType)
	if o == 0 {
		return body, nil
	}
	kind := msg.GetByte(msg.Pos + flatbuffers.UOffsetT(o))
	if kind != headerDictionaryBatch && kind != headerRecordBatch {
		return body, nil
	}
	if o = msg.Offset(fbMessageHeader); o == 0 {
		return body, nil
	}
	rb := fbTable(meta, msg.Indirect(msg.Pos+flatbuffers.UOffsetT(o)))
	if kind == headerDictionaryBatch {
		if o = rb.Offset(fbDictionaryData); o == 0 {
			return body, nil
		}
		rb = fbTable(meta, rb.Indirect(rb.Pos+flatbuffers.UOffsetT(o)))
	}
	if o = rb.Offset(fbBatchCompression); o == 0 {
		return body, nil
	}
	comp := fbTable(meta, rb.Indirect(rb.Pos+flatbuffers.UOffsetT(o)))
	if o := comp.Offset(fbCompressionCodec); o == 0 || comp.GetByte(comp.Pos+flatbuffers.UOffsetT(o)) != codecZstd {
		return body, nil // LZ4, which kplace does not write: the ipc package's
	}
	o = rb.Offset(fbBatchBuffers)
	if o == 0 {
		return body, nil
	}
	vec := rb.Vector(flatbuffers.UOffsetT(o))
	n := rb.VectorLen(flatbuffers.UOffsetT(o))
	if n < 0 || int(vec)+16*n > len(meta) {
		return nil, fmt.Errorf("corrupt message metadata: %d buffers", n)
	}
	// entry returns buffer i's entry in meta and its offset and length.
	entry := func(i int) (e []byte, off, length int64) {
		e = meta[int(vec)+16*i : int(vec)+16*i+16]
		return e, int64(binary.LittleEndian.Uint64(e)), int64(binary.LittleEndian.Uint64(e[8:]))
	}
	// First the new body's size, every entry checked.
	size := int64(0)
	for i := range n {
		_, off, length := entry(i)
		if length == 0 {
			continue
		}
		if off < 0 || length < 8 || off > int64(len(body)) || length > int64(len(body))-off {
			return nil, fmt.Errorf("buffer %d (offset %d, %d bytes) is outside the message body of %d bytes", i, off, length, len(body))
		}
		raw := int64(binary.LittleEndian.Uint64(body[off:]))
		if raw == -1 {
			raw = length - 8
		} else if raw < 0 || raw > max {
			return nil, fmt.Errorf("buffer %d decompresses to %d bytes (corrupt?)", i, raw)
		}
		if size += (8 + raw + 7) &^ 7; size > max {
			return nil, fmt.Errorf("a message body decompressing to more than %d bytes (corrupt?)", max)
		}
	}
	if in.dec == nil {
		if in.dec, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecodeAllCapLimit(true),
			zstd.WithDecoderMaxMemory(uint64(max))); err != nil {
			return nil, err
		}
	}
	if int64(cap(in.body)) < size {
		in.body = make([]byte, size)
	}
	out = in.body[:size]
	pos := int64(0)
	for i := range n {
		e, off, length := entry(i)
		if length == 0 {
			continue
		}
		src := body[off+8 : off+length]
		raw := int64(binary.LittleEndian.Uint64(body[off:]))
		binary.LittleEndian.PutUint64(out[pos:], ^uint64(0)) // -1: not compressed
		dst := out[pos+8 : pos+8 : size]
		if raw == -1 {
			raw = int64(copy(dst[:len(src)], src))
		} else {
			got, err := in.dec.DecodeAll(src, dst[:0:raw])
			if err != nil {
				return nil, fmt.Errorf("buffer %d: %v", i, err)
			}
			if int64(len(got)) != raw {
				return nil, fmt.Errorf("buffer %d decompresses to %d bytes, not the %d its prefix says", i, len(got), raw)
			}
		}
		binary.LittleEndian.PutUint64(e, uint64(pos))
		binary.LittleEndian.PutUint64(e[8:], uint64(8+raw))
		pos += (8 + raw + 7) &^ 7
	}
	return out, nil
}

// close releases the decoder.
func (in *inflater) close() {
	if in.dec != nil {
		in.dec.Close()
		in.dec = nil
	}
}

// fbTable is the table of buf at pos, checked to lie inside it.
func fbTable(buf []byte, pos flatbuffers.UOffsetT) flatbuffers.Table {
	if int(pos) < 0 || int(pos)+4 > len(buf) {
		panic(fmt.Sprintf("table at %d of %d bytes", pos, len(buf)))
	}
	return flatbuffers.Table{Bytes: buf, Pos: pos}
}
