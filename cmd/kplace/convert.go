package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/kplace/kplace/export"
	"github.com/kplace/kplace/ingest"
	"github.com/spf13/pflag"
)

func cmdConvert(args []string) int {
	fs := pflag.NewFlagSet("convert", pflag.ContinueOnError)
	fs.SortFlags = false
	paths := fs.StringArrayP("filename", "f", nil, "input file or directory (repeatable), as for place")
	out := fs.StringP("output", "o", "", `snapshot file to write ("-" for stdout)`)
	admission := fs.Bool("admission-defaults", true, "add the DefaultTolerationSeconds tolerations to pending pods before writing (recorded in the snapshot)")
	quiet := fs.BoolP("quiet", "q", false, "no summary on stderr")
	limits := addLimitFlags(fs)
	fs.Usage = func() {
		fmt.Fprintf(os.Stderr, "Usage: kplace convert -f FILE|DIR [-f ...] -o cluster.arrow [--admission-defaults=true|false]\n\n"+
			"Loads the input as place does (admission applied) and writes it as a snapshot: Arrow IPC\n"+
			"tables with zstd-compressed buffers (see README.md), which place -f reads without parsing JSON.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if code, done := parseInOut(fs, "convert", args, paths, out); done {
		return code
	}
	if err := checkOutputs(*paths, output{"-o", *out}); err != nil {
		fmt.Fprintln(os.Stderr, "kplace convert:", err)
		return 2
	}
	opts := ingest.Options{AdmissionDefaults: *admission, AdmissionDefaultsSet: fs.Changed("admission-defaults")}
	if err := limits.apply(&opts); err != nil {
		fmt.Fprintln(os.Stderr, "kplace convert:", err)
		return 2
	}
	t0 := time.Now()
	in, info, err := ingest.LoadWithInfo(*paths, opts)
	if err != nil {
		return fail(err)
	}
	t1 := time.Now()
	size := int64(0)
	err = export.WriteFileAtomic(*out, func(w io.Writer) error {
		cw := &export.CountingWriter{W: w}
		err := ingest.WriteSnapshot(cw, in, ingest.SnapshotOptions{AdmissionDefaults: info.AdmissionDefaults})
		size = cw.N
		return err
	})
	if err != nil {
		return fail(fmt.Errorf("write %s: %w", *out, err))
	}
	if !*quiet {
		fmt.Fprintf(os.Stderr, "kplace: wrote %s: %d nodes, %d pods, %d priority classes, %d PDBs, %d namespaces, %d workloads; %d bytes\n",
			*out, len(in.Nodes), len(in.Pods), len(in.PriorityClasses), len(in.PDBs), len(in.Namespaces), len(in.Workloads), size)
		fmt.Fprintf(os.Stderr, "  time: load %.0fms, write %.0fms (admission defaults %t)\n",
			ms(t1.Sub(t0)), ms(time.Since(t1)), info.AdmissionDefaults)
	}
	return 0
}

// ms is d in milliseconds.
func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
