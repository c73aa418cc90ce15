package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

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
		if err := checkOutputPath(o.flag, o.path); err != nil {
			return err
		}
		st, err := os.Stat(o.path)
		if err == nil && st.IsDir() {
			return fmt.Errorf("%s %s is a directory", o.flag, o.path)
		}
		if err == nil && st.Mode()&os.ModeCharDevice != 0 {
			continue // /dev/null, a terminal: outputs there do not overwrite each other
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

// formatNames are the words -o refuses as file names: a user who writes
// -o yaml means a format, as kubectl's -o is; kplace's -o names a file.
var formatNames = map[string]bool{"json": true, "jsonl": true, "ndjson": true, "yaml": true, "yml": true, "arrow": true,
	"parquet": true, "list": true, "wide": true, "name": true, "html": true, "table": true}

// checkOutputName refuses a format name given as a file name.
func checkOutputName(flag, path string) error {
	if formatNames[strings.ToLower(path)] {
		return fmt.Errorf("%s %s: %s names a file, not a format: give a file name such as result.%s", flag, path, flag, strings.ToLower(path))
	}
	return nil
}

// checkOutputPath refuses, before any work, a format name given as a file
// name and a file whose directory does not exist: a run that would fail
// only when it writes, after all its work, and after its other outputs.
func checkOutputPath(flag, path string) error {
	if err := checkOutputName(flag, path); err != nil {
		return err
	}
	if path == "" || path == "-" {
		return nil
	}
	target, err := export.ResolveTarget(path)
	if err != nil {
		target = path
	}
	dir := filepath.Dir(target)
	if fi, err := os.Stat(target); err == nil {
		if !fi.Mode().IsRegular() {
			return nil // a device, a FIFO: written through, in place
		}
	} else {
		st, err := os.Stat(dir)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return fmt.Errorf("%s %s: no directory %s: create it first", flag, path, dir)
		case err != nil:
			return fmt.Errorf("%s %s: %w", flag, path, err)
		case !st.IsDir():
			return fmt.Errorf("%s %s: %s is not a directory", flag, path, dir)
		}
	}
	// The writer creates a temporary file beside the target.
	if err := export.CanCreateIn(dir); err != nil {
		return fmt.Errorf("%s %s: %w", flag, path, err)
	}
	return nil
}

// resultFormat is the format a result goes out in: --format when given
// (formatFlag not ""), else the suffix of out, else a JSON list. With
// compressed, out's .gz or .zst suffix, which only text formats take. A
// format but no file to write, or a binary format to a terminal, is an
// error: nothing the user asked for would be written.
func resultFormat(out, formatFlag string) (f export.Format, compressed string, err error) {
	if err := checkOutputName("-o", out); err != nil {
		return "", "", fmt.Errorf("%w, or --format %s with -o FILE or -o - (stdout)", err, strings.ToLower(out))
	}
	byName, z, named := export.FormatOf(out)
	switch {
	case formatFlag != "":
		if f, err = export.ParseFormat(formatFlag); err != nil {
			return "", "", err
		}
		if out == "" {
			return "", "", fmt.Errorf("--format %s: give -o FILE, or -o - for stdout", f)
		}
	case named:
		f = byName
	default:
		f = export.FormatList
	}
	if f.Binary() && z != "" {
		return "", "", fmt.Errorf("-o %s: the %s table compresses its own buffers (zstd): drop %s", out, f, z)
	}
	if f.Binary() && out == "-" && isTerminal(os.Stdout) {
		return "", "", fmt.Errorf("--format %s -o -: stdout is a terminal: redirect it to a file or a pipe, or give -o FILE", f)
	}
	return f, z, nil
}

// isTerminal reports whether f is a character device (a terminal).
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// checkWrites checks the name of a file a command writes in one format
// (want) or, when snapshot, also as an Arrow snapshot (.arrow): a format
// name, or a suffix that names another format, is a usage error.
func checkWrites(flag, path string, want export.Format, snapshot bool) error {
	if err := checkOutputPath(flag, path); err != nil {
		return err
	}
	f, _, named := export.FormatOf(path)
	switch {
	case !named || f == want || snapshot && f == export.FormatArrow:
	case snapshot:
		return fmt.Errorf("%s %s: this command writes a JSON List (.json, .json.gz, .json.zst) or a kplace snapshot (.arrow)", flag, path)
	default:
		return fmt.Errorf("%s %s: this command writes a JSON List: name the file .json, .json.gz or .json.zst (kplace convert writes snapshots)", flag, path)
	}
	return nil
}
