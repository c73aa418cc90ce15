package ingest

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"
	"time"
)

// jp is a small validating JSON parser over a complete value in memory.
// Fields kplace uses are decoded into the wire structs; everything else is
// skipped (validated, not kept). Errors panic with a *parseError, recovered
// by parseItem.
type jp struct {
	b     []byte
	i     int
	depth int
	short bool      // the failure was at the end of the input (maybe truncated)
	in    *interner // nil: no interning
}

// parseError is a JSON error at a byte offset of the parsed value.
type parseError struct {
	off int
	msg string
}

func (e *parseError) Error() string { return e.msg }

// maxDepth bounds nesting, so hostile input cannot exhaust the stack.
const maxDepth = 1000

func (p *jp) fail(format string, args ...any) {
	if p.i >= len(p.b) {
		p.short = true // ran out of input: more may make it parse
	}
	panic(&parseError{off: p.i, msg: fmt.Sprintf(format, args...)})
}

// failShort fails at the end of the input (an unterminated string).
func (p *jp) failShort(msg string) {
	p.i = len(p.b)
	p.fail("%s", msg)
}

const spaces8 = 0x2020202020202020

// ws skips whitespace; inlined, it answers compact JSON (a significant
// byte next) without a call.
func (p *jp) ws() {
	if p.i < len(p.b) && p.b[p.i] > ' ' {
		return
	}
	p.wsRun()
}

func (p *jp) wsRun() {
	b, i := p.b, p.i
	for i < len(b) {
		c := b[i]
		if c > ' ' {
			break
		}
		switch c {
		case ' ':
			// Indentation: find the first non-space eight bytes at a time.
			for i+8 <= len(b) {
				if x := binary.LittleEndian.Uint64(b[i:]) ^ spaces8; x != 0 {
					i += bits.TrailingZeros64(x) >> 3
					goto next
				}
				i += 8
			}
			for i < len(b) && b[i] == ' ' {
				i++
			}
		case '\n', '\t', '\r':
			i++
		default:
			p.i = i
			return
		}
	next:
	}
	p.i = i
}

// peek returns the next significant byte, 0 at the end.
func (p *jp) peek() byte {
	if p.i < len(p.b) && p.b[p.i] > ' ' {
		return p.b[p.i]
	}
	return p.peekRun()
}

func (p *jp) peekRun() byte {
	p.wsRun()
	if p.i >= len(p.b) {
		return 0
	}
	return p.b[p.i]
}

func (p *jp) describe() string {
	if p.i >= len(p.b) {
		return "end of input"
	}
	if c := p.b[p.i]; c == 'n' && !bytes.HasPrefix(p.b[p.i:], []byte("null")) {
		return quoteByte(c)
	}
	return describeByte(p.b[p.i])
}

// describeByte names the kind of JSON value that starts with c ("an
// object", "a string", ...), for an error saying what was found; another
// byte is quoted.
func describeByte(c byte) string {
	switch {
	case c == '{':
		return "an object"
	case c == '[':
		return "an array"
	case c == '"':
		return "a string"
	case c == 't' || c == 'f':
		return "a boolean"
	case c == 'n':
		return "null"
	case c == '-' || (c >= '0' && c <= '9'):
		return "a number"
	}
	return quoteByte(c)
}

func (p *jp) expect(c byte) {
	if p.peek() != c {
		p.fail("expected %q, found %s", c, p.describe())
	}
	p.i++
}

// literal consumes lit ("true", "false", "null") at the current position.
func (p *jp) literal(lit string) {
	if !bytes.HasPrefix(p.b[p.i:], []byte(lit)) {
		if rest := p.b[p.i:]; len(rest) < len(lit) && strings.HasPrefix(lit, string(rest)) {
			p.i = len(p.b) // cut short
		}
		p.fail("invalid literal, found %s", p.describe())
	}
	p.i += len(lit)
}

// isNull consumes a null if one comes next.
func (p *jp) isNull() bool {
	if p.peek() == 'n' {
		p.literal("null")
		return true
	}
	return false
}

// objStart consumes '{' and reports true, or consumes null and reports
// false.
func (p *jp) objStart() bool {
	if p.isNull() {
		return false
	}
	p.expect('{')
	p.enter()
	return true
}

func (p *jp) enter() {
	p.depth++
	if p.depth > maxDepth {
		p.fail("nested too deeply")
	}
}

