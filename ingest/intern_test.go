package ingest

import (
	"fmt"
	"testing"
	"unsafe"
)

// TestInternBytes: internBytes gives back b's string whatever the recent
// cache holds in b's slot (strings of one slot taking turns, an empty
// string, one past maxInternedLen), and the same string (one copy in
// memory) for equal bytes.
func TestInternBytes(t *testing.T) {
	// Strings sharing a slot, and others.
	var same []string
	bySlot := map[int][]string{}
	for i := 0; i < 1<<16 && len(same) < 3; i++ {
		s := fmt.Sprintf("%x", i*7919)
		k := recentSlot([]byte(s))
		bySlot[k] = append(bySlot[k], s)
		same = bySlot[k]
	}
	if len(same) < 3 {
		t.Fatalf("no three strings sharing a slot found")
	}
	long := string(make([]byte, maxInternedLen+1))
	inputs := append(same, "NoExecute", "Exists", "", "node.kubernetes.io/not-ready", long, same[0], "Exists", same[2], same[1])
	p := &jp{in: newInterner()}
	first := map[string]string{}
	for round := range 3 {
		for _, s := range inputs {
			got := p.internBytes([]byte(s))
			if got != s {
				t.Fatalf("round %d: internBytes(%q) = %q", round, s, got)
			}
			if s == "" || s == long {
				continue
			}
			if f, ok := first[s]; !ok {
				first[s] = got
			} else if unsafe.StringData(f) != unsafe.StringData(got) {
				t.Errorf("round %d: %q came back as another copy", round, s)
			}
		}
	}
}
