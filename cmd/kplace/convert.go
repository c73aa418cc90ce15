package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/kplace/kplace/export"
	"github.com/kplace/kplace/ingest"
	"github.com/spf13/cobra"
)

func newConvertCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "convert -f FILE|DIR|- -o cluster.arrow [flags]",
		Short: "Write the input as an Arrow snapshot that place reads without parsing JSON",
		Long: `Loads the input as place does (admission applied) and writes it as a snapshot:
Arrow IPC tables with zstd-compressed buffers, which place, simulate and convert
read with -f like any other input, much faster than JSON (see docs/formats.md).`,
		Example: `  # Convert once, place many times
  kplace convert -f cluster.json.zst -o cluster.arrow
  kplace place -f cluster.arrow -o result.json

  # From stdin
  kubectl get nodes,pods,priorityclasses -A -o json | kplace convert -f - -o cluster.arrow`,
		Args: cobra.NoArgs,
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	input := addInputFlags(fs, "input file or directory, as for place")
	out := fs.StringP("output", "o", "", `snapshot file to write ("-" for stdout)`)
	admission := fs.Bool("admission-defaults", true, "add the DefaultTolerationSeconds tolerations to pending pods before writing (recorded in the snapshot)")
	quiet := fs.BoolP("quiet", "q", false, "no summary on stderr")
	limits := addLimitFlags(fs)
	run := func() int {
		paths, code := input.withOutput(cmd, *out)
		if code != 0 {
			return code
		}
		if f, _, named := export.FormatOf(*out); named && f != export.FormatArrow {
			return usagef(cmd, "-o %s: convert writes a kplace snapshot (Arrow IPC): name it .arrow", *out)
		}
		if *out == "-" && isTerminal(os.Stdout) {
			return usagef(cmd, "-o -: stdout is a terminal: redirect it to a file or a pipe, or give -o FILE")
		}
		opts := ingest.Options{AdmissionDefaults: *admission, AdmissionDefaultsSet: fs.Changed("admission-defaults")}
		if err := limits.apply(&opts); err != nil {
			fmt.Fprintln(os.Stderr, "kplace convert:", err)
			return 2
		}
		t0 := time.Now()
		in, info, err := loadInput(paths, opts)
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
	cmd.RunE = func(*cobra.Command, []string) error { return codeErr(run()) }
	return cmd
}

// ms is d in milliseconds.
func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
