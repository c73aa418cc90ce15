package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var (
	mdLink     = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	inlineCode = regexp.MustCompile("`[^`]*`")
)

// mdAnchors returns the anchors of a Markdown file's headings, as GitHub
// makes them: lowercase, punctuation dropped, spaces to hyphens, a
// repeated heading suffixed -1, -2, ...
func mdAnchors(text string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	for _, line := range mdLines(text) {
		if !strings.HasPrefix(line, "#") {
			continue
		}
		h := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(h) {
			switch {
			case r == ' ':
				b.WriteByte('-')
			case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127:
				b.WriteRune(r)
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			anchors[a+"-"+strconv.Itoa(n)] = true
		} else {
			anchors[a] = true
		}
		seen[a]++
	}
	return anchors
}

// mdLines returns the lines of text outside fenced code blocks.
func mdLines(text string) []string {
	var out []string
	fenced := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			out = append(out, line)
		}
	}
	return out
}

// TestDocLinks: every relative link of README.md and docs/*.md leads to a
// file that exists, and every anchor to a heading of its page.
func TestDocLinks(t *testing.T) {
	root := filepath.Join("..", "..")
	pages, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	pages = append(pages, filepath.Join(root, "README.md"))
	links := 0
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		// A link's text may span lines: join them.
		text := strings.Join(mdLines(string(b)), "\n")
		text = inlineCode.ReplaceAllString(text, "")
		for _, m := range mdLink.FindAllStringSubmatch(text, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			links++
			file, anchor, _ := strings.Cut(target, "#")
			path := page
			if file != "" {
				path = filepath.Join(filepath.Dir(page), file)
			}
			content, err := os.ReadFile(path)
			if err != nil {
				if st, serr := os.Stat(path); serr == nil && st.IsDir() && anchor == "" {
					continue
				}
				t.Errorf("%s: link %s: %v", page, target, err)
				continue
			}
			if anchor != "" && !mdAnchors(string(content))[anchor] {
				t.Errorf("%s: link %s: no heading with anchor #%s in %s", page, target, anchor, path)
			}
		}
	}
	if links == 0 {
		t.Error("no links found: the test reads nothing")
	}
}

// history finds the development diary in a page: issue numbers, sessions,
// earlier or later binaries, before and after a change.
var history = regexp.MustCompile(`(?i)\bissue \d|\bissue's\b|(this|last|previous|earlier|next|mid-)[ -]?session|(earlier|last|previous|older|old|new|newer|mid-session) binary|binary of the|before this change|after this change|than before\b|sessions? ago|\(was \d|\bEarlier:|\bcommit [0-9a-f]{7}`)

// TestDocsDescribeTheProduct: README.md and docs/*.md describe kplace as
// it is, without its development history.
func TestDocsDescribeTheProduct(t *testing.T) {
	root := filepath.Join("..", "..")
	pages, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	pages = append(pages, filepath.Join(root, "README.md"))
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if m := history.FindString(line); m != "" {
				t.Errorf("%s:%d: %q reads as history: %s", page, i+1, m, line)
			}
		}
	}
}
