package main

import (
	"fmt"
	"io"
	"os"
	"time"
)

// progress draws a one-line progress bar on a terminal, only once a phase
// has run for a second. A nil *progress does nothing.
type progress struct {
	w     io.Writer
	label string
	unit  string // what is counted: "pods" unless set
	start time.Time
	last  time.Time
	drawn bool
}

// newProgress returns a progress bar on w, or nil when w is not a terminal.
func newProgress(w *os.File, label string) *progress {
	st, err := w.Stat()
	if err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return nil
	}
	now := time.Now()
	return &progress{w: w, label: label, start: now, last: now}
}

func (p *progress) update(done, total int) {
	if p == nil || total == 0 {
		return
	}
	now := time.Now()
	if now.Sub(p.start) < time.Second || now.Sub(p.last) < 200*time.Millisecond {
		return
	}
	p.last = now
	p.drawn = true
	const width = 30
	fill := done * width / total
	bar := make([]byte, width)
	for i := range bar {
		bar[i] = '.'
		if i < fill {
			bar[i] = '#'
		}
	}
	rate := float64(done) / now.Sub(p.start).Seconds()
	unit := p.unit
	if unit == "" {
		unit = "pods"
	}
	fmt.Fprintf(p.w, "\r%s [%s] %d/%d %s  %.0f %s/s ", p.label, bar, done, total, unit, rate, unit)
}

func (p *progress) done() {
	if p != nil && p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
