package rules

import (
	"testing"

	"github.com/kplace/kplace/index"
)

// TestPortsFilter: same protocol and port clash on the same IP or when
// either is 0.0.0.0.
func TestPortsFilter(t *testing.T) {
	pk := func(ip, proto string, port int32) index.PortKey {
		return index.PortKey{IP: ip, Proto: proto, Port: port}
	}
	used := []index.PortKey{pk("0.0.0.0", "TCP", 8080), pk("10.0.0.1", "UDP", 53)}
	for _, tc := range []struct {
		want []index.PortKey
		r    Reason
	}{
		{[]index.PortKey{pk("0.0.0.0", "TCP", 8080)}, NodePortsConflict},
		{[]index.PortKey{pk("10.0.0.9", "TCP", 8080)}, NodePortsConflict}, // used on every IP
		{[]index.PortKey{pk("0.0.0.0", "UDP", 8080)}, None},
		{[]index.PortKey{pk("10.0.0.1", "UDP", 53)}, NodePortsConflict},
		{[]index.PortKey{pk("10.0.0.2", "UDP", 53)}, None},
		{[]index.PortKey{pk("0.0.0.0", "UDP", 53)}, NodePortsConflict}, // wants every IP
		{[]index.PortKey{pk("0.0.0.0", "TCP", 9090), pk("0.0.0.0", "TCP", 8080)}, NodePortsConflict},
		{nil, None},
	} {
		if got := PortsFilter(used, tc.want); got != tc.r {
			t.Errorf("PortsFilter(%v) = %v, want %v", tc.want, got, tc.r)
		}
	}
}
