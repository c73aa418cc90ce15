package main

import (
	"fmt"
	"os"

	"github.com/kplace/kplace/export"
	"github.com/kplace/kplace/ingest"
)

// output is a file a command writes, by the flag that names it.
type output struct{ flag, path string }

// checkOutputs refuses, before any work, outputs that are directories or
// would overwrite each other or an input of the run (inputs are files or
// directories, as -f takes them). Files are compared as the writer would write them: through
// symlinks, an existing file by device and inode; "-" (stdout) twice is a
// collision too. An input that cannot be listed is left to the load to
// report.
func checkOutputs(inputs []string, outs ...output) error {
	var set []output
	for _, o := range outs {
		if o.path == "" {
			continue
		}
		if st, err := os.Stat(o.path); err == nil && st.IsDir() {
			return fmt.Errorf("%s %s is a directory", o.flag, o.path)
		}
		set = append(set, o)
	}
	for i, a := range set {
		for _, b := range set[:i] {
			if export.SameFile(a.path, b.path) {
				return fmt.Errorf("%s and %s name the same file (%s): one would overwrite the other", b.flag, a.flag, a.path)
			}
		}
	}
	files, err := ingest.InputFiles(inputs, false)
	if err != nil {
		return nil
	}
	for _, o := range set {
		for _, in := range files {
			if in != ingest.Stdin && export.SameFile(o.path, in) {
				return fmt.Errorf("%s %s is an input of this run (%s): it would be overwritten", o.flag, o.path, in)
			}
		}
	}
	return nil
}
