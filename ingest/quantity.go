package ingest

import (
	"bytes"
	"errors"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// amount is a non-negative resource quantity rounded up to a thousandth of a
// unit: whole units plus thousandths. It is what Kubernetes holds after API
// defaulting (SetDefaults_ResourceList rounds every quantity up to milli
// scale), so sums of amounts are exact, and the scheduler's Value() (ceil to
// whole units) and MilliValue() follow without loss.
type amount struct {
	whole int64 // units, >= 0
	milli int64 // 0..999
}

var (
	errQuantityFormat = errors.New("invalid quantity")
	errQuantityRange  = errors.New("quantity out of range")
)

// millis returns the amount in thousandths (millicores for cpu).
func (a amount) millis() (int64, bool) {
	if a.whole > (math.MaxInt64-a.milli)/1000 {
		return 0, false
	}
	return a.whole*1000 + a.milli, true
}

// units returns the amount rounded up to whole units (Quantity.Value()).
func (a amount) units() (int64, bool) {
	if a.milli == 0 {
		return a.whole, true
	}
	if a.whole == math.MaxInt64 {
		return 0, false
	}
	return a.whole + 1, true
}

// fits reports whether a is a quantity the engine holds (see
// quantityInRange) in its unit: millicores for cpu, else whole units. A
// binary-suffixed value that parseQuantity capped at 2^63-1 (as
// apimachinery caps it) does not fit, for cpu or for memory alike.
func (a amount) fits(cpu bool) bool {
	v, ok := a.units()
	if cpu {
		v, ok = a.millis()
	}
	return ok && quantityInRange(v)
}

// add returns a+b; ok is false on overflow.
func (a amount) add(b amount) (amount, bool) {
	m := a.milli + b.milli
	w := a.whole
	if m >= 1000 {
		m -= 1000
		if w == math.MaxInt64 {
			return amount{}, false
		}
		w++
	}
	if w > math.MaxInt64-b.whole {
		return amount{}, false
	}
	return amount{w + b.whole, m}, true
}

func (a amount) less(b amount) bool {
	return a.whole < b.whole || (a.whole == b.whole && a.milli < b.milli)
}

func (a amount) isZero() bool { return a.whole == 0 && a.milli == 0 }

// maxExponent bounds decimal exponents we evaluate. Kubernetes keeps the
// exponent in an int32 and wraps it around in places; beyond this bound its
// answer is meaningless (and costs it minutes of big-number arithmetic), so
// such a quantity is reported as out of range.
const maxExponent = 1 << 30

// parseQuantity parses a Kubernetes quantity string exactly as
// k8s.io/apimachinery/pkg/api/resource.ParseQuantity accepts it, and returns
// its magnitude rounded up (away from zero) to a thousandth, and whether it
// is negative. Binary-suffixed values above MaxInt64 are capped at MaxInt64
// as ParseQuantity caps them; other values above MaxInt64 are an error.
func parseQuantity(s string) (amount, bool, error) {
	if s == "" {
		return amount{}, false, errQuantityFormat
	}
	pos, end := 0, len(s)
	neg := false
	switch s[0] {
	case '-':
		neg = true
		pos++
	case '+':
		pos++
	}
	// Leading zeros; a string of only a sign and zeros is zero.
	for pos < end && s[pos] == '0' {
		pos++
	}
	if pos == end {
		return amount{}, neg, nil
	}
	numStart := pos
	for pos < end && isDigit(s[pos]) {
		pos++
	}
	num := s[numStart:pos]
	denom := ""
	if pos < end && s[pos] == '.' {
		pos++
		ds := pos
		for pos < end && isDigit(s[pos]) {
			pos++
		}
		denom = s[ds:pos]
	}
	// Suffix: letters, then an optional sign, then digits, up to the end.
	sufStart := pos
	for pos < end && isSuffixLetter(s[pos]) {
		pos++
	}
	if pos < end && (s[pos] == '+' || s[pos] == '-') {
		pos++
	}
	for ; pos < end; pos++ {
		if !isDigit(s[pos]) {
			return amount{}, false, errQuantityFormat
		}
	}
	binary, exp, ok := interpretSuffix(s[sufStart:])
	if !ok {
		return amount{}, false, errQuantityFormat
	}
	if numStart == pos0(s) && num == "" && denom == "" {
		// No digits at all ("Ki", "-.m"): ParseQuantity reads zero on its
		// fast path but fails on its big-number path, which it takes for
		// exponents below nano and for the Pi and Ei suffixes.
		if (!binary && exp < -9) || (binary && exp >= 50) {
			return amount{}, false, errQuantityFormat
		}
		return amount{}, neg, nil
	}
	if allZero(num) && allZero(denom) {
		return amount{}, neg, nil
	}
	var a amount
	var err error
	if binary {
		a = binaryAmount(num, denom, exp)
	} else {
		a, err = decimalAmount(num, denom, exp)
	}
	return a, neg, err
}

// pos0 is the index after an optional leading sign.
func pos0(s string) int {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		return 1
	}
	return 0
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isSuffixLetter(c byte) bool {
	switch c {
	case 'e', 'E', 'i', 'n', 'u', 'm', 'k', 'K', 'M', 'G', 'T', 'P':
		return true
	}
	return false
}

func allZero(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] != '0' {
			return false
		}
	}
	return true
}

