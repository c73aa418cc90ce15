package ingest

import (
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestSharedLabelMaps: pods with the same labels (same pairs, same order)
// share one map; other labels, a repeated key (the last wins), {} and
// null keep their meaning.
func TestSharedLabelMaps(t *testing.T) {
	pod := func(name, labels string) string {
		return `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"` + name + `","namespace":"default","labels":` + labels + `},"spec":{"containers":[{"name":"c"}]}}`
	}
	text := `{"apiVersion":"v1","kind":"List","items":[` +
		pod("a", `{"app":"web","tier":"fe"}`) + "," +
		pod("b", `{"app":"web","tier":"fe"}`) + "," +
		pod("c", `{"app":"web","tier":"be"}`) + "," +
		pod("d", `{"app":"web","app":"api"}`) + "," +
		pod("e", `{}`) + "," +
		pod("f", `null`) + "," +
		pod("g", `{"app":"web","tier":"fe"}`) + `]}`
	path := filepath.Join(t.TempDir(), "pods.json")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, m := range modes {
		in, err := Load([]string{path}, Options{Parallelism: m.parallelism})
		if err != nil {
			t.Fatal(err)
		}
		byName := map[string]map[string]string{}
		for i := range in.Pods {
			byName[in.Pods[i].Name] = in.Pods[i].Labels
		}
		same := func(a, b string) bool {
			return reflect.ValueOf(byName[a]).UnsafePointer() == reflect.ValueOf(byName[b]).UnsafePointer()
		}
		want := map[string]map[string]string{
			"a": {"app": "web", "tier": "fe"}, "b": {"app": "web", "tier": "fe"}, "c": {"app": "web", "tier": "be"},
			"d": {"app": "api"}, "e": {}, "g": {"app": "web", "tier": "fe"},
		}
		for name, w := range want {
			if got := byName[name]; got == nil || !maps.Equal(got, w) {
				t.Errorf("%s: pod %s labels %v, want %v", m.name, name, got, w)
			}
		}
		if byName["f"] != nil {
			t.Errorf("%s: null labels became %v", m.name, byName["f"])
		}
		if m.parallelism == 1 && (!same("a", "b") || !same("a", "g")) {
			t.Errorf("%s: equal labels not shared", m.name)
		}
		if same("a", "c") {
			t.Errorf("%s: different labels shared", m.name)
		}
	}
}
