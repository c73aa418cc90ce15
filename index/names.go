package index

import "strings"

// Names: the API server's rules for object names, label keys and label
// values (k8s.io/apimachinery/pkg/util/validation), without its regular
// expressions. Ingest checks every name of its input with them and the
// solver checks selector values, so they run once or more per object;
// FuzzNames checks each against apimachinery's.

// Name limits.
const (
	MaxDNS1123Subdomain = 253 // IsDNS1123Subdomain
	MaxDNSLabel         = 63  // IsDNS1123Label, IsDNS1035Label
	MaxLabelValue       = 63  // IsValidLabelValue
	MaxQualifiedName    = 63  // the name part of IsQualifiedName
)

func lowerAlnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }

func alnum(c byte) bool { return lowerAlnum(c) || c >= 'A' && c <= 'Z' }

// dnsLabel reports whether v is lower case alphanumerics and '-', starting
// and ending with an alphanumeric (no length limit).
func dnsLabel(v string) bool {
	if v == "" || !lowerAlnum(v[0]) || !lowerAlnum(v[len(v)-1]) {
		return false
	}
	for i := 1; i < len(v)-1; i++ {
		if c := v[i]; !lowerAlnum(c) && c != '-' {
			return false
		}
	}
	return true
}

// ValidDNS1123Subdomain is validation.IsDNS1123Subdomain: at most 253
// characters, dot-separated DNS labels. Most object names (nodes, pods,
// priority classes, budgets, replica sets, ...) follow it.
func ValidDNS1123Subdomain(v string) bool {
	if len(v) > MaxDNS1123Subdomain {
		return false
	}
	for {
		i := strings.IndexByte(v, '.')
		if i < 0 {
			return dnsLabel(v)
		}
		if !dnsLabel(v[:i]) {
			return false
		}
		v = v[i+1:]
	}
}

// ValidDNS1123Label is validation.IsDNS1123Label: one DNS label of at most
// 63 characters (namespace names).
func ValidDNS1123Label(v string) bool { return len(v) <= MaxDNSLabel && dnsLabel(v) }

// ValidDNS1035Label is validation.IsDNS1035Label: a DNS label of at most 63
// characters that starts with a letter (service names).
func ValidDNS1035Label(v string) bool {
	return len(v) <= MaxDNSLabel && dnsLabel(v) && v[0] >= 'a'
}

// ValidLabelValue is validation.IsValidLabelValue: at most 63 bytes, empty
// or alphanumerics, '-', '_' and '.' that begin and end with an
// alphanumeric.
func ValidLabelValue(v string) bool {
	if len(v) > MaxLabelValue {
		return false
	}
	return v == "" || qualifiedPart(v)
}

// qualifiedPart reports whether v is alphanumerics, '-', '_' and '.',
// beginning and ending with an alphanumeric (no length limit).
func qualifiedPart(v string) bool {
	if v == "" || !alnum(v[0]) || !alnum(v[len(v)-1]) {
		return false
	}
	for i := 1; i < len(v)-1; i++ {
		if c := v[i]; !alnum(c) && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}

// ValidQualifiedName is validation.IsQualifiedName, the rule for label
// keys: an optional DNS subdomain prefix and '/', then a name of at most
// 63 alphanumerics, '-', '_' or '.', beginning and ending with an
// alphanumeric.
func ValidQualifiedName(v string) bool {
	name := v
	if i := strings.IndexByte(v, '/'); i >= 0 {
		if !ValidDNS1123Subdomain(v[:i]) {
			return false
		}
		name = v[i+1:]
	}
	return len(name) <= MaxQualifiedName && qualifiedPart(name)
}
