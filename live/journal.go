package live

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// Journal events.
const (
	evBound   = "bound"   // the Binding is on the server (applied now, or found applied)
	evEvicted = "evicted" // the Eviction was accepted; its victim may still be terminating
	evGone    = "gone"    // the victim no longer exists
	evFailed  = "failed"  // not applied (the reason says why); a resumed run tries again
)

// journalVersion is the journal format; a journal of another version is
// refused.
const journalVersion = 1

// journalHeader is the first line of a journal.
type journalHeader struct {
	Journal string `json:"journal"` // "kplace-bind"
	Version int    `json:"version"`
	// Result is the plan's SHA-256 (Plan.Digest), Items its length.
	Result string `json:"result_sha256"`
	Items  int    `json:"items"`
	DryRun bool   `json:"dry_run"`
}

// journalRecord is one outcome.
type journalRecord struct {
	Seq       int    `json:"seq"`
	Event     string `json:"event"`
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Node      string `json:"node,omitempty"`
	Reason    string `json:"reason,omitempty"`
	Time      string `json:"time"`
}

// journal appends records to a file. Each record is written through to
// the operating system as it is added (a crashed process loses none), and
// synced to disk at most a second later and at Close.
type journal struct {
	mu     sync.Mutex
	f      *os.File
	w      *bufio.Writer
	synced time.Time
	err    error
	fresh  bool // created by this run (no earlier run's records)
}

// journalState is what an earlier run's journal says of each item.
type journalState struct {
	bound, evicted, gone []bool
	records              int
}

// openJournal opens path for plan: a new journal (an existing file is an
// error unless resume), or, with resume, the existing one after reading
// what it holds. A missing file with resume starts a new journal.
func openJournal(path string, plan *Plan, dryRun, resume bool) (*journal, *journalState, error) {
	st := &journalState{bound: make([]bool, len(plan.Items)), evicted: make([]bool, len(plan.Items)), gone: make([]bool, len(plan.Items))}
	hdr := journalHeader{Journal: "kplace-bind", Version: journalVersion, Result: plan.Digest, Items: len(plan.Items), DryRun: dryRun}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	switch {
	case err == nil && !resume:
		f.Close()
		return nil, nil, fmt.Errorf("journal %s exists (an earlier run of this or another result): --resume continues it; remove it to start over", path)
	case err == nil:
		if err := st.read(path, f, &hdr); err != nil {
			f.Close()
			return nil, nil, err
		}
		if _, err := f.Seek(0, io.SeekEnd); err != nil {
			f.Close()
			return nil, nil, err
		}
		return &journal{f: f, w: bufio.NewWriter(f), synced: time.Now()}, st, nil
	case !errors.Is(err, os.ErrNotExist):
		return nil, nil, err
	}
	if f, err = os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644); err != nil {
		return nil, nil, err
	}
	j := &journal{f: f, w: bufio.NewWriter(f), synced: time.Now(), fresh: true}
	b, _ := json.Marshal(hdr)
	j.w.Write(append(b, '\n'))
	if err := j.flush(true); err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("journal %s: %w", path, err)
	}
	return j, st, nil
}

// read loads an existing journal and checks it belongs to the plan. A
// last line cut short (the run died while writing it) is ignored.
func (st *journalState) read(path string, r io.Reader, want *journalHeader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	if !sc.Scan() {
		if err := sc.Err(); err != nil {
			return fmt.Errorf("journal %s: line 1: %w", path, err)
		}
		return fmt.Errorf("journal %s: empty: remove it to start over", path)
	}
	var h journalHeader
	if err := json.Unmarshal(sc.Bytes(), &h); err != nil || h.Journal != "kplace-bind" {
		return fmt.Errorf("journal %s: line 1: not a kplace bind journal", path)
	}
	switch {
	case h.Version != journalVersion:
		return fmt.Errorf("journal %s: format version %d, this kplace writes %d", path, h.Version, journalVersion)
	case h.Result != want.Result || h.Items != want.Items:
		return fmt.Errorf("journal %s: it records another result (sha256 %s, %d items; this one: %s, %d items)", path, h.Result, h.Items, want.Result, want.Items)
	case h.DryRun != want.DryRun:
		return fmt.Errorf("journal %s: recorded with dry run %t, this run's is %t", path, h.DryRun, want.DryRun)
	}
	line := 1
	var pendingErr error
	for sc.Scan() {
		line++
		if pendingErr != nil { // a bad line followed by more: not a cut-off end
			return pendingErr
		}
		var rec journalRecord
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil || rec.Seq < 0 || rec.Seq >= len(st.bound) {
			pendingErr = fmt.Errorf("journal %s: line %d: not a record of this result", path, line)
			continue
		}
		st.records++
		switch rec.Event {
		case evBound:
			st.bound[rec.Seq] = true
		case evEvicted:
			st.evicted[rec.Seq] = true
		case evGone:
			st.evicted[rec.Seq], st.gone[rec.Seq] = true, true
		}
	}
	if err := sc.Err(); err != nil { // a line too long, or a read error
		return fmt.Errorf("journal %s: line %d: %w", path, line+1, err)
	}
	return nil
}

// add appends one record.
func (j *journal) add(rec journalRecord) {
	if j == nil {
		return
	}
	rec.Time = time.Now().UTC().Format(time.RFC3339Nano)
	b, _ := json.Marshal(rec)
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.err != nil {
		return
	}
	j.w.Write(append(b, '\n'))
	j.err = j.flush(time.Since(j.synced) > time.Second)
}

// flush writes the buffer to the file, and syncs it when sync is set.
func (j *journal) flush(sync bool) error {
	if err := j.w.Flush(); err != nil {
		return err
	}
	if sync {
		j.synced = time.Now()
		return j.f.Sync()
	}
	return nil
}

// failed reports whether a write failed: the run must stop (a later
// resume could not trust the journal).
func (j *journal) failed() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.err != nil
}

// Close syncs and closes the journal; it returns the first write error.
func (j *journal) Close() error {
	if j == nil {
		return nil
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.err == nil {
		j.err = j.flush(true)
	}
	if err := j.f.Close(); j.err == nil {
		j.err = err
	}
	return j.err
}
