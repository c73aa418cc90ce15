package index

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
)

// checkNames compares every name rule with apimachinery's on v.
func checkNames(t *testing.T, v string) {
	t.Helper()
	for _, c := range []struct {
		name string
		got  bool
		want []string
	}{
		{"ValidDNS1123Subdomain", ValidDNS1123Subdomain(v), validation.IsDNS1123Subdomain(v)},
		{"ValidDNS1123Label", ValidDNS1123Label(v), validation.IsDNS1123Label(v)},
		{"ValidDNS1035Label", ValidDNS1035Label(v), validation.IsDNS1035Label(v)},
		{"ValidLabelValue", ValidLabelValue(v), validation.IsValidLabelValue(v)},
		{"ValidQualifiedName", ValidQualifiedName(v), validation.IsQualifiedName(v)},
	} {
		if c.got != (len(c.want) == 0) {
			t.Fatalf("%s(%q) = %v, apimachinery says %q", c.name, v, c.got, c.want)
		}
	}
}

var nameSeeds = []string{"", "a", "A", "9", "a-b", "a.b", "a..b", ".a", "a.", "-a", "a-", "a_b", "a b", "a\n", "a\x00b",
	"ä", "a\xff", "Ab", "1a", "example.com/app", "EXAMPLE.com/app", "/app", "app/", "a/b/c", "a/", "ex_ample.com/app",
	"kubernetes.io/hostname", "node-1.zone-a.example.com", "web-6d4b9c7f5-x2x9z",
	strings.Repeat("a", 63), strings.Repeat("a", 64), strings.Repeat("a.", 126) + "a", strings.Repeat("a.", 126) + "ab",
	strings.Repeat("d", 253) + "/k", strings.Repeat("d", 254) + "/k", "a" + strings.Repeat("-", 61) + "b"}

// TestNames runs the seeds through checkNames (FuzzNames explores further).
func TestNames(t *testing.T) {
	valid := 0
	for _, v := range nameSeeds {
		checkNames(t, v)
		if ValidDNS1123Subdomain(v) {
			valid++
		}
	}
	if valid < 5 || valid == len(nameSeeds) {
		t.Errorf("%d of %d seeds are subdomains: the seeds do not cover both verdicts", valid, len(nameSeeds))
	}
}

func FuzzNames(f *testing.F) {
	for _, v := range nameSeeds {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v string) { checkNames(t, v) })
}