// next advances to the next key of an object, consuming the separator; it
// returns nil (having consumed '}') at the end.
func (p *jp) next(first *bool) []byte {
	c := p.peek()
	if c == '}' {
		p.i++
		p.depth--
		return nil
	}
	if !*first {
		if c != ',' {
			p.fail("expected ',' or '}', found %s", p.describe())
		}
		p.i++
		p.ws()
	}
	*first = false
	if p.peek() != '"' {
		p.fail("expected an object key, found %s", p.describe())
	}
	k := p.strBytes()
	p.expect(':')
	p.ws()
	return k
}

// arrStart consumes '[' and reports true, or consumes null and reports
// false.
func (p *jp) arrStart() bool {
	if p.isNull() {
		return false
	}
	p.expect('[')
	p.enter()
	return true
}

// more reports whether an array has another element, consuming ',' or ']'.
func (p *jp) more(first *bool) bool {
	c := p.peek()
	if c == ']' {
		p.i++
		p.depth--
		return false
	}
	if !*first {
		if c != ',' {
			p.fail("expected ',' or ']', found %s", p.describe())
		}
		p.i++
		p.ws()
	}
	*first = false
	return true
}

// strBytes parses a string and returns its content; the bytes alias the
// input unless the string has escapes.
func (p *jp) strBytes() []byte {
	if p.peek() != '"' {
		p.fail("expected a string, found %s", p.describe())
	}
	start := p.i + 1
	if k, esc := scanQuote(p.b, start); k >= 0 && !esc && ascii(p.b[start:k]) {
		p.i = k + 1
		return p.b[start:k]
	} else if k < 0 {
		p.failShort("unterminated string")
	}
	// Escapes or non-ASCII: find the real end, then let encoding/json
	// decode it (it also replaces invalid UTF-8, as the API server does).
	k := start
	for {
		if k >= len(p.b) {
			p.failShort("unterminated string")
		}
		c := p.b[k]
		if c == '\\' {
			k += 2
			continue
		}
		if c == '"' {
			break
		}
		k++
	}
	var s string
	if err := json.Unmarshal(p.b[start-1:k+1], &s); err != nil {
		p.fail("invalid string: %v", err)
	}
	p.i = k + 1
	return []byte(s)
}

// str parses a string (or null, as "").
func (p *jp) str() string {
	if p.isNull() {
		return ""
	}
	return string(p.strBytes())
}

// optStr parses a string into a pointer (null leaves nil).
func (p *jp) optStr() *string {
	if p.isNull() {
		return nil
	}
	s := string(p.strBytes())
	return &s
}

func (p *jp) boolean() bool {
	switch p.peek() {
	case 't':
		p.literal("true")
		return true
	case 'f':
		p.literal("false")
		return false
	case 'n':
		p.literal("null")
		return false
	}
	p.fail("expected a boolean, found %s", p.describe())
	return false
}

// number returns the text of a JSON number.
func (p *jp) number() []byte {
	p.ws()
	start := p.i
	if p.i < len(p.b) && p.b[p.i] == '-' {
		p.i++
	}
	digits := p.i
	for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
		p.i++
	}
	if p.i == digits {
		p.i = start
		p.fail("expected a number, found %s", p.describe())
	}
	if p.b[digits] == '0' && p.i-digits > 1 {
		p.i = start
		p.fail("invalid number (leading zero)")
	}
	if p.i < len(p.b) && p.b[p.i] == '.' {
		p.i++
		f := p.i
		for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
			p.i++
		}
		if p.i == f {
			p.fail("invalid number")
		}
	}
	if p.i < len(p.b) && (p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		p.i++
		if p.i < len(p.b) && (p.b[p.i] == '+' || p.b[p.i] == '-') {
			p.i++
		}
		f := p.i
		for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
			p.i++
		}
		if p.i == f {
			p.fail("invalid number")
		}
	}
	return p.b[start:p.i]
}

// integer parses an integer in [lo, hi] (null as 0).
func (p *jp) integer(lo, hi int64, what string) int64 {
	if p.isNull() {
		return 0
	}
	if c := p.peek(); c != '-' && (c < '0' || c > '9') {
		p.fail("expected %s, found %s", what, p.describe())
	}
	start := p.i
	t := p.number()
	v, err := strconv.ParseInt(string(t), 10, 64)
	if err != nil || v < lo || v > hi {
		p.i = start
		p.fail("expected %s, found %s", what, t)
	}
	return v
}

