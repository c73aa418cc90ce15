package htmlreport

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"strings"
)

//go:embed page.html.tmpl
var pageTmpl string

var tmpl = template.Must(template.New("page").Funcs(template.FuncMap{
	"int": func(v int32) int { return int(v) },
}).Parse(pageTmpl))

// Colours of the bars: before, after, and the single series.
const (
	colBefore = "#9db7d5"
	colAfter  = "#2c6fbb"
	colOne    = "#d9822b"
)

// Chart is one horizontal bar chart, laid out for the template: rows of
// labelled bars, each row one or more series.
type Chart struct {
	Title  string
	Width  int
	Height int
	// LabelW is the width of the label column; BarW the bars' full width.
	LabelW, BarW int
	Rows         []Row
	Legend       []LegendItem
	// Note says what the chart leaves out (rows folded), "" if nothing.
	Note string
}

// Row is one label and its bars.
type Row struct {
	Label string
	// Full is the label untruncated (the SVG title: shown on hover).
	Full string
	Y    int
	Bars []Bar
}

// Bar is one bar of a row.
type Bar struct {
	Y, W, H int
	Fill    string
	Text    string // the value, written after the bar
	TextX   int
}

// LegendItem names a series.
type LegendItem struct {
	X    int
	Fill string
	Name string
}

const (
	barH     = 14
	rowGap   = 8
	chartTop = 46 // below the title and the legend
)

// utilChart draws one resource's utilisation (requests over allocatable)
// per group, before and after.
func utilChart(title string, before, after []Group, res int) Chart {
	ch := Chart{Title: title, LabelW: 200, BarW: 360}
	ch.Legend = []LegendItem{{X: 6, Fill: colBefore, Name: "before"}, {X: 96, Fill: colAfter, Name: "after"}}
	y := chartTop
	for i, g := range after {
		var b Group
		if i < len(before) && before[i].Name == g.Name {
			b = before[i]
		}
		row := Row{Label: short(fmt.Sprintf("%s (%d nodes)", g.Name, g.Nodes), 34), Full: g.Name, Y: y + barH}
		for k, grp := range []Group{b, g} {
			frac := 0.0
			if grp.Alloc != nil && grp.Alloc[res] > 0 {
				frac = float64(grp.Req[res]) / float64(grp.Alloc[res])
			}
			w := int(frac * float64(ch.BarW))
			fill := colBefore
			if k == 1 {
				fill = colAfter
			}
			text := fmt.Sprintf("%.0f%%", 100*frac)
			if grp.Alloc == nil || grp.Alloc[res] == 0 {
				text = "none allocatable"
			}
			row.Bars = append(row.Bars, Bar{Y: y + k*barH, W: max(w, 1), H: barH - 2, Fill: fill,
				Text: text, TextX: ch.LabelW + max(w, 1) + 4})
		}
		ch.Rows = append(ch.Rows, row)
		y += 2*barH + rowGap
	}
	ch.Width, ch.Height = ch.LabelW+ch.BarW+60, y+4
	return ch
}

// countChart draws counts as one bar each, scaled to the largest, with
// at most limit rows (the rest summed in Note).
func countChart(title string, labels []string, counts []int, unit string, limit int) Chart {
	ch := Chart{Title: title, LabelW: 820, BarW: 300}
	top := 0
	for _, n := range counts {
		top = max(top, n)
	}
	y := chartTop - 18 // no legend
	for i := range labels {
		if i == limit {
			rest := 0
			for _, n := range counts[i:] {
				rest += n
			}
			ch.Note = fmt.Sprintf("%d more (%d %s) not drawn; see the JSON report", len(labels)-i, rest, unit)
			break
		}
		w := 1
		if top > 0 {
			w = max(1, counts[i]*ch.BarW/top)
		}
		ch.Rows = append(ch.Rows, Row{Label: short(labels[i], 130), Full: labels[i], Y: y + barH - 3,
			Bars: []Bar{{Y: y, W: w, H: barH - 2, Fill: colOne, Text: fmt.Sprintf("%d %s", counts[i], unit), TextX: ch.LabelW + w + 4}}})
		y += barH + rowGap
	}
	ch.Width, ch.Height = ch.LabelW+ch.BarW+120, y+4
	return ch
}

