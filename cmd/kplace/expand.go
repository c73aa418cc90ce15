package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/kplace/kplace/export"
	"github.com/kplace/kplace/ingest"
	"github.com/spf13/cobra"
)

func newExpandCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "expand -f FILE|DIR|- -o expanded.json [--seed S] [flags]",
		Short: "Write the input plus the pods its controllers would create",
		Long: `Writes the input's objects, then the objects its Deployments, ReplicaSets,
StatefulSets, DaemonSets, Jobs and ReplicationControllers would create now and that
it lacks: pending Pods, the ReplicaSets of Deployments and the PersistentVolumeClaims
of StatefulSets. The output is a JSON stream of two Lists: the input's objects, then
the created ones. place reads the result without creating anything more; so do other
tools that read a JSON stream (jq -s, for one).`,
		Example: `  # See the pods place would add to the batch
  kplace expand -f cluster.json -o expanded.json

  # Compressed, with the names place --seed 7 would give
  kplace expand -f cluster.json --seed 7 -o expanded.json.zst`,
		Args: cobra.NoArgs,
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	input := addInputFlags(fs, "input file or directory, JSON or YAML, as for place (not a snapshot)")
	out := fs.StringP("output", "o", "", `file to write ("-" for stdout; .gz or .zst compresses)`)
	seed := fs.Uint64("seed", 1, "seed of the created objects' names (place --seed gives the same ones)")
	admission := fs.Bool("admission-defaults", true, "load the input as place does with this flag (it decides nothing written here)")
	quiet := fs.BoolP("quiet", "q", false, "no summary on stderr")
	run := func() int {
		paths, code := input.withOutput(cmd, *out)
		if code != 0 {
			return code
		}
		if err := checkWrites("-o", *out, export.FormatList, false); err != nil {
			return usagef(cmd, "%v", err)
		}
		t0 := time.Now()
		in, info, err := loadInput(paths, ingest.Options{AdmissionDefaults: *admission, AdmissionDefaultsSet: fs.Changed("admission-defaults")})
		if err != nil {
			return fail(err)
		}
		if info.Snapshot {
			return fail(fmt.Errorf("%s: a snapshot holds no Kubernetes objects to write back: expand the JSON or YAML it was converted from", paths[0]))
		}
		t1 := time.Now()
		exp, err := ingest.Expand(in, ingest.ExpandOptions{Seed: *seed, AdmissionDefaults: info.AdmissionDefaults})
		if err != nil {
			return fail(err)
		}
		t2 := time.Now()
		err = export.WriteFileAtomic(*out, func(w io.Writer) error {
			cw, closeFn, err := compressTo(w, *out)
			if err != nil {
				return err
			}
			bw := bufio.NewWriterSize(cw, 1<<20)
			if err := writeExpanded(bw, paths, exp); err != nil {
				return err
			}
			if err := bw.Flush(); err != nil {
				return err
			}
			return closeFn()
		})
		if err != nil {
			return fail(fmt.Errorf("write %s: %w", *out, err))
		}
		if !*quiet {
			fmt.Fprintf(os.Stderr, "kplace: wrote %s: %d workloads; created %d pods, %d ReplicaSets, %d PersistentVolumeClaims\n",
				*out, len(exp.Workloads), exp.Pods, exp.ReplicaSets, exp.PVCs)
			fmt.Fprintf(os.Stderr, "  time: load %.0fms, expand %.0fms, write %.0fms\n", ms(t1.Sub(t0)), ms(t2.Sub(t1)), ms(time.Since(t2)))
			for _, warn := range exp.Warnings {
				fmt.Fprintf(os.Stderr, "  warning: %s\n", warn)
			}
		}
		return 0
	}
	cmd.RunE = func(*cobra.Command, []string) error { return codeErr(run()) }
	return cmd
}

// writeExpanded writes the input's objects, then a List of the created
// ones, one a line.
func writeExpanded(w io.Writer, paths []string, exp *ingest.Expansion) error {
	if err := ingest.CopyInput(paths, w); err != nil {
		return err
	}
	if _, err := io.WriteString(w, `{"apiVersion":"v1","kind":"List","metadata":{},"items":[`); err != nil {
		return err
	}
	sep := "\n"
	err := exp.EachObject(func(obj []byte) error {
		if _, err := io.WriteString(w, sep); err != nil {
			return err
		}
		sep = ",\n"
		_, err := w.Write(obj)
		return err
	})
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, "\n]}\n")
	return err
}
