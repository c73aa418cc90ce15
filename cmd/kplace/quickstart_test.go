package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kplace/kplace/live/livetest"
)

// readmeCommands returns the command lines of the README's quick start
// that start with prefix, in order.
func readmeCommands(t *testing.T, prefix string) [][]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, quick, ok := strings.Cut(string(b), "## Quick start on your own cluster")
	if !ok {
		t.Fatal("README.md has no quick start")
	}
	quick, _, _ = strings.Cut(quick, "\n## ")
	var out [][]string
	for _, line := range strings.Split(quick, "\n") {
		if strings.HasPrefix(line, prefix) {
			out = append(out, strings.Fields(line))
		}
	}
	if len(out) == 0 {
		t.Fatalf("the README's quick start has no %q command", prefix)
	}
	return out
}

// TestReadmeQuickStart follows the README's quick start word for word
// against a real API server: its kubectl command exports every kind kplace
// reads (and kubectl accepts it), its place command places the export, and
// its bind commands check, then apply, the result.
func TestReadmeQuickStart(t *testing.T) {
	export := readmeCommands(t, "kubectl get ")
	if len(export) != 1 || len(export[0]) != 8 || export[0][6] != ">" || export[0][3] != "-A" {
		t.Fatalf("quick start export: %q, want kubectl get KINDS -A -o json > FILE", export)
	}
	kinds := strings.Split(export[0][2], ",")
	want := strings.Split(snapshotKinds, ",")
	slices.Sort(kinds)
	slices.Sort(want)
	if !slices.Equal(kinds, want) {
		t.Errorf("the quick start exports %v, kplace reads %v", kinds, want)
	}
	if kubectl() == "" {
		t.Skip("no kubectl")
	}
	s := livetest.Shared(t)
	k := s.Client(t)
	ns := "quickstart"
	objs := []any{livetest.Namespace(ns)}
	for i := range 2 {
		objs = append(objs, livetest.Node(fmt.Sprintf("qs-n%d", i), 2000, "4Gi", nil))
	}
	for i := range 3 {
		objs = append(objs, livetest.Pod(ns, fmt.Sprintf("app-%d", i), 500, "", 0, map[string]string{"app": "qs"}))
	}
	livetest.Create(t, k, objs...)
	// The server is shared with the other live tests: leave nothing behind
	// that they would export.
	t.Cleanup(func() {
		ctx, zero := context.Background(), int64(0)
		for i := range 3 {
			k.CoreV1().Pods(ns).Delete(ctx, fmt.Sprintf("app-%d", i), metav1.DeleteOptions{GracePeriodSeconds: &zero})
		}
		for i := range 2 {
			k.CoreV1().Nodes().Delete(ctx, fmt.Sprintf("qs-n%d", i), metav1.DeleteOptions{})
		}
	})

	place := readmeCommands(t, "kplace place ")[0]
	binds := readmeCommands(t, "kplace bind ")
	t.Chdir(t.TempDir())
	cluster := runKubectl(t, s, export[0][1:6]...)
	if err := os.WriteFile(export[0][7], cluster, 0o644); err != nil {
		t.Fatal(err)
	}

	code, _, stderr := runAll(t, place[1:]...)
	if code != 0 || !strings.HasPrefix(stderr, "kplace: ") || !strings.Contains(stderr, "  placed ") {
		t.Fatalf("%q: exit %d:\n%s", place, code, stderr)
	}
	var result struct {
		Items []struct {
			Kind     string
			Metadata struct{ Name, Namespace string }
			Target   struct{ Name string }
		}
	}
	b, err := os.ReadFile("result.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &result); err != nil {
		t.Fatal(err)
	}
	targets := map[string]string{}
	for _, it := range result.Items {
		if it.Kind == "Binding" && it.Metadata.Namespace == ns {
			targets[it.Metadata.Name] = it.Target.Name
		}
	}
	if len(targets) != 3 {
		t.Fatalf("result binds %d of the 3 quick start pods: %v", len(targets), targets)
	}

	if len(binds) != 2 || !slices.Contains(binds[0], "--dry-run=server") {
		t.Fatalf("quick start bind commands: %q", binds)
	}
	kc := "--kubeconfig=" + s.Kubeconfig
	for i, bind := range binds {
		if code, _, stderr := runAll(t, append(bind[1:], kc)...); code != 0 {
			t.Fatalf("%q: exit %d:\n%s", bind, code, stderr)
		}
		for name, node := range targets {
			p, err := k.CoreV1().Pods(ns).Get(context.Background(), name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if i == 0 && p.Spec.NodeName != "" || i == 1 && p.Spec.NodeName != node {
				t.Errorf("after %q: pod %s on %q, want %q", bind, name, p.Spec.NodeName, map[bool]string{true: "", false: node}[i == 0])
			}
		}
	}
}
