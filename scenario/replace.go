package scenario

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/ingest"
)

// replacementsOf are the pods p's controller creates when p is deleted:
// none for a standalone pod, a DaemonSet's (its controller does not put it
// back on a node that rejects it) or a mirror pod (owned by its Node: the
// kubelet makes those).
//
// A controller of the cluster with a template makes them from it (see
// fromTemplate). One that is not in the cluster (its pods came without
// it) gets a copy of p's spec, as its template would give it, under a new
// name from the owner's name (kube's generateName: the owner's name, '-',
// five characters); a StatefulSet's replacement keeps p's name, as its
// controller does. They are appended to dst.
func (e *Engine) replacementsOf(dst []index.Pod, p *index.Pod) []index.Pod {
	if p.Owner == nil || p.Owner.Kind == index.KindDaemonSet || p.Owner.Kind == "Node" {
		return dst
	}
	if out, ok := e.fromTemplate(dst, p); ok {
		return out
	}
	q := e.newPod(p)
	if p.Owner.Kind == index.KindStatefulSet {
		q.Name = p.Name
	} else {
		q.Name = e.newName(p.Namespace, p.Owner.Name+"-")
	}
	return append(dst, q)
}

// newPod is a pod made now from template's spec: pending, not started,
// created now, with a new UID; admission applies (the
// DefaultTolerationSeconds plugin, when on).
func (e *Engine) newPod(template *index.Pod) index.Pod {
	q := *template
	q.NodeName, q.StartUnix = "", 0
	q.CreationUnix = e.base + int64(e.now.Seconds())
	e.nameSeq++
	h1, h2 := mix64(e.cfg.Solve.Seed^e.nameSeq), mix64(e.nameSeq*0x9e3779b97f4a7c15+1)
	q.UID = fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", uint32(h1>>32), uint16(h1>>16), uint16(h1), uint16(h2>>48), h2&0xffffffffffff)
	q.Tolerations = slices.Clip(q.Tolerations) // admission appends to a copy
	if e.cfg.Admission {
		q.Tolerations = ingest.DefaultTolerations(q.Tolerations)
	}
	return q
}

// nameAlphabet is the characters of generated names (k8s.io/apimachinery
// util/rand's alphanums: no vowels, no 0, 1, 3).
const nameAlphabet = "bcdfghjklmnpqrstvwxz2456789"

// newName returns prefix and five characters, a name no pod of the
// namespace has had.
func (e *Engine) newName(ns, prefix string) string {
	if e.names == nil {
		e.names = make(map[string]bool, len(e.c.Pods))
		for i := range e.c.Pods {
			e.names[podKey(&e.c.Pods[i])] = true
		}
	}
	var b strings.Builder
	for {
		e.nameSeq++
		h := mix64(e.cfg.Solve.Seed*0x2545f4914f6cdd1d ^ e.nameSeq)
		b.Reset()
		b.WriteString(prefix)
		for range 5 {
			b.WriteByte(nameAlphabet[h%uint64(len(nameAlphabet))])
			h /= uint64(len(nameAlphabet))
		}
		name := b.String()
		if key := ns + "/" + name; !e.names[key] {
			e.names[key] = true
			return name
		}
	}
}

// mix64 is splitmix64's finalizer.
func mix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
