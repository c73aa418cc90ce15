package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"

	"github.com/kplace/kplace/explain"
	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/ingest"
	"github.com/spf13/pflag"
)

func cmdExplain(args []string) int {
	fs := pflag.NewFlagSet("explain", pflag.ContinueOnError)
	fs.SortFlags = false
	paths := fs.StringArrayP("filename", "f", nil, "input file or directory (repeatable), as for place, or one snapshot")
	node := fs.String("node", "", "detail this node only: every filter plugin's verdict and reason, every score plugin's score")
	all := fs.Bool("all", false, fmt.Sprintf("list every node even above %d nodes (default there: the per-plugin counts and the top %d nodes)", explain.SummaryAbove, explain.TopNodes))
	output := fs.StringP("output", "o", "table", "output format: table or json")
	solveFlags := addSolveFlags(fs)
	fs.Usage = func() {
		fmt.Fprintf(os.Stderr, "Usage: kplace explain POD -f CLUSTER [-f ...] [--node NODE] [-o table|json] [flags]\n\n"+
			"Explains one pod (namespace/name, or name in the default namespace) against the cluster as given:\n"+
			"every node's verdict of each filter plugin with kube-scheduler's reason, and for the nodes that pass\n"+
			"them all each score plugin's normalised score, its weight and the weighted total, and the node\n"+
			"kube-scheduler would pick. A bound pod is explained as if pending. No preemption is tried.\n\n"+
			"Example:\n  kplace explain shop/web-0 -f cluster.json --node node-17\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return 0
		}
		fmt.Fprintln(os.Stderr, "kplace explain:", err)
		return 2
	}
	usageErr := func(msg string) int {
		fmt.Fprintln(os.Stderr, "kplace explain:", msg)
		return 2
	}
	if fs.NArg() != 1 {
		return usageErr("want one pod (namespace/name), got " + fmt.Sprint(fs.NArg()))
	}
	if len(*paths) == 0 {
		return usageErr("no input: give -f FILE|DIR")
	}
	if *output != "table" && *output != "json" {
		return usageErr(fmt.Sprintf("-o %q: want table or json", *output))
	}
	cfg, err := solveFlags.config()
	if err != nil {
		return usageErr(err.Error())
	}
	in, _, err := ingest.LoadWithInfo(*paths, ingest.Options{AdmissionDefaults: *solveFlags.admission, AdmissionDefaultsSet: fs.Changed("admission-defaults")})
	if err != nil {
		return fail(err)
	}
	c, err := index.Build(in)
	if err != nil {
		return fail(err)
	}
	pid, err := explain.FindPod(c, fs.Arg(0))
	if err != nil {
		return fail(err)
	}
	r, err := explain.Explain(c, pid, cfg, explain.Options{Node: *node, All: *all})
	if err != nil {
		return fail(err)
	}
	for _, warn := range append(c.Warnings, solveFlags.warnings...) {
		fmt.Fprintf(os.Stderr, "kplace explain: warning: %s\n", warn)
	}
	w := bufio.NewWriterSize(os.Stdout, 1<<16)
	if *output == "json" {
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
