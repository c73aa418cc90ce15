package ingest

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
)

func TestParseQuantity(t *testing.T) {
	// want: cpu in millicores, other resources in whole units (rounded up).
	f := func(s string, wantMilli, wantUnits int64) {
		t.Helper()
		a, neg, err := parseQuantity(s)
		if err != nil || neg {
			t.Errorf("parseQuantity(%q) = %v, neg=%v, %v", s, a, neg, err)
			return
		}
		if m, ok := a.millis(); wantMilli >= 0 && (!ok || m != wantMilli) {
			t.Errorf("parseQuantity(%q) millis = %d (ok %v), want %d", s, m, ok, wantMilli)
		}
		if u, ok := a.units(); !ok || u != wantUnits {
			t.Errorf("parseQuantity(%q) units = %d (ok %v), want %d", s, u, ok, wantUnits)
		}
	}
	// The examples of the design notes.
	f("250m", 250, 1)
	f("1", 1000, 1)
	f("1.5", 1500, 2)
	f("2Gi", 2<<30*1000, 2<<30)
	f("1G", 1e12, 1e9)
	f("1e3", 1e6, 1000)
	f("128974848", 128974848000, 128974848)
	f("129M", 129e9, 129e6)
	f("123Mi", 123<<20*1000, 123<<20)
	// Edge cases.
	f("0", 0, 0)
	f("000", 0, 0)
	f("+", 0, 0)
	f(".", 0, 0)
	f("0.0001", 1, 1) // rounded up to a milli
	f("100n", 1, 1)
	f("1u", 1, 1)
	f("1001u", 2, 1)
	f("1m", 1, 1)
	f(".5", 500, 1)
	f("1.", 1000, 1)
	f("+1", 1000, 1)
	f("1E3", 1e6, 1000)
	f("1e+3", 1e6, 1000)
	f("1e-3", 1, 1)
	f("1.5e-3", 2, 1)
	f("1k", 1e6, 1000)
	f("1Ki", 1024000, 1024)
	f("1.5Ki", 1536000, 1536)
	f("0.5Ki", 512000, 512)
	f("0.001Ki", 1024, 2) // 1.024
	f("1T", -1, 1e12)
	f("1P", -1, 1e15)
	f("1E", -1, 1e18)
	f("1Ti", -1, 1<<40)
	f("1Pi", -1, 1<<50)
	f("1Ei", -1, 1<<60)
	f("7Ei", -1, 7<<60)
	f("8Ei", -1, math.MaxInt64) // capped like ParseQuantity caps BinarySI
	f("100000Ei", -1, math.MaxInt64)
	f("9223372036854775807", -1, math.MaxInt64)
	f("9.223372036854775807e18", -1, math.MaxInt64)
	f("1e-100000", 1, 1)
	f("0e99999999999", 0, 0)
	f("12.3456789", 12346, 13)
	f("0000012", 12000, 12)

	bad := func(s string, want error) {
		t.Helper()
		if _, _, err := parseQuantity(s); err != want {
			t.Errorf("parseQuantity(%q) error = %v, want %v", s, err, want)
		}
	}
	bad("", errQuantityFormat)
	bad("abc", errQuantityFormat)
	bad("1 ", errQuantityFormat)
	bad(" 1", errQuantityFormat)
	bad("1.1.1", errQuantityFormat)
	bad("1e", errQuantityFormat)
	bad("1e+", errQuantityFormat)
	bad("1Kb", errQuantityFormat)
	bad("1i", errQuantityFormat)
	bad("1mi", errQuantityFormat)
	bad("--1", errQuantityFormat)
	bad("1x", errQuantityFormat)
	bad("9223372036854775808", errQuantityRange)
	bad("10E", errQuantityRange)
	bad("1e19", errQuantityRange)
	bad("1e2000000000", errQuantityRange)

	if a, neg, err := parseQuantity("-1.5"); err != nil || !neg || a != (amount{1, 500}) {
		t.Errorf("parseQuantity(-1.5) = %v %v %v", a, neg, err)
	}
}

func TestQuantityText(t *testing.T) {
	for raw, want := range map[string]string{`"1Gi"`: "1Gi", `" 2 "`: "2", `1.5`: "1.5", `"`: `"`} {
		if got := string(quantityBytes([]byte(raw))); got != want {
			t.Errorf("quantityBytes(%s) = %q, want %q", raw, got, want)
		}
	}
}

// exponentOf returns the exponent of an "e"/"E" suffix, to keep the
// differential check away from inputs that cost apimachinery minutes.
func hugeExponent(s string) bool {
	i := strings.LastIndexAny(s, "eE")
	if i < 0 || i+1 >= len(s) {
		return false
	}
	v, err := strconv.ParseInt(s[i+1:], 10, 64)
	return err == nil && (v > 400 || v < -400)
}

