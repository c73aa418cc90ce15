package bench

import (
	"strconv"
	"strings"
	"time"
)

// The generator's JSON: appenders of the objects' fields, quantities and
// identifiers, written without reflection (see gen.go).

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// appendUIDOf appends the uid of counter value c under salt: distinct
// counters below 2^48 give distinct uids.
func appendUIDOf(b []byte, salt, c uint64) []byte {
	h1 := splitmix(c ^ salt)
	h2 := splitmix(h1 + c)
	nodeField := (c*0x5851f42d4c957f2d + salt) & (1<<48 - 1)
	b = appendHex(b, h1>>32, 8)
	b = append(b, '-')
	b = appendHex(b, h1>>16, 4)
	b = append(b, '-')
	b = appendHex(b, 0x4000|h1&0x0fff, 4)
	b = append(b, '-')
	b = appendHex(b, 0x8000|h2&0x3fff, 4)
	b = append(b, '-')
	return appendHex(b, nodeField, 12)
}

const hexDigits = "0123456789abcdef"

func appendHex(b []byte, v uint64, n int) []byte {
	for i := n - 1; i >= 0; i-- {
		b = append(b, hexDigits[(v>>(4*uint(i)))&15])
	}
	return b
}

// safeAlphabet is the alphabet of k8s.io/apimachinery rand.String and
// SafeEncodeString (pod name suffixes, pod-template-hash).
const safeAlphabet = "bcdfghjklmnpqrstvwxz2456789"

// appendSuffix appends the 5-character pod name suffix of replica i: a
// bijection of i (offset by off) on 27^5, so names within a ReplicaSet are
// unique.
func appendSuffix(b []byte, i int, off uint64) []byte {
	const m = 27 * 27 * 27 * 27 * 27
	x := (uint64(i)*7654321 + off) % m
	var s [5]byte
	for j := 4; j >= 0; j-- {
		s[j] = safeAlphabet[x%27]
		x /= 27
	}
	return append(b, s[:]...)
}

func appendTime(b []byte, unix int64) []byte {
	return time.Unix(unix, 0).UTC().AppendFormat(b, time.RFC3339)
}

func fmtTime(unix int64) string { return string(appendTime(nil, unix)) }

// appendStr appends s as a JSON string.
func appendStr(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&15])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendKey appends "k": .
func appendKey(b []byte, k string) []byte {
	b = appendStr(b, k)
	return append(b, ':')
}

func appendKVs(b []byte, kvs []kv) []byte {
	b = append(b, '{')
	for i, p := range kvs {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendKey(b, p.k)
		b = appendStr(b, p.v)
	}
	return append(b, '}')
}

func appendStrs(b []byte, ss []string) []byte {
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendStr(b, s)
	}
	return append(b, ']')
}

const (
	ki = 1 << 10
	mi = 1 << 20
	gi = 1 << 30
)

// res is one resource amount: millicores for cpu, bytes for memory-like
// resources, a count otherwise. si selects decimal suffixes (M, G) for bytes.
type res struct {
	name string
	v    int64
	si   bool
}

func isBytes(name string) bool {
	return name == "memory" || name == "ephemeral-storage" || strings.HasPrefix(name, "hugepages-")
}

// appendQty appends r as a canonical Kubernetes quantity string.
func appendQty(b []byte, r res) []byte {
	b = append(b, '"')
	switch {
	case r.name == "cpu":
		if r.v%1000 == 0 {
			b = strconv.AppendInt(b, r.v/1000, 10)
		} else {
			b = strconv.AppendInt(b, r.v, 10)
			b = append(b, 'm')
		}
	case isBytes(r.name) && r.v != 0:
		if r.si {
			b = appendScaled(b, r.v, 1000, "kMGTPE")
		} else {
			b = appendScaled(b, r.v, 1024, "KMGTPE")
		}
	default:
		b = strconv.AppendInt(b, r.v, 10)
	}
	return append(b, '"')
}

// appendScaled writes v with the largest suffix that divides it exactly.
func appendScaled(b []byte, v, base int64, suffixes string) []byte {
	n := -1
	for n+1 < len(suffixes) && v%base == 0 {
		v /= base
		n++
	}
	b = strconv.AppendInt(b, v, 10)
	if n >= 0 {
		b = append(b, suffixes[n])
		if base == 1024 {
			b = append(b, 'i')
		}
	}
	return b
}

func appendResList(b []byte, rs []res) []byte {
	b = append(b, '{')
	for i, r := range rs {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendKey(b, r.name)
		b = appendQty(b, r)
	}
	return append(b, '}')
}

// setRes sets name in the list, keeping it sorted by name.
func setRes(rs []res, r res) []res {
	for i := range rs {
		if rs[i].name == r.name {
			rs[i] = r
			return rs
		}
		if rs[i].name > r.name {
			rs = append(rs, res{})
			copy(rs[i+1:], rs[i:])
			rs[i] = r
			return rs
		}
	}
	return append(rs, r)
}

func getRes(rs []res, name string) (int64, bool) {
	for _, r := range rs {
		if r.name == name {
			return r.v, true
		}
	}
	return 0, false
}

func delRes(rs []res, name string) []res {
	for i := range rs {
		if rs[i].name == name {
			return append(rs[:i], rs[i+1:]...)
		}
	}
	return rs
}

func appendIPDashed(b []byte, ip uint32) []byte {
	b = strconv.AppendInt(b, int64(ip>>16&255), 10)
	b = append(b, '-')
	b = strconv.AppendInt(b, int64(ip>>8&255), 10)
	b = append(b, '-')
	return strconv.AppendInt(b, int64(ip&255), 10)
}

