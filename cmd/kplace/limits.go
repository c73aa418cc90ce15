package main

import (
	"fmt"

	"github.com/kplace/kplace/ingest"
	"github.com/spf13/pflag"
)

// limitFlags are the input limits of every command that loads input.
type limitFlags struct {
	object, line *string
}

func addLimitFlags(fs *pflag.FlagSet) limitFlags {
	return limitFlags{
		object: fs.String("max-object-size", ingest.FormatSize(ingest.DefaultMaxObjectSize),
			"the largest JSON object or List item, or YAML document, the input may hold (bytes, or a quantity such as 256Mi)"),
		line: fs.String("max-line-size", ingest.FormatSize(ingest.DefaultMaxLineSize),
			"the longest line a YAML input may hold (bytes, or a quantity such as 16Mi)"),
	}
}

// apply sets the limits in opts; an error is a usage error.
func (f limitFlags) apply(opts *ingest.Options) error {
	var err error
	if opts.MaxObjectSize, err = ingest.ParseSize(*f.object); err != nil {
		return fmt.Errorf("--max-object-size: %w", err)
	}
	if opts.MaxLineSize, err = ingest.ParseSize(*f.line); err != nil {
		return fmt.Errorf("--max-line-size: %w", err)
	}
	return nil
}