func (p *jp) int32() int32 { return int32(p.integer(math.MinInt32, math.MaxInt32, "an int32")) }

func (p *jp) optInt32() *int32 {
	if p.isNull() {
		return nil
	}
	v := p.int32()
	return &v
}

func (p *jp) optInt64() *int64 {
	if p.isNull() {
		return nil
	}
	v := p.integer(math.MinInt64, math.MaxInt64, "an int64")
	return &v
}

// skip consumes any value. An object or array kplace does not read is
// skipped by its structure alone (skipContainer): its brackets and strings
// must close, but its content is not checked, which is most of a full
// object's bytes (managedFields, status, env, probes).
func (p *jp) skip() {
	switch p.peek() {
	case '"':
		p.skipString()
	case '{', '[':
		p.skipContainer()
	case 't':
		p.literal("true")
	case 'f':
		p.literal("false")
	case 'n':
		p.literal("null")
	default:
		p.number()
	}
}

// skipContainer consumes the object or array at p.i by matching its
// brackets, skipping strings whole (a bracket in a string does not count).
// A bracket of the other kind closing it is an error, as is running out of
// input.
func (p *jp) skipContainer() {
	z := structScan{kinds: true, base: p.depth}
	end, how := z.scan(p.b, p.i, true)
	switch how {
	case scanDone:
		p.i = end
	case scanErr:
		p.i = z.errAt
		if z.errMsg == "deep" {
			p.fail("nested too deeply")
		}
		p.fail("mismatched %q", p.b[p.i])
	default:
		if p.i = len(p.b); z.inStr != 0 {
			p.fail("unterminated string")
		}
		p.fail("unterminated %s", "value")
	}
}

func (p *jp) skipString() {
	k := p.i + 1
	for {
		j := bytes.IndexByte(p.b[k:], '"')
		if j < 0 {
			p.failShort("unterminated string")
		}
		k += j
		// Count the backslashes before the quote.
		n := 0
		for m := k - 1; m > p.i && p.b[m] == '\\'; m-- {
			n++
		}
		if n%2 == 0 {
			p.i = k + 1
			return
		}
		k++
	}
}

// raw returns the text of the next value (validated).
func (p *jp) raw() []byte {
	p.ws()
	start := p.i
	p.skip()
	return p.b[start:p.i]
}

// count returns the number of elements of an array (null: 0).
func (p *jp) count() int {
	if !p.arrStart() {
		return 0
	}
	n := 0
	for first := true; p.more(&first); {
		p.skip()
		n++
	}
	return n
}

// present consumes a value and reports whether it is not null.
func (p *jp) present() bool {
	if p.isNull() {
		return false
	}
	p.skip()
	return true
}

// strMap parses a map[string]string (null: nil).
func (p *jp) strMap() map[string]string {
	if !p.objStart() {
		return nil
	}
	m := make(map[string]string, 4)
	for first := true; ; {
		k, v, ok := p.strPair(&first)
		if !ok {
			return m
		}
		m[k] = v
	}
}

// strPair parses the next key and string value (null: "") of the object
// strMap or labelMap reads, interned; false at its end.
func (p *jp) strPair(first *bool) (k, v string, ok bool) {
	kb := p.next(first)
	if kb == nil {
		return "", "", false
	}
	if p.peek() != '"' && p.peek() != 'n' {
		p.fail("expected a string value, found %s", p.describe())
	}
	k = p.internBytes(kb)
	return k, p.istr(), true
}

