package main

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// chromium returns the path of a headless-capable Chromium: found on
// PATH, else installed with apt-get (Debian's chromium package) when the
// test runs as root; "" when neither works.
func chromium(t *testing.T) string {
	t.Helper()
	find := func() string {
		for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
			if p, err := exec.LookPath(name); err == nil {
				return p
			}
		}
		return ""
	}
	if p := find(); p != "" {
		return p
	}
	if os.Geteuid() == 0 {
		if _, err := exec.LookPath("apt-get"); err == nil {
			t.Log("chromium not found: installing Debian's chromium package")
			cmd := exec.Command("apt-get", "install", "-y", "-q", "chromium")
			cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Logf("apt-get install chromium: %v\n%s", err, lastLines(out, 5))
			}
		}
	}
	return find()
}

func lastLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// screenshot opens page in headless Chromium with no network and returns
// the screenshot and the console messages Chromium logged.
func screenshot(t *testing.T, browser, page string) (image.Image, []string) {
	t.Helper()
	shot := filepath.Join(t.TempDir(), "shot.png")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
		"--no-first-run", "--host-resolver-rules=MAP * ~NOTFOUND", "--enable-logging=stderr", "--v=0",
		"--window-size=1400,2400", "--screenshot="+shot, "file://"+page)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Stdout = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, lastLines(stderr.Bytes(), 20))
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v\n%s", err, lastLines(stderr.Bytes(), 20))
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	var console []string
	for _, line := range strings.Split(stderr.String(), "\n") {
		if strings.Contains(line, ":CONSOLE") {
			console = append(console, line)
		}
	}
	return img, console
}

// pixels returns img's luminance variance and how many pixels are within
// 12 of each colour (per channel) of colours.
func pixels(img image.Image, colours ...[3]int) (float64, []int) {
	b := img.Bounds()
	var sum, sq float64
	hits := make([]int, len(colours))
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			r8, g8, b8 := int(r>>8), int(g>>8), int(bl>>8)
			l := 0.299*float64(r8) + 0.587*float64(g8) + 0.114*float64(b8)
			sum += l
			sq += l * l
			for i, c := range colours {
				if abs(r8-c[0]) <= 12 && abs(g8-c[1]) <= 12 && abs(b8-c[2]) <= 12 {
					hits[i]++
				}
			}
		}
	}
	n := float64(b.Dx() * b.Dy())
	mean := sum / n
	return sq/n - mean*mean, hits
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// external matches what would make a page load something: a src or href
// attribute, a stylesheet import, a CSS url().
var external = regexp.MustCompile(`(?i)\ssrc=|\shref=|@import|url\(|<script|<link`)

// TestHTMLReportRenders writes the HTML report of place (the sample
// cluster: preemptions, pending pods, GPUs) and of simulate, opens each in
// headless Chromium with no network, and checks the screenshot: not blank
// (luminance variance), the charts' bars drawn (pixels of the after-bars'
// blue and the counts' orange), and no console message. The checks are
// first shown to fail: on a blank page and on one that logs an error.
func TestHTMLReportRenders(t *testing.T) {
	browser := chromium(t)
	if browser == "" {
		t.Skip("*** SKIPPED: Chromium not found and could not be installed (apt-get install chromium): the HTML report's rendering is NOT checked ***")
	}
	dir := t.TempDir()
	blue, orange := [3]int{0x2c, 0x6f, 0xbb}, [3]int{0xd9, 0x82, 0x2b}

	// The checks can fail: a blank page, a page that logs.
	blank := filepath.Join(dir, "blank.html")
	noisy := filepath.Join(dir, "noisy.html")
	os.WriteFile(blank, []byte("<!DOCTYPE html><html><body></body></html>"), 0o644)
	os.WriteFile(noisy, []byte(`<!DOCTYPE html><html><body><p>x</p><script>console.error("planted")</script></body></html>`), 0o644)
	if img, _ := screenshot(t, browser, blank); true {
		if v, _ := pixels(img); v > 1 {
			t.Fatalf("a blank page has luminance variance %.2f: the blank check cannot fail", v)
		}
	}
	if _, console := screenshot(t, browser, noisy); len(console) == 0 {
		t.Fatal("a console.error was not seen: the console check cannot fail")
	}

	for _, tc := range []struct {
		name string
		args []string
		bars int // orange bars expected: pending pods
	}{
		{"place", []string{"place", "--sample", "-q"}, 1},
		{"simulate", []string{"simulate", "-q", "-f", "testdata/simulate-cluster.yaml", "--drain", "pool=old"}, 0},
	} {
		page := filepath.Join(dir, tc.name+".html")
		if code, stderr := runCapture(t, append(tc.args, "--html", page)...); code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.name, code, stderr)
		}
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		if m := external.Find(b); m != nil {
			t.Errorf("%s: the page refers to something outside it: %q", tc.name, m)
		}
		if bytes.Count(b, []byte("<svg")) < 2 {
			t.Errorf("%s: %d charts", tc.name, bytes.Count(b, []byte("<svg")))
		}
		img, console := screenshot(t, browser, page)
		v, hits := pixels(img, blue, orange)
		t.Logf("%s: %d bytes; screenshot %dx%d, luminance variance %.0f, %d blue and %d orange pixels",
			tc.name, len(b), img.Bounds().Dx(), img.Bounds().Dy(), v, hits[0], hits[1])
		if v < 100 {
			t.Errorf("%s: the screenshot is blank (variance %.2f)", tc.name, v)
		}
		if hits[0] < 1000 {
			t.Errorf("%s: no utilisation bars drawn (%d blue pixels)", tc.name, hits[0])
		}
		if tc.bars > 0 && hits[1] < 1000 {
			t.Errorf("%s: no pending-pod bars drawn (%d orange pixels)", tc.name, hits[1])
		}
		if len(console) > 0 {
			t.Errorf("%s: console messages:\n%s", tc.name, strings.Join(console, "\n"))
		}
	}
}
