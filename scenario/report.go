package scenario

import (
	"cmp"
	"slices"
	"time"

	"github.com/kplace/kplace/index"
)

// Report is what a run did, step by step.
type Report struct {
	Scenario string `json:"scenario"`
	// Nodes and Pods are the cluster's at the start (pods that exist:
	// bound and pending); PendingAtStart the pending ones.
	Nodes          int `json:"nodes"`
	Pods           int `json:"pods"`
	PendingAtStart int `json:"pending_at_start"`
	// EndS is the virtual time the run ended at, in seconds.
	EndS  float64     `json:"end_s"`
	Steps []StepStats `json:"steps"`
	// Totals over the run.
	Displaced int `json:"displaced"`
	Replaced  int `json:"replaced"`
	Lost      int `json:"lost"`
	Placed    int `json:"placed"`
	Pending   int `json:"pending"`
	// SchedulerRuns counts the scheduler's batches.
	SchedulerRuns int `json:"scheduler_runs"`
	// PeakPending is the most pods waiting when the scheduler ran, and
	// when.
	PeakPending   int     `json:"peak_pending"`
	PeakPendingAt float64 `json:"peak_pending_at_s"`
	// PendingPods lists the pods pending at the end, with the
	// scheduler's reason and the step that displaced them (-1: none).
	PendingPods []PendingPod `json:"pending_pods"`
	Events      int          `json:"timeline_events"`
	Warnings    []string     `json:"warnings,omitempty"`
	Timings     Timings      `json:"timings"`
}

// Timings are phase durations in milliseconds (wall clock): reading the
// input, setting the run up (index, first records), the run (Scheduler of
// it in the scheduler's batches), writing the outputs. The caller sets
// all but Scheduler.
type Timings struct {
	Load      float64 `json:"load_ms"`
	Setup     float64 `json:"setup_ms"`
	Simulate  float64 `json:"simulate_ms"`
	Scheduler float64 `json:"scheduler_ms"`
	Write     float64 `json:"write_ms"`
	Total     float64 `json:"total_ms"`
}

// PendingPod is a pod pending at the end.
type PendingPod struct {
	Pod    string `json:"pod"`
	Reason string `json:"reason"`
	Step   int32  `json:"step"`
}

// ReasonCount is a pending reason and how many pods it holds.
type ReasonCount struct {
	Reason string `json:"reason"`
	Pods   int    `json:"pods"`
}

// StepStats is one step's outcome: what its change displaced (deleted,
// evicted, preempted, directly or through the controllers), what was
// placed again, and what waits still.
type StepStats struct {
	Index       int     `json:"index"`
	AtS         float64 `json:"at_s"`
	Action      string  `json:"action"`
	Description string  `json:"description"`
	// Nodes is how many nodes the step acted on.
	Nodes int `json:"nodes"`
	// CapacityLost and CapacityAdded are the allocatable of the nodes
	// that stopped or started taking pods (not cordoned, kubelet up, no
	// NoSchedule or NoExecute taint beyond those they began with, save
	// the controllers' condition taints), by resource in the model's
	// units: cpu in millicores, memory and storage in bytes; "nodes"
	// counts them.
	CapacityLost  map[string]int64 `json:"capacity_lost,omitempty"`
	CapacityAdded map[string]int64 `json:"capacity_added,omitempty"`
	// Displaced counts the pods its change deleted, by reason.
	Displaced   int            `json:"displaced"`
	DisplacedBy map[string]int `json:"displaced_by,omitempty"`
	// Replaced counts the replacements bound; Lost the displaced pods
	// not replaced: without a controller, a DaemonSet's or mirror pod, or
	// one whose controller makes none.
	Replaced int `json:"replaced"`
	Lost     int `json:"lost"`
	// Created and Placed count the pods the step created (scale, apply)
	// and those of them bound.
	Created int `json:"created"`
	Placed  int `json:"placed"`
	// Pending counts this step's pods (replacements, created ones)
	// pending at the end, with their reasons.
	Pending        int           `json:"pending"`
	PendingReasons []ReasonCount `json:"pending_reasons,omitempty"`
	// TimeToReplace is the seconds from the step until its last
	// displaced pod was placed again, or "never" when some never was
	// (pending at the end, or without a controller); null when nothing
	// was displaced.
	TimeToReplace any `json:"time_to_replace_s"`
	// PeakPending is the most of this step's pods waiting when the
	// scheduler ran.
	PeakPending   int     `json:"peak_pending"`
	PeakPendingAt float64 `json:"peak_pending_at_s"`
	// EvictionRefusals counts the evictions the API refused (drain).
	EvictionRefusals int           `json:"eviction_refusals,omitempty"`
	Drain            []drainResult `json:"drain,omitempty"`

	lastBind time.Duration
}

// reportState gathers the report during the run.
type reportState struct {
	e     *Engine
	r     Report
	steps []StepStats
}

