package rules

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// The seed pages' passages the table tests take their examples from are
// copied into testdata/ (the tests never read ../shared); each case that
// comes from one names it as "file: passage", and cites checks the passage
// is there, so an example cannot drift from its source unnoticed.

var seedFiles sync.Map // file name -> contents

// cites fails the test unless cite ("file: passage") quotes a seed
// passage in testdata/; "" cites nothing.
func cites(t *testing.T, cite string) {
	t.Helper()
	if cite == "" {
		return
	}
	file, passage, ok := strings.Cut(cite, ": ")
	if !ok {
		t.Fatalf("citation %q is not \"file: passage\"", cite)
	}
	text, ok := seedFiles.Load(file)
	if !ok {
		b, err := os.ReadFile(filepath.Join("testdata", file))
		if err != nil {
			t.Fatal(err)
		}
		text = string(b)
		seedFiles.Store(file, text)
	}
	if !strings.Contains(text.(string), passage) {
		t.Fatalf("testdata/%s does not hold the passage %q", file, passage)
	}
}