// checkAgainstAPIMachinery compares parseQuantity with ParseQuantity
// followed by API defaulting's RoundUp(-3), Value() and MilliValue().
func checkAgainstAPIMachinery(t *testing.T, s string) {
	a, neg, err := parseQuantity(s)
	if hugeExponent(s) || len(s) > 2000 {
		return
	}
	q, qerr := resource.ParseQuantity(s)
	if qerr != nil {
		if err == nil {
			t.Fatalf("%q: apimachinery rejects (%v), parseQuantity accepts %+v", s, qerr, a)
		}
		return
	}
	// Exact reference magnitude in thousandths, rounded away from zero.
	d := q.AsDec()
	unscaled := new(big.Int).Abs(d.UnscaledBig())
	scale := int(d.Scale()) // value = unscaled * 10^-scale
	ref := new(big.Int)
	switch {
	case unscaled.Sign() == 0:
	case scale <= 3:
		if 3-scale > 60 {
			ref.SetInt64(-1) // astronomically large
			break
		}
		ref.Mul(unscaled, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(3-scale)), nil))
	default:
		div := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale-3)), nil)
		var rem big.Int
		ref.QuoRem(unscaled, div, &rem)
		if rem.Sign() != 0 {
			ref.Add(ref, big.NewInt(1))
		}
	}
	maxMilli := new(big.Int).Mul(big.NewInt(math.MaxInt64), big.NewInt(1000))
	maxMilli.Add(maxMilli, big.NewInt(999))
	if ref.Sign() < 0 || ref.Cmp(maxMilli) > 0 {
		if err == nil {
			t.Fatalf("%q: apimachinery value out of int64 range, parseQuantity gives %+v", s, a)
		}
		return
	}
	if err != nil {
		t.Fatalf("%q: apimachinery accepts (%v), parseQuantity fails: %v", s, q.String(), err)
	}
	got := new(big.Int).Mul(big.NewInt(a.whole), big.NewInt(1000))
	got.Add(got, big.NewInt(a.milli))
	if got.Cmp(ref) != 0 || a.milli < 0 || a.milli > 999 || a.whole < 0 {
		t.Fatalf("%q: parseQuantity = %+v (%s thousandths), apimachinery %s thousandths", s, a, got, ref)
	}
	if ref.Sign() != 0 && neg != (q.Sign() < 0) {
		t.Fatalf("%q: sign %v, apimachinery %d", s, neg, q.Sign())
	}
	if q.Sign() < 0 {
		return
	}
	// What the scheduler reads after API defaulting.
	r := q.DeepCopy()
	r.RoundUp(-3)
	if u, ok := a.units(); ok && r.Value() != u {
		t.Fatalf("%q: units %d, Value() %d", s, u, r.Value())
	}
	if m, ok := a.millis(); ok && r.MilliValue() != m {
		t.Fatalf("%q: millis %d, MilliValue() %d", s, m, r.MilliValue())
	}
}

var quantitySeeds = []string{
	"250m", "1", "1.5", "2Gi", "1G", "1e3", "128974848", "129M", "123Mi", "0", "-0", "+", "-", ".", ".5", "1.",
	"0.0001", "100n", "1u", "1k", "1Ki", "1.5Ki", "8Ei", "7.99Ei", "9223372036854775807", "9223372036854775808",
	"1e-3", "1E3", "1e+3", "1E-9", "1e18", "1e19", "10E", "1.5E", "-1.5", "+1.5Gi", "12.3456789", "0.001Ki",
	"1e", "1ee3", "1Kb", "abc", "", " 1", "1 ", "1.1.1", "0x10", "1e-400", "99999999999999999999999m",
	"0.00000000000000000001", "123456789012345678.9", "1.000000000000000000001Gi", "5e-324", "1e4294967299",
}

func TestParseQuantityAgainstAPIMachinery(t *testing.T) {
	for _, s := range quantitySeeds {
		checkAgainstAPIMachinery(t, s)
	}
	// Every suffix with a spread of mantissas.
	sufs := []string{"", "n", "u", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "e0", "e-2", "e5", "E12", "e-12"}
	mants := []string{"0", "1", "7", "10", "999", "1000", "0.5", "0.001", "0.0015", "1.25", "3.999999", "123456789", "9.5", ".25", "4095.9999"}
	for _, suf := range sufs {
		for _, m := range mants {
			checkAgainstAPIMachinery(t, m+suf)
			checkAgainstAPIMachinery(t, "-"+m+suf)
		}
	}
}

func FuzzParseQuantity(f *testing.F) {
	for _, s := range quantitySeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkAgainstAPIMachinery(t, s)
	})
}

func TestAmountArithmetic(t *testing.T) {
	a := amount{1, 600}
	b, ok := a.add(amount{2, 500})
	if !ok || b != (amount{4, 100}) {
		t.Errorf("add = %v %v", b, ok)
	}
	if _, ok := (amount{math.MaxInt64, 999}).add(amount{0, 1}); ok {
		t.Error("overflow not detected")
	}
	if _, ok := (amount{math.MaxInt64, 0}).units(); !ok {
		t.Error("MaxInt64 units")
	}
	if _, ok := (amount{math.MaxInt64, 1}).units(); ok {
		t.Error("MaxInt64+ units")
	}
	if _, ok := (amount{math.MaxInt64 / 1000, 999}).millis(); ok {
		t.Error("millis overflow not detected")
	}
}
