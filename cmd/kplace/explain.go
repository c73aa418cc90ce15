package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"

	"github.com/kplace/kplace/explain"
	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/ingest"
	"github.com/spf13/cobra"
)

func newExplainCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "explain POD -f CLUSTER [--node NODE] [-o table|json] [flags]",
		Short: "Why a pod goes where it goes: every node's verdict per plugin, and the scores",
		Long: `Explains one pod (namespace/name, or name in the default namespace) against the cluster
as given: every node's verdict of each filter plugin with kube-scheduler's reason, and
for the nodes that pass them all each score plugin's normalised score, its weight and
the weighted total, and the node kube-scheduler would pick. A bound pod is explained as
if pending. No preemption is tried (--preemption and --cross-node-preemption, shared
with place, change nothing here). See docs/explain.md.`,
		Example: `  # Why is shop/web-0 not on node-17?
  kplace explain shop/web-0 -f cluster.json --node node-17

  # Every node, as JSON
  kplace explain shop/web-0 -f cluster.json --all -o json`,
		Args: cobra.ExactArgs(1),
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	input := addInputFlags(fs, "input file or directory, as for place, or one snapshot")
	node := fs.String("node", "", "detail this node only: every filter plugin's verdict and reason, every score plugin's score")
	all := fs.Bool("all", false, fmt.Sprintf("list every node even above %d nodes (default there: the per-plugin counts and the top %d nodes)", explain.SummaryAbove, explain.TopNodes))
	output := fs.StringP("output", "o", "table", "output format: table or json")
	expand := fs.Bool("expand", true, "also explain the pods the input's controllers would create now (as place adds them: the same --seed gives the\n"+
		"names place reports)")
	solveFlags := addSolveFlags(fs)
	completeValues(cmd, "output", "table", "json")
	completeSolveFlags(cmd)
	cmd.RunE = func(_ *cobra.Command, args []string) error {
		return codeErr(runExplain(cmd, args[0], input, *node, *all, *output, *expand, solveFlags))
	}
	return cmd
}

// runExplain explains pod; it returns the exit code.
func runExplain(cmd *cobra.Command, pod string, input inputFlags, node string, all bool, output string, expand bool, solveFlags *solveFlags) int {
	fs := cmd.Flags()
	usageErr := func(msg string) int { return usagef(cmd, "%s", msg) }
	if len(*input.paths) == 0 {
		return usageErr("no input: give -f FILE|DIR")
	}
	if output != "table" && output != "json" {
		return usageErr(fmt.Sprintf("-o %q: want table or json", output))
	}
	// NAME, or NAMESPACE/NAME: nothing empty, at most one slash.
	if ns, name, slash := strings.Cut(pod, "/"); ns == "" || slash && (name == "" || strings.Contains(name, "/")) {
		return usageErr(fmt.Sprintf("pod %q: want NAMESPACE/NAME, or NAME in the default namespace", pod))
	}
	paths, err := input.files()
	if err != nil {
		return fail(err)
	}
	cfg, err := solveFlags.config()
	if err != nil {
		return usageErr(err.Error())
	}
	in, info, err := loadInput(paths, ingest.Options{AdmissionDefaults: *solveFlags.admission, AdmissionDefaultsSet: fs.Changed("admission-defaults")})
	if err != nil {
		return fail(err)
	}
	var warnings []string
	if expand {
		// The pods place would add, pending, under the names it gives
		// them: they change no node (pending pods hold nothing).
		exp, err := ingest.Expand(in, ingest.ExpandOptions{Seed: cfg.Seed, AdmissionDefaults: info.AdmissionDefaults})
		if err != nil {
			return fail(err)
		}
		warnings = exp.Warnings
	}
	c, err := index.Build(in)
	if err != nil {
		return fail(err)
	}
	pid, err := explain.FindPod(c, pod)
	if err != nil && !expand {
		err = fmt.Errorf("%w (without --expand=false, the pods its controllers would create are in it too)", err)
	}
	if err != nil {
		return fail(err)
	}
	r, err := explain.Explain(c, pid, cfg, explain.Options{Node: node, All: all})
	if err != nil {
		return fail(err)
	}
	for _, warn := range append(append(c.Warnings, warnings...), solveFlags.warnings...) {
		fmt.Fprintf(os.Stderr, "kplace explain: warning: %s\n", warn)
	}
	w := bufio.NewWriterSize(os.Stdout, 1<<16)
	if output == "json" {
		err = r.WriteJSON(w)
	} else {
		err = r.WriteTable(w)
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		return fail(err)
	}
	return 0
}
