package ingest

import (
	"math/bits"
)

// structScan finds where a JSON object or array ends by its structure
// alone: brackets outside strings, strings closed by an unescaped quote.
// Most of a full object's bytes are in values kplace skips (managedFields,
// status, env, probes) and in the items a stream cuts out before parsing,
// so both are scanned 64 bytes at a time, as simdjson's first stage does:
// the block's quotes, backslashes and brackets become bit masks
// (blockMasks: vector compares on amd64), the bytes a lone backslash run
// escapes are taken out of the quotes, which bytes lie in a string is the
// prefix XOR of the quotes, and a block whose closing brackets cannot
// bring the depth to zero moves it by two popcounts (when they outnumber
// the depth, the lowest depth they reach is found four bytes at a time
// from a table, lowest). A block with a
// backslash outside a string (invalid JSON, where a backslash escapes
// nothing) is stepped byte by byte.
//
// The scan can stop at a block and resume when more input arrives (a
// stream's window); its state is the struct.
type structScan struct {
	depth int
	inStr uint64 // all ones inside a string, else 0
	esc   bool   // the last byte was a backslash escaping the next one

	// kinds: match each closing bracket against its opening one and count
	// depth from base against maxDepth (errors, reported by the caller);
	// every bracket is then visited.
	kinds bool
	base  int
	stack uint64 // bit d: the bracket opened at depth d (< 64) is '['

	errAt  int    // the index of the offending bracket (scan ended with scanErr)
	errMsg string // "mismatched" or "deep"
}

// scanEnd is how a scan ended.
type scanEnd uint8

const (
	scanMore scanEnd = iota // b ended first
	scanDone                // the container closed
	scanErr                 // a bracket broke a kinds rule: errAt, errMsg
)

// scan reads b from i, where a container (or a stopped scan) begins. It
// returns the index just past the container's closing bracket and
// scanDone; or, when b ends first, the index to resume from (with more
// bytes appended) and scanMore. final says nothing follows b: every byte
// is then read.
func (z *structScan) scan(b []byte, i int, final bool) (int, scanEnd) {
	for i < len(b) {
		var q, bs, op, cl, b5 uint64
		if len(b)-i >= 64 {
			q, bs, op, cl, b5 = blockMasks((*[64]byte)(b[i:]))
		} else {
			if !final {
				break
			}
			var tail [64]byte // zeros match none of the masks
			copy(tail[:], b[i:])
			q, bs, op, cl, b5 = blockMasks(&tail)
		}
		if end, how := z.block(b, i, q, bs, op, cl, b5); how != scanMore {
			return end, how
		}
		i = min(i+64, len(b))
	}
	return i, scanMore
}

// block reads the block at b[i:] from its masks.
func (z *structScan) block(b []byte, i int, q, bs, op, cl, b5 uint64) (int, scanEnd) {
	var escaped uint64
	esc := false
	if bs != 0 || z.esc {
		escaped, esc = escapes(bs, z.esc)
	}
	in := prefixXor(q&^escaped) ^ z.inStr
	if bs&^in != 0 {
		// Up to the first backslash outside a string the masks agree with
		// a byte-by-byte reading; past it they may not.
		for k := i; k < min(i+64, len(b)); k++ {
			if end := z.step(b[k], k); end != 0 {
				return z.ended(end)
			}
		}
		return 0, scanMore
	}
	z.inStr = uint64(int64(in) >> 63)
	z.esc = esc
	op &^= in
	cl &^= in
	if op|cl == 0 {
		return 0, scanMore
	}
	nc := bits.OnesCount64(cl)
	lo := z.depth - nc
	if lo <= 0 {
		// More closing brackets than the depth (a deep container, skipped
		// from near its top, as managedFields): the lowest depth they
		// reach, four bytes at a time.
		lo = lowest(op, cl, z.depth)
	}
	if lo > 0 {
		// The block cannot close the container.
		no := bits.OnesCount64(op)
		if !z.kinds {
			z.depth += no - nc
			return 0, scanMore
		}
		// Only braces, and none of the brackets the block closes (the
		// levels from lo up) is a '[': every kind matches, and the ones
		// the block opens are braces.
		hi := z.depth + no
		if (op|cl)&^b5 == 0 && z.base+hi <= maxDepth && z.stack&spanBits(lo, z.depth) == 0 {
			z.stack &^= spanBits(z.depth, hi)
			z.depth = hi - nc
			return 0, scanMore
		}
	}
	for m := op | cl; m != 0; m &= m - 1 {
		k := i + bits.TrailingZeros64(m)
		if end := z.bracket(b[k], k); end != 0 {
			return z.ended(end)
		}
	}
	return 0, scanMore
}

