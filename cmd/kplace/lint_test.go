package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImportDirection enforces the one-way imports of the design:
// ingest -> index <- solver <- export <- live, bench may use them all but
// live, and only cmd wires everything (nothing imports cmd or bench).
// live (the client of a live cluster) reads the result format from export
// and nothing below it imports live; its test server, live/livetest,
// imports nothing of kplace.
func TestImportDirection(t *testing.T) {
	const mod = "github.com/kplace/kplace/"
	forbidden := map[string][]string{
		"index":         {"ingest", "solver", "export", "live", "bench", "cmd"},
		"ingest":        {"solver", "export", "live", "bench", "cmd"},
		"solver":        {"ingest", "export", "live", "bench", "cmd"},
		"export":        {"ingest", "live", "bench", "cmd"},
		"live":          {"ingest", "live/livetest", "bench", "cmd"},
		"live/livetest": {"index", "ingest", "solver", "export", "bench", "cmd"},
		"bench":         {"live", "cmd"},
	}
	for pkg, bad := range forbidden {
		out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", "../../"+pkg).Output()
		if err != nil {
			t.Fatalf("go list %s: %v", pkg, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, b := range bad {
				if dep == mod+b || strings.HasPrefix(dep, mod+b+"/") {
					t.Errorf("%s imports %s", pkg, dep)
				}
			}
		}
	}
}
