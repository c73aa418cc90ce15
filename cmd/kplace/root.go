package main

import (
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kplace/kplace/ingest"
)

// The command line is cobra's, as kubectl's is: help on stdout with
// examples, "kplace help CMD", shell completion and "did you mean"
// suggestions come with it. Each command is a func newXCmd() *cobra.Command
// in its own file; its flags are defined on cmd.Flags() (a pflag.FlagSet)
// and its RunE returns exitCode(code) once it has printed its message.
//
// A command written as func cmdX(args []string) int with its own FlagSet
// runs unchanged as legacyCmd("x", short, cmdX) in newRootCmd. To convert
// it: replace pflag.NewFlagSet by a cobra.Command (Use, Short, Long,
// Example, Args: cobra.NoArgs) and fs := cmd.Flags(); keep the flag
// definitions; drop fs.Usage and fs.Parse; put the rest in run := func()
// int { ... } with cmd.RunE = func(*cobra.Command, []string) error {
// return codeErr(run()) }; take -f and -R from addInputFlags and
// input.files(), and check output names with checkOutputs or checkWrites.

// exitCode is the error of a command that printed its own message and
// exits with this code (1: the run failed, 2: a usage error).
type exitCode int

func (c exitCode) Error() string { return "exit status " + strconv.Itoa(int(c)) }

// codeErr turns a command's exit code into RunE's error.
func codeErr(code int) error {
	if code == 0 {
		return nil
	}
	return exitCode(code)
}

// newRootCmd is kplace and its commands.
func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "kplace",
		Short: "Offline batch placement of Kubernetes pods",
		Long: `kplace reads an exported Kubernetes cluster (kubectl get -o json|yaml output, or its
own Arrow snapshot) and places every pending pod in one batch with kube-scheduler's
semantics, writing the Bindings and Evictions a binder applies and a report that
explains every pod left pending in kube-scheduler's words.`,
		Example: `  # Export a cluster, place its pending pods, read the summary on stderr
  kubectl get nodes,pods,poddisruptionbudgets,priorityclasses,namespaces,services,deployments,replicasets,statefulsets,daemonsets,jobs,replicationcontrollers -A -o json > cluster.json
  kplace place -f cluster.json -o result.json --report report.json

  # No cluster at hand: generate one
  kplace gen --profile mixed --nodes 100 --pods 1000 -o cluster.json`,
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.AddCommand(newPlaceCmd(), newSimulateCmd(), newExplainCmd(), newConvertCmd(), newExpandCmd(),
		newSnapshotCmd(), newBindCmd(),
		newGenCmd(), newBenchCmd(), newVersionCmd())
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return err })
	// kplace --version: the first line of kplace version.
	bi, ok := debug.ReadBuildInfo()
	root.Version = buildVersion(bi, ok).Version
	root.SetVersionTemplate("kplace {{.Version}}\n")
	// cobra's completion command prints its help for a shell it does not
	// know, and exits 0: make that a usage error.
	root.InitDefaultCompletionCmd()
	if c, _, err := root.Find([]string{"completion"}); err == nil && c.Name() == "completion" {
		c.Args = cobra.MaximumNArgs(1)
		c.RunE = func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return c.Help()
			}
			return fmt.Errorf("unknown shell %q (want bash, zsh, fish or powershell)", args[0])
		}
	}
	// cobra's help command prints "Unknown help topic" and the usage for a
	// command it does not know, and exits 0: make that a usage error too.
	root.InitDefaultHelpCmd()
	if h, _, err := root.Find([]string{"help"}); err == nil && h.Name() == "help" && h.Run != nil {
		help := h.Run
		h.Run = nil
		h.RunE = func(c *cobra.Command, args []string) error {
			if t, _, err := c.Root().Find(args); len(args) > 0 && (err != nil || t == c.Root()) {
				return fmt.Errorf("unknown help topic %q (the commands are listed by kplace --help)", strings.Join(args, " "))
			}
			help(c, args)
			return nil
		}
	}
	return root
}

// legacyCmd runs a command that parses its own flags (run(args) int):
// cobra passes it every argument. A command is converted by moving its
// flag definitions onto cmd.Flags() in a newXCmd.
func legacyCmd(name, short string, run func(args []string) int) *cobra.Command {
	return &cobra.Command{
		Use:                name,
		Short:              short,
		Long:               short + ".\n\nRun \"kplace " + name + " --help\" for its flags.",
		DisableFlagParsing: true,
		RunE:               func(_ *cobra.Command, args []string) error { return codeErr(run(args)) },
	}
}

// run executes the command line args and returns the exit code: 0 success,
// 1 a failed run (bad input, I/O), 2 a usage error (a bad flag or value,
// an unknown command), whose message names the command.
func run(args []string) int {
	root := newRootCmd()
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	if err == nil {
		return 0
	}
	var code exitCode
	if errors.As(err, &code) {
		return int(code)
	}
	fmt.Fprintf(os.Stderr, "%s: %v\n", cmd.CommandPath(), strings.TrimRight(err.Error(), "\n"))
	fmt.Fprintf(os.Stderr, "See '%s --help' for usage.\n", cmd.CommandPath())
	return 2
}

// usagef prints a usage error of cmd and returns its exit code, 2.
func usagef(cmd *cobra.Command, format string, a ...any) int {
	fmt.Fprintf(os.Stderr, "%s: %s\n", cmd.CommandPath(), fmt.Sprintf(format, a...))
	return 2
}

// inputFlags are -f and -R, as kubectl has them: -f takes a file, a
// directory or "-" (stdin), repeated or comma-separated.
type inputFlags struct {
	paths     *[]string
	recursive *bool
}

// addInputFlags defines -f (described by what) and -R on fs.
func addInputFlags(fs *pflag.FlagSet, what string) inputFlags {
	return inputFlags{
		paths: fs.StringSliceP("filename", "f", nil, what+`; "-" reads stdin. Repeat -f or separate with commas`),
		recursive: fs.BoolP("recursive", "R", false, "read the directories -f names recursively (by default only the files directly\n"+
			"in a directory, as kubectl)"),
	}
}

// files returns the input files the flags name, directories expanded
// (recursively with -R), in the order they are read.
func (f inputFlags) files() ([]string, error) {
	return ingest.InputFiles(*f.paths, *f.recursive)
}

// withOutput checks the -f and -o a command requires and returns the input
// files; a code other than 0 ends the command (its message printed).
func (f inputFlags) withOutput(cmd *cobra.Command, out string) (files []string, code int) {
	if len(*f.paths) == 0 || out == "" {
		return nil, usagef(cmd, "-f and -o are required")
	}
	files, err := f.files()
	if err != nil {
		return nil, fail(err)
	}
	if err := checkOutputs(files, output{"-o", out}); err != nil {
		return nil, usagef(cmd, "%v", err)
	}
	return files, 0
}

// completeValues makes the shell complete flag's value from values.
func completeValues(cmd *cobra.Command, flag string, values ...string) {
	err := cmd.RegisterFlagCompletionFunc(flag, func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return values, cobra.ShellCompDirectiveNoFileComp
	})
	if err != nil {
		panic(err) // a flag name misspelt here
	}
}

// completeSolveFlags completes the values of the scheduler's flags.
func completeSolveFlags(cmd *cobra.Command) {
	completeValues(cmd, "strategy", "least-allocated", "most-allocated", "LeastAllocated", "MostAllocated")
}