// short cuts s to about n bytes at a space (never inside a word), marked
// "...".
func short(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := strings.LastIndexByte(s[:n], ' ')
	if cut <= 0 {
		cut = n
	}
	return s[:cut] + " ..."
}

// reasonLabel shortens a reason pattern for a chart's label, keeping the
// words that tell patterns apart: the FitError's opening and the
// DynamicResources PostFilter message every message repeats are left out
// (the full text is the label's title).
func reasonLabel(pattern string) string {
	s := strings.TrimPrefix(pattern, "0/N nodes are available: ")
	return strings.Replace(s, ". no new claims to deallocate, preemption: 0/N nodes are available: ", " | preemption: ", 1)
}

// view is what the template reads.
type view struct {
	*Page
	ZoneKey, PoolKey   string
	Util               []Chart
	Reasons, Plugins   Chart
	Owners             Chart
	HasReasons         bool
	SkewChart          Chart
	SkewViolated       int
	PendingTotal       int
	PreemptionsAll     int
	DistinctReasons    int
	DistinctPatterns   int
	UtilisationMissing bool
}

// Write writes the page.
func (p *Page) Write(w io.Writer) error {
	v := view{Page: p, ZoneKey: p.After.ZoneKey, PoolKey: p.After.PoolKey}
	for res, name := range p.After.Resources {
		if p.After.ZoneKey != "" {
			v.Util = append(v.Util, utilChart(name+" requested / allocatable, per zone ("+p.After.ZoneKey+")", p.Before.Zones, p.After.Zones, res))
		}
		if p.After.PoolKey != "" {
			v.Util = append(v.Util, utilChart(name+" requested / allocatable, per node pool ("+p.After.PoolKey+")", p.Before.Pools, p.After.Pools, res))
		}
	}
	v.UtilisationMissing = len(v.Util) == 0
	ru := p.Rollups
	var labels []string
	var counts []int
	for _, rc := range ru.ByPattern {
		labels, counts = append(labels, reasonLabel(rc.Reason)), append(counts, rc.Pods)
	}
	v.Reasons = countChart("pending pods by reason (counts written N)", labels, counts, "pods", 15)
	labels, counts = nil, nil
	for _, pc := range ru.ByPlugin {
		labels, counts = append(labels, pc.Plugin), append(counts, pc.Nodes)
	}
	v.Plugins = countChart("nodes rejected per filter plugin, summed over the pending pods", labels, counts, "nodes", 15)
	labels, counts = nil, nil
	for _, oc := range ru.ByOwner {
		owner := oc.Owner
		if owner == "" {
			owner = "(no controller)"
		}
		labels, counts = append(labels, oc.Namespace+"/"+owner), append(counts, oc.Pods)
	}
	v.Owners = countChart("pending pods by owner workload", labels, counts, "pods", 15)
	v.HasReasons = len(ru.ByPattern) > 0
	v.DistinctReasons, v.DistinctPatterns = len(ru.ByReason), len(ru.ByPattern)
	v.PendingTotal = p.Pending
	v.PreemptionsAll = len(p.Preemptions) + p.MorePreempt
	// Skew: how far over maxSkew each measured constraint is, as counts
	// of constraints per excess.
	over := map[int]int{}
	maxOver := 0
	for _, s := range p.Skews {
		e := max(0, s.Value()-int(s.MaxSkew))
		over[e]++
		maxOver = max(maxOver, e)
		if e > 0 {
			v.SkewViolated++
		}
	}
	labels, counts = nil, nil
	for e := 0; e <= maxOver; e++ {
		if over[e] == 0 {
			continue
		}
		label := "within maxSkew"
		if e > 0 {
			label = fmt.Sprintf("maxSkew exceeded by %d", e)
		}
		labels, counts = append(labels, label), append(counts, over[e])
	}
	v.SkewChart = countChart("spread constraints by skew after the run", labels, counts, "constraints", 12)
	return tmpl.Execute(w, v)
}