func appendIP(b []byte, ip uint32) []byte {
	b = append(b, "10."...)
	b = strconv.AppendInt(b, int64(ip>>16&255), 10)
	b = append(b, '.')
	b = strconv.AppendInt(b, int64(ip>>8&255), 10)
	b = append(b, '.')
	return strconv.AppendInt(b, int64(ip&255), 10)
}

// appendTaints writes `,"taints":[...]` when there are taints.
func appendTaints(b []byte, taints []taint) []byte {
	if len(taints) == 0 {
		return b
	}
	b = append(b, `,"taints":[`...)
	for i, t := range taints {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"effect":`...)
		b = appendStr(b, t.effect)
		b = append(b, `,"key":`...)
		b = appendStr(b, t.key)
		if t.timeAdded != "" {
			b = append(b, `,"timeAdded":`...)
			b = appendStr(b, t.timeAdded)
		}
		if t.value != "" {
			b = append(b, `,"value":`...)
			b = appendStr(b, t.value)
		}
		b = append(b, '}')
	}
	return append(b, ']')
}

// appendPorts writes `,"ports":[...]` when there are ports; hostNet
// defaults each hostPort to its containerPort (a host-network pod's).
func appendPorts(b []byte, ports []port, hostNet bool) []byte {
	if len(ports) == 0 {
		return b
	}
	b = append(b, `,"ports":[`...)
	for i, p := range ports {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"containerPort":`...)
		b = strconv.AppendInt(b, int64(p.containerPort), 10)
		hp := p.hostPort
		if hp == 0 && hostNet {
			hp = p.containerPort
		}
		if hp != 0 {
			b = append(b, `,"hostPort":`...)
			b = strconv.AppendInt(b, int64(hp), 10)
		}
		b = append(b, `,"name":`...)
		b = appendStr(b, p.name)
		b = append(b, `,"protocol":"TCP"}`...)
	}
	return append(b, ']')
}

func appendContainer(b []byte, c *container) []byte {
	b = append(b, `{"image":`...)
	b = appendStr(b, c.image)
	b = append(b, `,"imagePullPolicy":"IfNotPresent","name":`...)
	b = appendStr(b, c.name)
	b = appendPorts(b, c.ports, false)
	b = append(b, `,"resources":{`...)
	if len(c.lim) > 0 {
		b = append(b, `"limits":`...)
		b = appendResList(b, c.lim)
		if len(c.req) > 0 {
			b = append(b, ',')
		}
	}
	if len(c.req) > 0 {
		b = append(b, `"requests":`...)
		b = appendResList(b, c.req)
	}
	b = append(b, '}')
	if c.restartAlways {
		b = append(b, `,"restartPolicy":"Always"`...)
	}
	return append(b, `,"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}`...)
}

func appendSelReqs(b []byte, rs []selReq) []byte {
	b = append(b, '[')
	for i, r := range rs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"key":`...)
		b = appendStr(b, r.key)
		b = append(b, `,"operator":`...)
		b = appendStr(b, r.op)
		if len(r.values) > 0 {
			b = append(b, `,"values":`...)
			b = appendStrs(b, r.values)
		}
		b = append(b, '}')
	}
	return append(b, ']')
}

func appendTerm(b []byte, t *selTerm) []byte {
	b = append(b, '{')
	if len(t.exprs) > 0 {
		b = append(b, `"matchExpressions":`...)
		b = appendSelReqs(b, t.exprs)
	}
	if len(t.fields) > 0 {
		if len(t.exprs) > 0 {
			b = append(b, ',')
		}
		b = append(b, `"matchFields":`...)
		b = appendSelReqs(b, t.fields)
	}
	return append(b, '}')
}

func appendToleration(b []byte, tl *toleration) []byte {
	b = append(b, '{')
	first := true
	field := func(k string) {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = appendKey(b, k)
	}
	if tl.effect != "" {
		field("effect")
		b = appendStr(b, tl.effect)
	}
	if tl.key != "" {
		field("key")
		b = appendStr(b, tl.key)
	}
	if tl.op != "" {
		field("operator")
		b = appendStr(b, tl.op)
	}
	if tl.hasSeconds {
		field("tolerationSeconds")
		b = strconv.AppendInt(b, tl.seconds, 10)
	}
	if tl.value != "" {
		field("value")
		b = appendStr(b, tl.value)
	}
	return append(b, '}')
}

// appendNodeAffinity writes `{"nodeAffinity":{...}` (the affinity object
// left open) with the preferred and required terms.
func appendNodeAffinity(b []byte, required []selTerm, preferred []prefTerm) []byte {
	b = append(b, `{"nodeAffinity":{`...)
	if len(preferred) > 0 {
		b = append(b, `"preferredDuringSchedulingIgnoredDuringExecution":[`...)
		for i := range preferred {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"preference":`...)
			b = appendTerm(b, &preferred[i].term)
			b = append(b, `,"weight":`...)
			b = strconv.AppendInt(b, int64(preferred[i].weight), 10)
			b = append(b, '}')
		}
		b = append(b, ']')
		if len(required) > 0 {
			b = append(b, ',')
		}
	}
	if len(required) > 0 {
		b = append(b, `"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[`...)
		for i := range required {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendTerm(b, &required[i])
		}
		b = append(b, `]}`...)
	}
	return append(b, '}')
}