// interpretSuffix returns whether the suffix is binary (a power of two) and
// its exponent (of 10 or of 2).
func interpretSuffix(suf string) (binary bool, exp int64, ok bool) {
	switch suf {
	case "":
		return false, 0, true
	case "n":
		return false, -9, true
	case "u":
		return false, -6, true
	case "m":
		return false, -3, true
	case "k":
		return false, 3, true
	case "M":
		return false, 6, true
	case "G":
		return false, 9, true
	case "T":
		return false, 12, true
	case "P":
		return false, 15, true
	case "E":
		return false, 18, true
	case "Ki":
		return true, 10, true
	case "Mi":
		return true, 20, true
	case "Gi":
		return true, 30, true
	case "Ti":
		return true, 40, true
	case "Pi":
		return true, 50, true
	case "Ei":
		return true, 60, true
	}
	if len(suf) > 1 && (suf[0] == 'e' || suf[0] == 'E') {
		v, err := strconv.ParseInt(suf[1:], 10, 64)
		if err != nil {
			return false, 0, false
		}
		// ParseQuantity truncates the exponent to int32.
		return false, int64(int32(v)), true
	}
	return false, 0, false
}

// decimalAmount evaluates num.denom * 10^exp (not all zero), rounded up to a
// thousandth.
func decimalAmount(num, denom string, exp int64) (amount, error) {
	if exp > maxExponent || exp < -maxExponent {
		return amount{}, errQuantityRange
	}
	// Significant digits d with value d * 10^e.
	d := num + denom
	if num == "" {
		d = denom
	}
	d = strings.TrimLeft(d, "0")
	e := exp - int64(len(denom))
	t := strings.TrimRight(d, "0")
	e += int64(len(d) - len(t))
	d = t
	intLen := int64(len(d)) + e // digits before the decimal point
	if intLen > 19 {
		return amount{}, errQuantityRange
	}
	if e >= 0 {
		w, ok := parseDigits(d, int(e))
		if !ok {
			return amount{}, errQuantityRange
		}
		return amount{whole: w}, nil
	}
	if intLen < -3 {
		// Below a thousandth but not zero: rounds up to one.
		return amount{milli: 1}, nil
	}
	var w int64
	frac := d
	if intLen > 0 {
		var ok bool
		if w, ok = parseDigits(d[:intLen], 0); !ok {
			return amount{}, errQuantityRange
		}
		frac = d[intLen:]
	}
	// frac follows -min(intLen,0) implicit zeros after the point.
	lead := 0
	if intLen < 0 {
		lead = int(-intLen)
	}
	var m int64
	for i := 0; i < 3; i++ {
		m *= 10
		if j := i - lead; j >= 0 && j < len(frac) {
			m += int64(frac[j] - '0')
		}
	}
	if lead+len(frac) > 3 { // a nonzero digit (frac has no trailing zeros) remains
		m++
	}
	a := amount{w, m}
	if m == 1000 {
		if w == math.MaxInt64 {
			return amount{}, errQuantityRange
		}
		a = amount{w + 1, 0}
	}
	return a, nil
}

// parseDigits returns the value of the decimal digits d followed by zeros
// zeros, if it fits in an int64.
func parseDigits(d string, zeros int) (int64, bool) {
	if len(d)+zeros > 19 {
		return 0, false
	}
	var v uint64
	for i := 0; i < len(d); i++ {
		v = v*10 + uint64(d[i]-'0')
	}
	for i := 0; i < zeros; i++ {
		v *= 10
	}
	if v > math.MaxInt64 {
		return 0, false
	}
	return int64(v), true
}

// binaryAmount evaluates num.denom * 2^exp (not all zero), capped at
// MaxInt64 and rounded up to a thousandth.
func binaryAmount(num, denom string, exp int64) amount {
	num = strings.TrimLeft(num, "0")
	denom = strings.TrimRight(denom, "0")
	if len(num) > 19 {
		return amount{whole: math.MaxInt64}
	}
	if denom == "" {
		n, ok := parseDigits(num, 0)
		if !ok || n > math.MaxInt64>>exp {
			return amount{whole: math.MaxInt64}
		}
		return amount{whole: n << exp}
	}
	// Rare: a fraction with a binary suffix. Exact arithmetic.
	v, _ := new(big.Int).SetString(num+denom, 10)
	v.Lsh(v, uint(exp))
	scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(len(denom))), nil)
	w, rem := new(big.Int).QuoRem(v, scale, new(big.Int))
	if !w.IsInt64() || (w.Int64() == math.MaxInt64 && rem.Sign() > 0) {
		return amount{whole: math.MaxInt64}
	}
	// milli = ceil(rem * 1000 / scale)
	rem.Mul(rem, big.NewInt(1000))
	m, r2 := rem.QuoRem(rem, scale, new(big.Int))
	mi := m.Int64()
	if r2.Sign() > 0 {
		mi++
	}
	if mi == 1000 {
		return amount{whole: w.Int64() + 1}
	}
	return amount{whole: w.Int64(), milli: mi}
}

// quantityBytes turns the raw JSON text of a quantity (a string with its
// quotes, or a number) into what Quantity.UnmarshalJSON parses: unquoted
// (escapes are not decoded, as there) and trimmed of spaces.
func quantityBytes(raw []byte) []byte {
	if len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"' {
		raw = raw[1 : len(raw)-1]
	}
	return bytes.TrimSpace(raw)
}
