package scenario

import (
	"bufio"
	"io"
	"strconv"
	"time"

	"github.com/kplace/kplace/export"
)

// timeline writes events as JSON lines in time order: t (seconds since the
// scenario began), event, pod (namespace/name) and node where they apply,
// reason, and for some events taint or zone; step is the scenario step
// (from 0) whose change led to the event, when there is one.
type timeline struct {
	w     *bufio.Writer
	buf   []byte
	count int
	err   error
}

func newTimeline(w io.Writer) *timeline {
	t := &timeline{}
	if w != nil {
		t.w = bufio.NewWriterSize(w, 1<<20)
	}
	return t
}

func (t *timeline) add(at time.Duration, event, pod, node, reason string, step int32) {
	t.write(at, event, pod, node, reason, "", "", step)
}

func (t *timeline) taint(at time.Duration, event, node, taint, reason string, step int32) {
	t.write(at, event, "", node, reason, taint, "", step)
}

func (t *timeline) zone(at time.Duration, zone, state string) {
	t.write(at, "zone-state", "", "", state, "", zone, -1)
}

func (t *timeline) write(at time.Duration, event, pod, node, reason, taint, zone string, step int32) {
	t.count++
	if t.w == nil || t.err != nil {
		return
	}
	b := append(t.buf[:0], `{"t":`...)
	b = strconv.AppendFloat(b, at.Seconds(), 'f', -1, 64)
	b = append(b, `,"event":`...)
	b = export.AppendJSONString(b, event)
	if pod != "" {
		b = append(b, `,"pod":`...)
		b = export.AppendJSONString(b, pod)
	}
	if node != "" {
		b = append(b, `,"node":`...)
		b = export.AppendJSONString(b, node)
	}
	if taint != "" {
		b = append(b, `,"taint":`...)
		b = export.AppendJSONString(b, taint)
	}
	if zone != "" {
		b = append(b, `,"zone":`...)
		b = export.AppendJSONString(b, zone)
	}
	b = append(b, `,"reason":`...)
	b = export.AppendJSONString(b, reason)
	if step >= 0 {
		b = append(b, `,"step":`...)
		b = strconv.AppendInt(b, int64(step), 10)
	}
	b = append(b, "}\n"...)
	t.buf = b
	_, t.err = t.w.Write(b)
}

func (t *timeline) flush() error {
	if t.w == nil || t.err != nil {
		return t.err
	}
	return t.w.Flush()
}
