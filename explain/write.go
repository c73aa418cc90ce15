package explain

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
)

// WriteJSON writes r as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}

// WriteTable writes r for a terminal: a heading, the per-plugin counts,
// then the rows as a table (one node: its verdicts and scores line by
// line).
func (r *Report) WriteTable(w io.Writer) error {
	bw := &errWriter{w: w}
	fmt.Fprintf(bw, "pod %s", r.Pod)
	if r.Unbound {
		fmt.Fprint(bw, " (bound: explained as if pending)")
	}
	fmt.Fprintf(bw, ": %d nodes, %d feasible", r.Nodes, r.Feasible)
	if r.Winner != "" {
		fmt.Fprintf(bw, "; kube-scheduler would pick %s (total %d)", r.Winner, r.WinnerTotal)
	}
	fmt.Fprintln(bw)
	if r.Note != "" {
		fmt.Fprintf(bw, "note: %s\n", r.Note)
	}
	if r.Message != "" {
		fmt.Fprintf(bw, "%s\n", r.Message)
	}
	if r.detail {
		r.writeNode(bw, &r.Rows[0])
		return bw.err
	}
	fmt.Fprintln(bw, "\nfilter plugins: nodes each rejects run alone, and nodes whose status it is (the first to reject; kube-scheduler's counts):")
	tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  PLUGIN\tREJECTS\tSTATUS\tREASONS")
	for _, fc := range r.Filters {
		var parts []string
		for _, msg := range slices.Sorted(maps.Keys(fc.Reasons)) {
			parts = append(parts, fmt.Sprintf("%d %s", fc.Reasons[msg], msg))
		}
		fmt.Fprintf(tw, "  %s\t%d\t%d\t%s\n", fc.Plugin, fc.Fails, fc.Status, strings.Join(parts, ", "))
	}
	tw.Flush()
	if len(r.Rows) == 0 {
		return bw.err
	}
	if r.Summary {
		fmt.Fprintf(bw, "\ntop %d of %d feasible nodes by score (--all lists every node):\n", len(r.Rows), r.Feasible)
	} else {
		fmt.Fprintln(bw)
	}
	tw = tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
	head := []string{"NODE", "RANK", "TOTAL"}
	weights := r.Weights
	if r.Feasible == 0 {
		head, weights = head[:1], nil // no scores to show
	}
	base := len(head)
	for _, pw := range weights {
		head = append(head, fmt.Sprintf("%s(x%d)", short(pw.Plugin), pw.Weight))
	}
	head = append(head, "STATUS")
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for i := range r.Rows {
		rw := &r.Rows[i]
		cells := []string{rw.Node, "-", "-"}
		if rw.Feasible {
			cells[1], cells[2] = fmt.Sprint(rw.Rank), fmt.Sprint(rw.Total)
		}
		cells = cells[:base]
		for j := range weights {
			if rw.Feasible {
				cells = append(cells, fmt.Sprint(rw.Scores[j].Score))
			} else {
				cells = append(cells, "-")
			}
		}
		status := "feasible"
		if !rw.Feasible {
			status = rw.Status
		}
		cells = append(cells, status)
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	tw.Flush()
	return bw.err
}

// writeNode writes one node's verdicts and scores in detail.
func (r *Report) writeNode(w io.Writer, rw *Row) {
	fmt.Fprintf(w, "\nnode %s: ", rw.Node)
	if rw.Feasible {
		fmt.Fprintf(w, "feasible, rank %d of %d, total %d\n", rw.Rank, r.Feasible, rw.Total)
	} else {
		fmt.Fprintf(w, "rejected by %s\n", rw.Status)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  FILTER\tVERDICT\tREASON")
	for _, v := range rw.Filters {
		verdict := "pass"
		if !v.Pass {
			verdict = "fail"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", v.Plugin, verdict, strings.Join(v.Reasons, ", "))
	}
	tw.Flush()
	if !rw.Feasible {
		return
	}
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  SCORE PLUGIN\tSCORE\tWEIGHT\tWEIGHTED")
	for _, s := range rw.Scores {
		fmt.Fprintf(tw, "  %s\t%d\tx%d\t%d\n", s.Plugin, s.Score, s.Weight, s.Weighted)
	}
	fmt.Fprintf(tw, "  total\t\t\t%d\n", rw.Total)
	tw.Flush()
}

// short abbreviates a score plugin's name for a column heading.
func short(plugin string) string {
	switch plugin {
	case "NodeResourcesBalancedAllocation":
		return "Balanced"
	case "NodeResourcesFit":
		return "Fit"
	case "PodTopologySpread":
		return "Spread"
	case "InterPodAffinity":
		return "PodAffinity"
	case "TaintToleration":
		return "Taint"
	case "NodeAffinity":
		return "NodeAffinity"
	case "ImageLocality":
		return "Image"
	}
	return plugin
}

// errWriter keeps the first write error.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return len(p), nil
	}
	_, e.err = e.w.Write(p)
	return len(p), nil
}