// lowest returns the lowest depth the brackets of a block reach from depth
// d, op and cl marking its opening and closing ones (outside strings); at
// most 0 once it is known to reach 0.
func lowest(op, cl uint64, d int) int {
	lo := d
	for m := op | cl; m != 0 && lo > 0; {
		k := uint(bits.TrailingZeros64(m)) &^ 3
		e := nibbleDepth[(op>>k)&15|(cl>>k)&15<<4]
		lo = min(lo, d+int(e.low))
		d += int(e.net)
		m &^= 15 << k
	}
	return lo
}

// nibbleDepth[o | c<<4] is, for four bytes whose opening brackets are the
// bits of o and closing ones the bits of c, the lowest depth they reach
// from 0 and the depth they end at.
var nibbleDepth = func() (t [256]struct{ low, net int8 }) {
	for i := range t {
		d := int8(0)
		for b := range 4 {
			switch {
			case i>>b&1 != 0:
				d++
			case i>>(4+b)&1 != 0:
				d--
			}
			t[i].low = min(t[i].low, d)
		}
		t[i].net = d
	}
	return t
}()

// escapes returns the bytes of a block that backslashes escape, each
// after an odd run of them (esc: the block's first byte is escaped), and
// whether the block's last run escapes the next block's first byte.
func escapes(bs uint64, esc bool) (escaped uint64, next bool) {
	if esc {
		escaped = 1
		bs &^= 1 // an escaped backslash escapes nothing
	}
	for bs != 0 {
		s := bits.TrailingZeros64(bs)
		e := s + bits.TrailingZeros64(^(bs >> s)) // past the run
		if (e-s)&1 == 1 {
			if e >= 64 {
				return escaped, true
			}
			escaped |= 1 << e
		}
		if e >= 64 {
			break
		}
		bs &^= 1<<e - 1
	}
	return escaped, false
}

// spanBits returns bits [lo, hi) of a word (those past 63 dropped).
func spanBits(lo, hi int) uint64 {
	if lo >= hi {
		return 0
	}
	return ^uint64(0) << uint(lo) & (uint64(1)<<uint(min(hi, 64)) - 1)
}

// prefixXor sets each bit to the parity of the bits at or below it.
func prefixXor(m uint64) uint64 {
	m ^= m << 1
	m ^= m << 2
	m ^= m << 4
	m ^= m << 8
	m ^= m << 16
	m ^= m << 32
	return m
}

// blockMasksGo is blockMasks, byte by byte.
func blockMasksGo(b *[64]byte) (quote, bslash, open, close, bit5 uint64) {
	for k, c := range b {
		bit := uint64(1) << k
		if c&0x20 != 0 {
			bit5 |= bit
		}
		switch c {
		case '"':
			quote |= bit
		case '\\':
			bslash |= bit
		case '{', '[':
			open |= bit
		case '}', ']':
			close |= bit
		}
	}
	return quote, bslash, open, close, bit5
}

// ended turns step's and bracket's result into scan's.
func (z *structScan) ended(end int) (int, scanEnd) {
	if end < 0 {
		return z.errAt, scanErr
	}
	return end, scanDone
}

// step reads one byte, c at index k: 0 to go on, the index past the
// container's end, or -1 on an error.
func (z *structScan) step(c byte, k int) int {
	switch {
	case z.esc:
		z.esc = false
	case z.inStr != 0:
		switch c {
		case '\\':
			z.esc = true
		case '"':
			z.inStr = 0
		}
	case c == '"':
		z.inStr = ^uint64(0)
	case c == '{' || c == '[' || c == '}' || c == ']':
		return z.bracket(c, k)
	}
	return 0
}

// bracket reads a bracket outside strings, c at index k; its result is
// step's.
func (z *structScan) bracket(c byte, k int) int {
	if c == '{' || c == '[' {
		if z.kinds {
			if z.depth < 64 {
				z.stack = z.stack&^(1<<z.depth) | uint64(c>>5&1^1)<<z.depth // '[' is 0x5b, '{' 0x7b
			}
			if z.base+z.depth+1 > maxDepth {
				z.errAt, z.errMsg = k, "deep"
				return -1
			}
		}
		z.depth++
		return 0
	}
	z.depth--
	if z.kinds && z.depth < 64 && z.stack>>z.depth&1 != uint64(c>>5&1^1) {
		z.errAt, z.errMsg = k, "mismatched"
		return -1
	}
	if z.depth == 0 {
		return k + 1
	}
	return 0
}

// lineMasksGo is lineMasks, byte by byte.
func lineMasksGo(b *[64]byte) (nl, ws, rb uint64) {
	for k, c := range b {
		switch c {
		case '\n':
			nl |= 1 << k
		case ' ', '\t':
			ws |= 1 << k
		case ']':
			rb |= 1 << k
		}
	}
	return nl, ws, rb
}
