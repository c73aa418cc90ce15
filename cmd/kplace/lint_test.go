package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImportDirection enforces the one-way imports of the design:
// ingest -> index <- solver <- export <- live, bench may use them all but
// live, and only cmd wires everything (nothing imports cmd or bench). The
// what-if engine (scenario) sits above them with the two controllers it
// runs, which read only index. live (the client of a live cluster) reads the
// result format from export and nothing below it imports live; its test
// server, live/livetest, imports nothing of kplace.
func TestImportDirection(t *testing.T) {
	const mod = "github.com/kplace/kplace/"
	above := []string{"scenario", "tainteviction", "nodelifecycle"} // the what-if engine and its controllers
	forbidden := map[string][]string{
		"index":         append([]string{"ingest", "solver", "export", "live", "bench", "cmd"}, above...),
		"ingest":        append([]string{"solver", "export", "live", "bench", "cmd"}, above...),
		"solver":        append([]string{"ingest", "export", "live", "bench", "cmd"}, above...),
		"export":        append([]string{"ingest", "live", "bench", "cmd"}, above...),
		"live":          append([]string{"ingest", "live/livetest", "bench", "cmd"}, above...),
		"live/livetest": {"index", "ingest", "solver", "export", "bench", "cmd"},
		"bench":         {"live", "cmd"},
		"tainteviction": {"ingest", "solver", "export", "live", "bench", "cmd", "scenario", "nodelifecycle"},
		"nodelifecycle": {"ingest", "solver", "export", "live", "bench", "cmd", "scenario", "tainteviction"},
		"scenario":      {"live", "bench", "cmd"},
		"profile":       append([]string{"export", "live", "bench", "cmd"}, above...),
		// The rules, the reference solver and the differential test's
		// engine sit below solver (see also solver/reference's
		// TestBuiltOnlyOnRules).
		"solver/rules":        append([]string{"ingest", "export", "live", "bench", "cmd"}, above...),
		"solver/reference":    append([]string{"ingest", "export", "live", "bench", "cmd"}, above...),
		"solver/differential": append([]string{"ingest", "export", "live", "bench", "cmd"}, above...),
		// explain lays out the reference solver's cycle; the HTML report
		// draws a report (export) and a cluster.
		"explain": append([]string{"ingest", "export", "live", "bench", "cmd"}, above...),
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