func newReportState(e *Engine) *reportState {
	rs := &reportState{e: e}
	rs.r.Scenario = e.sc.File
	rs.r.Nodes = e.c.NumNodes()
	for pid := range e.pods {
		if !e.pods[pid].deleted {
			rs.r.Pods++
		}
	}
	rs.r.PendingAtStart = len(e.pending)
	for i := range e.sc.Steps {
		st := &e.sc.Steps[i]
		rs.steps = append(rs.steps, StepStats{Index: st.Index, AtS: st.At.Seconds(), Action: st.Action, Description: st.Describe()})
	}
	slices.SortFunc(rs.steps, func(a, b StepStats) int { return cmp.Compare(a.Index, b.Index) })
	return rs
}

func (rs *reportState) of(cause int32) *StepStats {
	if cause < 0 || int(cause) >= len(rs.steps) {
		return nil
	}
	return &rs.steps[cause]
}

func (rs *reportState) displaced(pid index.PodID, how delKind, cause int32) {
	rs.r.Displaced++
	if s := rs.of(cause); s != nil {
		s.Displaced++
		if s.DisplacedBy == nil {
			s.DisplacedBy = map[string]int{}
		}
		s.DisplacedBy[delEvent[how].reason]++
	}
}

func (rs *reportState) lost(cause int32) {
	rs.r.Lost++
	if s := rs.of(cause); s != nil {
		s.Lost++
	}
}

func (rs *reportState) created(pid index.PodID) {
	info := &rs.e.pods[pid]
	if s := rs.of(info.cause); s != nil && info.replaces < 0 {
		s.Created++
	}
}

func (rs *reportState) bound(pid index.PodID) {
	info := &rs.e.pods[pid]
	rs.r.Placed++
	if info.replaces >= 0 {
		rs.r.Replaced++
	}
	s := rs.of(info.cause)
	if s == nil {
		return
	}
	if info.replaces >= 0 {
		s.Replaced++
		s.lastBind = rs.e.now
	} else {
		s.Placed++
	}
}

func (rs *reportState) blocked(cause int32) {
	if s := rs.of(cause); s != nil {
		s.EvictionRefusals++
	}
}

// pendingNow notes the pods waiting when the scheduler runs.
func (rs *reportState) pendingNow(batch []index.PodID) {
	now := rs.e.now.Seconds()
	if len(batch) > rs.r.PeakPending {
		rs.r.PeakPending, rs.r.PeakPendingAt = len(batch), now
	}
	counts := map[int32]int{}
	for _, pid := range batch {
		if c := rs.e.pods[pid].cause; c >= 0 {
			counts[c]++
		}
	}
	for c, n := range counts {
		if s := rs.of(c); s != nil && n > s.PeakPending {
			s.PeakPending, s.PeakPendingAt = n, now
		}
	}
}

func (rs *reportState) capacity(st *Step, lost, added map[string]int64, nodes int) {
	s := rs.of(int32(st.Index))
	s.Nodes = nodes
	if len(lost) > 0 {
		s.CapacityLost = lost
	}
	if len(added) > 0 {
		s.CapacityAdded = added
	}
}

// finish completes the report at the end of the run.
func (rs *reportState) finish() {
	e := rs.e
	rs.r.EndS = e.now.Seconds()
	rs.r.SchedulerRuns = e.rounds
	rs.r.Timings.Scheduler = float64(e.schedTime.Microseconds()) / 1000
	rs.r.Events = e.tl.count
	rs.r.Warnings = e.warnings
	reasons := map[int32]map[string]int{}
	var pend []index.PodID
	for pid := range e.pending {
		pend = append(pend, pid)
	}
	slices.Sort(pend)
	rs.r.PendingPods = []PendingPod{}
	for _, pid := range pend {
		info := &e.pods[pid]
		rs.r.PendingPods = append(rs.r.PendingPods, PendingPod{Pod: podKey(&e.c.Pods[pid]), Reason: info.reason, Step: info.cause})
		if reasons[info.cause] == nil {
			reasons[info.cause] = map[string]int{}
		}
		reasons[info.cause][info.reason]++
	}
	rs.r.Pending = len(pend)
	for _, d := range e.drains {
		s := rs.of(int32(d.step.Index))
		s.Drain = append(s.Drain, d.results...)
	}
	for i := range rs.steps {
		s := &rs.steps[i]
		s.PendingReasons = TopReasons(reasons[int32(s.Index)], 0)
		for _, rc := range s.PendingReasons {
			s.Pending += rc.Pods
		}
		switch {
		case s.Displaced == 0:
		case s.Pending > 0 || s.Lost > 0 || s.Replaced < s.Displaced-s.Lost:
			s.TimeToReplace = "never"
		default:
			s.TimeToReplace = max(0, s.lastBind.Seconds()-s.AtS)
		}
	}
	rs.r.Steps = rs.steps
}

// TopReasons sorts reasons by pods (then text); at most k (0: all).
func TopReasons(m map[string]int, k int) []ReasonCount {
	var out []ReasonCount
	for r, n := range m {
		out = append(out, ReasonCount{Reason: r, Pods: n})
	}
	slices.SortFunc(out, func(a, b ReasonCount) int {
		if a.Pods != b.Pods {
			return cmp.Compare(b.Pods, a.Pods)
		}
		return cmp.Compare(a.Reason, b.Reason)
	})
	if k > 0 && len(out) > k {
		out = out[:k]
	}
	return out
}

// Report returns the run's report (after Run).
func (e *Engine) Report() *Report { return &e.rep.r }
