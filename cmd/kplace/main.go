// Command kplace places pending Kubernetes pods on an exported cluster in one
// batch, with kube-scheduler's semantics, and writes the Bindings a binder
// consumes plus a report of every pod left pending. See README.md.
package main

import (
	"fmt"
	"os"
)

const usage = `kplace - offline batch placement of Kubernetes pods

Usage:
  kplace place -f FILE|DIR [-f ...] [-o result.json] [--report report.json] [flags]
  kplace place --sample [flags]          place the bundled sample cluster
  kplace gen --profile P --nodes N --pods M [--seed S] -o FILE
  kplace bench [--nodes N --pods M --profile P]
  kplace version

Run "kplace COMMAND --help" for the flags of a command.
`

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	os.Exit(run(os.Args[1:]))
}

// run dispatches a subcommand and returns the exit code: 0 success, 1 a
// failed run (bad input, I/O), 2 a usage error.
func run(args []string) int {
	if len(args) == 0 {
		fmt.Fprint(os.Stderr, usage)
		return 2
	}
	switch args[0] {
	case "place":
		return cmdPlace(args[1:])
	case "gen":
		return cmdGen(args[1:])
	case "bench":
		return cmdBench(args[1:])
	case "version", "--version":
		fmt.Println("kplace", version)
		return 0
	case "help", "-h", "--help":
		fmt.Print(usage)
		return 0
	}
	fmt.Fprintf(os.Stderr, "kplace: unknown command %q\n\n%s", args[0], usage)
	return 2
}

// fail prints an error and returns exit code 1.
func fail(err error) int {
	fmt.Fprintln(os.Stderr, "kplace:", err)
	return 1
}
