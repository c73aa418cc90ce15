package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImportDirection enforces the one-way imports of the design:
// ingest -> index <- solver <- export, bench may use them all, and only cmd
// wires everything (nothing imports cmd or bench).
func TestImportDirection(t *testing.T) {
	const mod = "github.com/kplace/kplace/"
	forbidden := map[string][]string{
		"index":  {"ingest", "solver", "export", "bench", "cmd"},
		"ingest": {"solver", "export", "bench", "cmd"},
		"solver": {"ingest", "export", "bench", "cmd"},
		"export": {"ingest", "bench", "cmd"},
		"bench":  {"cmd"},
		// The rules, the reference solver and the differential test's
		// engine sit below solver (see also solver/reference's
		// TestBuiltOnlyOnRules).
		"solver/rules":        {"ingest", "export", "bench", "cmd"},
		"solver/reference":    {"ingest", "export", "bench", "cmd"},
		"solver/differential": {"ingest", "export", "bench", "cmd"},
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
