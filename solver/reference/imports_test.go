package reference

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestBuiltOnlyOnRules: the reference solver reads only the index types
// and the rules package (and the rules only the index types), so that it
// restates no fast path.
func TestBuiltOnlyOnRules(t *testing.T) {
	const mod = "github.com/kplace/kplace/"
	for pkg, allowed := range map[string][]string{
		".":        {"index", "solver/rules", "solver/reference"},
		"../rules": {"index", "solver/rules"},
	} {
		out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", pkg).Output()
		if err != nil {
			t.Fatalf("go list %s: %v", pkg, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			if own, ok := strings.CutPrefix(dep, mod); ok && !slices.Contains(allowed, own) {
				t.Errorf("%s imports %s", pkg, dep)
			}
		}
	}
}