// labelMap parses metadata.labels like strMap, returning a map shared with
// earlier equal ones (same pairs in the same order) when interning. Only
// objects' own labels come from it: nothing writes them, while label
// selectors' maps may be written (matchLabelKeys merges into them).
func (p *jp) labelMap() map[string]string {
	if p.in == nil {
		return p.strMap()
	}
	if !p.objStart() {
		return nil
	}
	// The pairs' bytes make the key; only a map not seen before interns
	// its strings (most objects' labels are another's).
	in := p.in
	key, ends := in.lblKey[:0], in.lblEnds[:0]
	for first := true; ; {
		kb := p.next(&first)
		if kb == nil {
			break
		}
		if c := p.peek(); c != '"' && c != 'n' {
			p.fail("expected a string value, found %s", p.describe())
		}
		key = binary.AppendUvarint(key, uint64(len(kb)))
		key = append(key, kb...)
		ends = append(ends, len(key))
		var vb []byte
		if !p.isNull() {
			vb = p.strBytes()
		}
		key = binary.AppendUvarint(key, uint64(len(vb)))
		key = append(key, vb...)
		ends = append(ends, len(key))
	}
	in.lblKey, in.lblEnds = key, ends
	if m, ok := in.labels[string(key)]; ok {
		return m
	}
	m := make(map[string]string, len(ends)/2)
	start := 0
	for i := 0; i < len(ends); i += 2 {
		k, ke := uvarintAt(key, start), ends[i]
		v, ve := uvarintAt(key, ke), ends[i+1]
		m[p.internBytes(key[ke-k:ke])] = p.internBytes(key[ve-v : ve]) // a repeated key: the last wins, as in strMap
		start = ve
	}
	if in.labels == nil {
		in.labels = map[string]map[string]string{}
	}
	if len(in.labels) < maxInterned {
		in.labels[string(key)] = m
	}
	return m
}

// uvarintAt returns the uvarint at b[i:].
func uvarintAt(b []byte, i int) int {
	v, _ := binary.Uvarint(b[i:])
	return int(v)
}

// strSlice parses a []string (null: nil).
func (p *jp) strSlice() []string { return p.stringsOf((*jp).istr) }

// stringsOf parses an array of strings, each with str (null: nil).
func (p *jp) stringsOf(str func(*jp) string) []string {
	if !p.arrStart() {
		return nil
	}
	var out []string
	for first := true; p.more(&first); {
		out = append(out, str(p))
	}
	return out
}

// interner shares the strings that repeat across objects (namespaces,
// label keys and values, node names, resource names, ...).
type interner struct {
	m map[string]string
	// recent is a direct-mapped cache in front of m (recentSlot): most
	// strings a pod holds are the last pod's (its toleration keys and
	// effects, scheduler name, owner kind, apiVersion).
	recent [recentSlots]string
	// labels shares equal label maps (metadata.labels): the pods of one
	// template carry the same labels, and a shared map is one object in
	// memory instead of one per pod. Keyed by the pairs in document order
	// (see labelMap); maps from it are never written.
	labels  map[string]map[string]string
	lblKey  []byte
	lblEnds []int // where each key and value of lblKey ends
	// images shares image names, whatever their length (a digest
	// reference runs past maxInternedLen): every node lists the images it
	// holds, the same few thousand names across a cluster.
	images map[string]string
	// slab: the interner is a worker's, which converts each object
	// (copying these out) before parsing the next; the entries of its
	// resource lists and its tolerations are then cut from res and tols,
	// emptied per object (newObject).
	slab bool
	res  []resEntry
	tols []wireToleration
}

// newObject empties the slabs for the next object.
func (in *interner) newObject() {
	in.res, in.tols = in.res[:0], in.tols[:0]
}

// fromSlab returns an empty slice of capacity n cut from *slab (a new
// slab of size elements when it is full: the old one may still be read).
// An append past n copies.
func fromSlab[T any](slab *[]T, n, size int) []T {
	if len(*slab)+n > cap(*slab) {
		*slab = make([]T, 0, size)
	}
	k := len(*slab)
	*slab = (*slab)[:k+n]
	return (*slab)[k : k : k+n]
}

// resEntries returns an empty entry list for a resource list.
func (p *jp) resEntries() []resEntry {
	if p.in == nil || !p.in.slab {
		return make([]resEntry, 0, 4)
	}
	return fromSlab(&p.in.res, 4, 1024)
}

// tolerationList returns an empty toleration list.
func (p *jp) tolerationList() []wireToleration {
	if p.in == nil || !p.in.slab {
		return nil
	}
	return fromSlab(&p.in.tols, 8, 1024)
}

const (
	maxInterned    = 1 << 17
	maxInternedLen = 128
)

func newInterner() *interner { return &interner{m: make(map[string]string, 1024)} }

// internBytes returns b as a string, shared with earlier equal strings.
func (p *jp) internBytes(b []byte) string {
	if p.in == nil || len(b) > maxInternedLen {
		return string(b)
	}
	if len(b) == 0 {
		return ""
	}
	slot := &p.in.recent[recentSlot(b)]
	if *slot == string(b) {
		return *slot
	}
	s := intern(&p.in.m, b)
	*slot = s
	return s
}

// recentSlots is the size of interner.recent.
const recentSlots = 1024

