package main

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// versionInfo is what kplace version prints.
type versionInfo struct {
	// Version is the module's version ("(devel)" for a build from a
	// clone), or the one -ldflags "-X main.version=..." set.
	Version string `json:"version"`
	// Commit is the VCS revision the binary was built from, with "-dirty"
	// when the tree had changes; "" when the build recorded none.
	Commit string `json:"commit"`
	// Kubernetes is the Kubernetes release whose semantics kplace
	// implements: the one its k8s.io/api module belongs to (v0.X.Y is
	// Kubernetes v1.X.Y).
	Kubernetes string `json:"kubernetes"`
	Go         string `json:"go"`
	Platform   string `json:"platform"`
}

// buildVersion reads the version from the build info.
func buildVersion(bi *debug.BuildInfo, ok bool) versionInfo {
	v := versionInfo{Version: version, Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if !ok {
		return v
	}
	if v.Version == "dev" && bi.Main.Version != "" {
		v.Version = bi.Main.Version
	}
	modified := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Commit = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if v.Commit != "" && modified {
		v.Commit += "-dirty"
	}
	for _, d := range bi.Deps {
		if d.Path == "k8s.io/api" {
			v.Kubernetes = kubernetesRelease(d.Version)
		}
	}
	return v
}

// kubernetesRelease maps a k8s.io/api module version to its Kubernetes
// release: v0.36.3 is v1.36.3 (staging modules are tagged v0.X.Y for
// Kubernetes v1.X.Y, pre-release suffixes included).
func kubernetesRelease(apiVersion string) string {
	if rest, ok := strings.CutPrefix(apiVersion, "v0."); ok {
		return "v1." + rest
	}
	return apiVersion
}

func newVersionCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "version [-o json|yaml]",
		Short: "Print kplace's version, commit and the Kubernetes version it implements",
		Long: `Prints kplace's module version ("(devel)" for a build from a clone), the commit it was
built from ("-dirty" when the tree had changes; none when the build recorded no VCS
information, as with go build -buildvcs=false), and the Kubernetes release whose
scheduling semantics kplace implements, read from the k8s.io/api module it was built
with.`,
		Example: `  kplace version
  kplace version -o json`,
		Args: cobra.NoArgs,
	}
	format := cmd.Flags().StringP("output", "o", "", "json or yaml (default: text)")
	completeValues(cmd, "output", "json", "yaml")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		bi, ok := debug.ReadBuildInfo()
		v := buildVersion(bi, ok)
		w := cmd.OutOrStdout()
		switch *format {
		case "":
			commit := v.Commit
			if commit == "" {
				commit = "unknown (built without VCS information)"
			}
			fmt.Fprintf(w, "kplace %s\ncommit %s\nkubernetes %s\ngo %s %s\n", v.Version, commit, v.Kubernetes, v.Go, v.Platform)
		case "json":
			b, _ := json.MarshalIndent(v, "", "  ")
			fmt.Fprintf(w, "%s\n", b)
		case "yaml":
			fmt.Fprintf(w, "version: %q\ncommit: %q\nkubernetes: %q\ngo: %q\nplatform: %q\n", v.Version, v.Commit, v.Kubernetes, v.Go, v.Platform)
		default:
			return codeErr(usagef(cmd, "-o %q: want json or yaml", *format))
		}
		return nil
	}
	return cmd
}
