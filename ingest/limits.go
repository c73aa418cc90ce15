package ingest

import (
	"bytes"
	"fmt"
	"strconv"

	yamlv2 "go.yaml.in/yaml/v2"
)

// Input limits: what one object of the input may cost. Hostile or corrupt
// input (a decompression bomb, a YAML alias bomb, a file of one endless
// line) fails with an error that names the limit, instead of exhausting
// memory: readers stop at the limit, before holding more.
const (
	// DefaultMaxObjectSize bounds one JSON object or List item, one YAML
	// document, and the JSON a YAML document expands to. The API server
	// stores objects of at most a few MiB; a YAML document holding a whole
	// List is the case that needs more.
	DefaultMaxObjectSize = 64 << 20
	// DefaultMaxLineSize bounds one line of YAML.
	DefaultMaxLineSize = 4 << 20
	// DefaultMaxStdinSize bounds standard input, held in memory whole,
	// when Options.MaxStdinSize does not (kplace sets half the machine's
	// memory, when that is more).
	DefaultMaxStdinSize = 4 << 30
	// MaxSize bounds what the limit flags take: an object past it is no
	// Kubernetes object (etcd stores at most a few MiB), and raising a
	// limit that far would turn a bomb's error into memory exhausted.
	MaxSize = 4 << 30
)

// Flags that raise the limits, named in the errors.
const (
	flagMaxObject = "--max-object-size"
	flagMaxLine   = "--max-line-size"
)

func (o *Options) maxObject() int64 {
	if o.MaxObjectSize > 0 {
		return o.MaxObjectSize
	}
	return DefaultMaxObjectSize
}

// limitFlag is flag, the one that raises a limit, for errors to name; ""
// when the limits are fixed (a file no flag sets the limits of).
func (o *Options) limitFlag(flag string) string {
	if o.fixedLimits {
		return ""
	}
	return flag
}

func (o *Options) maxStdin() int64 {
	if o.MaxStdinSize > 0 {
		return o.MaxStdinSize
	}
	return DefaultMaxStdinSize
}

func (o *Options) maxLine() int64 {
	if o.MaxLineSize > 0 {
		return o.MaxLineSize
	}
	return DefaultMaxLineSize
}

// limitError is input refused by a limit; line is where the refused part
// starts (0: unknown).
type limitError struct {
	what  string // "a JSON value", "line 12", ...
	limit int64
	flag  string
	line  int
}

func (e *limitError) Error() string {
	if e.flag == "" {
		return fmt.Sprintf("%s is larger than the limit of %s bytes", e.what, FormatSize(e.limit))
	}
	return fmt.Sprintf("%s is larger than the limit of %s bytes (raise it with %s)", e.what, FormatSize(e.limit), e.flag)
}

// ParseSize parses a size in bytes for the limit flags: a plain number or
// a Kubernetes quantity ("64Mi", "1Gi", "500M").
func ParseSize(s string) (int64, error) {
	a, neg, err := parseQuantity(s)
	if err != nil {
		return 0, fmt.Errorf("invalid size %q (want bytes, or a quantity such as 64Mi)", s)
	}
	v, ok := a.units()
	if neg || !ok || v < 1 {
		return 0, fmt.Errorf("invalid size %q (want at least 1 byte)", s)
	}
	if v > MaxSize {
		return 0, fmt.Errorf("size %q is more than %s", s, FormatSize(MaxSize))
	}
	return v, nil
}

// FormatSize writes a size in bytes the way ParseSize reads it, in the
// largest binary suffix that divides it ("64Mi").
func FormatSize(n int64) string {
	for _, u := range []struct {
		shift  uint
		suffix string
	}{{30, "Gi"}, {20, "Mi"}, {10, "Ki"}} {
		if n > 0 && n%(1<<u.shift) == 0 {
			return strconv.FormatInt(n>>u.shift, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}

// checkYAMLAliases refuses a YAML document whose aliases would expand it
// beyond max bytes of JSON. Only documents with both an anchor ('&') and
// an alias ('*') byte are parsed for it (exports have neither): the tree
// yaml.v2 builds shares aliased scalars (and bounds aliased collections by
// its own ratio check), so its size is counted without building the JSON.
// The error is a *limitError.
func checkYAMLAliases(doc []byte, max int64) error {
	if bytes.IndexByte(doc, '&') < 0 || bytes.IndexByte(doc, '*') < 0 {
		return nil
	}
	var v any
	if yamlv2.Unmarshal(doc, &v) != nil {
		return nil // YAMLToJSON reports the syntax error
	}
	if n := jsonSize(v, max); n > max {
		return &limitError{what: "the JSON this YAML document expands to (through its aliases)", limit: max, flag: flagMaxObject}
	}
	return nil
}

// jsonSize is about the length of v as JSON, counted until it passes max.
func jsonSize(v any, max int64) int64 {
	var n int64
	var walk func(v any)
	walk = func(v any) {
		if n > max {
			return
		}
		switch v := v.(type) {
		case string:
			n += int64(len(v)) + 2
		case []any:
			n += 2
			for _, e := range v {
				walk(e)
				n++
			}
		case map[any]any:
			n += 2
			for k, e := range v {
				walk(k)
				walk(e)
				n += 2
			}
		default:
			n += 8
		}
	}
	walk(v)
	return n
}