// recentSlot is b's slot in interner.recent (b not empty): its length and
// three of its bytes, enough to keep apart the few hundred strings that
// repeat from pod to pod.
func recentSlot(b []byte) int {
	n := len(b)
	return (n ^ int(b[0])<<2 ^ int(b[n-1])<<5 ^ int(b[n/2])<<3) & (recentSlots - 1)
}

// intern returns b as a string from table m, entered there when m has
// room.
func intern(m *map[string]string, b []byte) string {
	if s, ok := (*m)[string(b)]; ok {
		return s
	}
	s := string(b)
	if *m == nil {
		*m = map[string]string{}
	}
	if len(*m) < maxInterned {
		(*m)[s] = s
	}
	return s
}

// imageStr parses an image name (or null, as ""), interned with the
// other image names.
func (p *jp) imageStr() string {
	if p.isNull() {
		return ""
	}
	if p.in == nil {
		return string(p.strBytes())
	}
	return intern(&p.in.images, p.strBytes())
}

// istr parses a string (or null, as ""), interned.
func (p *jp) istr() string {
	if p.isNull() {
		return ""
	}
	return p.internBytes(p.strBytes())
}

// timestamp parses an RFC 3339 time (metav1.Time) into Unix seconds; a
// string that is not RFC 3339 comes back as bad. null and "" are 0.
func (p *jp) timestamp() (unix int64, bad string) {
	if p.isNull() {
		return 0, ""
	}
	b := p.strBytes()
	if len(b) == 0 {
		return 0, ""
	}
	if u, ok := fastRFC3339(b); ok {
		return u, ""
	}
	t, err := time.Parse(time.RFC3339, string(b))
	if err != nil {
		return 0, string(b)
	}
	return t.Unix(), ""
}

// fastRFC3339 parses the common "2006-01-02T15:04:05Z" form.
func fastRFC3339(b []byte) (int64, bool) {
	if len(b) != 20 || b[4] != '-' || b[7] != '-' || b[10] != 'T' || b[13] != ':' || b[16] != ':' || b[19] != 'Z' {
		return 0, false
	}
	num := func(i, n int) (int, bool) {
		v := 0
		for _, c := range b[i : i+n] {
			if c < '0' || c > '9' {
				return 0, false
			}
			v = v*10 + int(c-'0')
		}
		return v, true
	}
	year, ok1 := num(0, 4)
	month, ok2 := num(5, 2)
	day, ok3 := num(8, 2)
	hour, ok4 := num(11, 2)
	minute, ok5 := num(14, 2)
	sec, ok6 := num(17, 2)
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) || month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || sec > 59 {
		return 0, false
	}
	if day > time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day() {
		return 0, false
	}
	return time.Date(year, time.Month(month), day, hour, minute, sec, 0, time.UTC).Unix(), true
}

const (
	lsb8     = 0x0101010101010101
	msb8     = 0x8080808080808080
	quotes8  = '"' * lsb8
	bslashes = '\\' * lsb8
)

// scanQuote finds the first '"' or '\\' at or after b[k]: its index, and
// whether it is a backslash; -1 when there is none. Eight bytes at a time
// for short strings, IndexByte for long ones.
func scanQuote(b []byte, k int) (int, bool) {
	for n := 0; n < 4 && k+8 <= len(b); n++ {
		w := binary.LittleEndian.Uint64(b[k:])
		q, e := w^quotes8, w^bslashes
		if m := ((q - lsb8) &^ q & msb8) | ((e - lsb8) &^ e & msb8); m != 0 {
			i := k + bits.TrailingZeros64(m)>>3
			return i, b[i] == '\\'
		}
		k += 8
	}
	j := bytes.IndexByte(b[k:], '"')
	if j < 0 {
		if bytes.IndexByte(b[k:], '\\') >= 0 {
			return k + bytes.IndexByte(b[k:], '\\'), true
		}
		return -1, false
	}
	if e := bytes.IndexByte(b[k:k+j], '\\'); e >= 0 {
		return k + e, true
	}
	return k + j, false
}

// ascii reports whether b has no byte >= 0x80.
func ascii(b []byte) bool {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		if binary.LittleEndian.Uint64(b[i:])&msb8 != 0 {
			return false
		}
	}
	for ; i < len(b); i++ {
		if b[i] >= 0x80 {
			return false
		}
	}
	return true
}
