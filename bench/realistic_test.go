package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	resourcehelper "k8s.io/component-helpers/resource"
	"k8s.io/klog/v2"

	"github.com/kplace/kplace/ingest"
)

// rCluster is a realistic export decoded with the k8s.io/api types.
type rCluster struct {
	raw      []byte
	kinds    []string // item kinds, in output order
	keys     []string // namespace/name of each item
	pods     []*corev1.Pod
	nodes    []*corev1.Node
	deploys  []*appsv1.Deployment
	rss      []*appsv1.ReplicaSet
	stss     []*appsv1.StatefulSet
	dss      []*appsv1.DaemonSet
	jobs     []*batchv1.Job
	svcs     []*corev1.Service
	pdbs     []*policyv1.PodDisruptionBudget
	pcs      []*schedv1.PriorityClass
	nodeByNm map[string]*corev1.Node
}

// decodeStrict decodes one item into v, refusing unknown fields.
func decodeStrict(raw []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.DisallowUnknownFields()
	return d.Decode(v)
}

// decodeRealistic decodes every item of a generated List with the typed
// structs of its kind.
func decodeRealistic(t testing.TB, data []byte) *rCluster {
	t.Helper()
	var l struct {
		APIVersion string            `json:"apiVersion"`
		Kind       string            `json:"kind"`
		Items      []json.RawMessage `json:"items"`
		Metadata   map[string]string `json:"metadata"`
	}
	if err := decodeStrict(data, &l); err != nil {
		t.Fatalf("List: %v", err)
	}
	if l.APIVersion != "v1" || l.Kind != "List" {
		t.Fatalf("List header %q %q", l.APIVersion, l.Kind)
	}
	c := &rCluster{raw: data, nodeByNm: map[string]*corev1.Node{}}
	for i, raw := range l.Items {
		var tm metav1.TypeMeta
		if err := json.Unmarshal(raw, &tm); err != nil {
			t.Fatalf("item %d: %v", i, err)
		}
		var obj metav1.Object
		switch tm.APIVersion + " " + tm.Kind {
		case "v1 Pod":
			p := &corev1.Pod{}
			c.pods, obj = append(c.pods, p), p
		case "v1 Node":
			n := &corev1.Node{}
			c.nodes, obj = append(c.nodes, n), n
		case "apps/v1 Deployment":
			d := &appsv1.Deployment{}
			c.deploys, obj = append(c.deploys, d), d
		case "apps/v1 ReplicaSet":
			r := &appsv1.ReplicaSet{}
			c.rss, obj = append(c.rss, r), r
		case "apps/v1 StatefulSet":
			s := &appsv1.StatefulSet{}
			c.stss, obj = append(c.stss, s), s
		case "apps/v1 DaemonSet":
			d := &appsv1.DaemonSet{}
			c.dss, obj = append(c.dss, d), d
		case "batch/v1 Job":
			j := &batchv1.Job{}
			c.jobs, obj = append(c.jobs, j), j
		case "v1 Service":
			s := &corev1.Service{}
			c.svcs, obj = append(c.svcs, s), s
		case "policy/v1 PodDisruptionBudget":
			p := &policyv1.PodDisruptionBudget{}
			c.pdbs, obj = append(c.pdbs, p), p
		case "scheduling.k8s.io/v1 PriorityClass":
			p := &schedv1.PriorityClass{}
			c.pcs, obj = append(c.pcs, p), p
		default:
			t.Fatalf("item %d: unexpected %s %s", i, tm.APIVersion, tm.Kind)
		}
		if err := decodeStrict(raw, obj); err != nil {
			t.Fatalf("item %d (%s): %v", i, tm.Kind, err)
		}
		c.kinds = append(c.kinds, tm.Kind)
		c.keys = append(c.keys, obj.GetNamespace()+"/"+obj.GetName())
	}
	for _, n := range c.nodes {
		c.nodeByNm[n.Name] = n
	}
	return c
}

var realisticCache sync.Map // GenConfig -> *rCluster

// genRealistic generates and decodes cfg once per test binary (the tests
// only read it).
func genRealistic(t testing.TB, cfg GenConfig) *rCluster {
	t.Helper()
	if c, ok := realisticCache.Load(cfg); ok {
		return c.(*rCluster)
	}
	c := decodeRealistic(t, generate(t, cfg))
	realisticCache.Store(cfg, c)
	return c
}

var smallRealistic = GenConfig{Profile: "realistic", Nodes: 200, Pods: 2000, Running: -1, Seed: 3}

func TestRealisticDeterminism(t *testing.T) {
	for _, as := range []string{PendingAsPods, PendingAsWorkloads} {
		cfg := GenConfig{Profile: "realistic", Nodes: 80, Pods: 600, Running: -1, Seed: 11, PendingAs: as}
		a, b := generate(t, cfg), generate(t, cfg)
		if !bytes.Equal(a, b) {
			t.Errorf("%s: same flags, different output", as)
		}
		cfg.Seed++
		if bytes.Equal(a, generate(t, cfg)) {
			t.Errorf("%s: different seeds, same output", as)
		}
	}
}

// kubectlOrder is the order `kubectl get pods,nodes,deploy,rs,sts,ds,jobs,
// svc,pdb,priorityclasses -A -o json` prints the kinds in.
var kubectlOrder = []string{"Pod", "Node", "Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job", "Service", "PodDisruptionBudget", "PriorityClass"}

// TestRealisticOrder: kinds in kubectl's order, each sorted by namespace
// and name, every object with a uid of its own.
func TestRealisticOrder(t *testing.T) {
	c := genRealistic(t, smallRealistic)
	stage := 0
	uids := map[string]bool{}
	for i, k := range c.kinds {
		for stage < len(kubectlOrder) && kubectlOrder[stage] != k {
			stage++
		}
		if stage == len(kubectlOrder) {
			t.Fatalf("item %d: %s out of kubectl's order", i, k)
		}
		if i > 0 && c.kinds[i-1] == k && c.keys[i-1] >= c.keys[i] {
			t.Fatalf("%s %s after %s", k, c.keys[i], c.keys[i-1])
		}
	}
	for _, o := range c.objects() {
		if u := string(o.GetUID()); u == "" || uids[u] {
			t.Fatalf("%s: missing or repeated uid %q", o.GetName(), u)
		} else {
			uids[u] = true
		}
	}
	for _, k := range kubectlOrder {
		if !slices.Contains(c.kinds, k) {
			t.Errorf("no %s", k)
		}
	}
}

func (c *rCluster) objects() []metav1.Object {
	var out []metav1.Object
	add := func(l any) {
		v := reflect.ValueOf(l)
		for i := range v.Len() {
			out = append(out, v.Index(i).Interface().(metav1.Object))
		}
	}
	add(c.pods)
	add(c.nodes)
	add(c.deploys)
	add(c.rss)
	add(c.stss)
	add(c.dss)
	add(c.jobs)
	add(c.svcs)
	add(c.pdbs)
	add(c.pcs)
	return out
}

func selects(t testing.TB, sel *metav1.LabelSelector, l map[string]string) bool {
	t.Helper()
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		t.Fatal(err)
	}
	return !s.Empty() && s.Matches(labels.Set(l))
}

// TestRealisticOwners: every pod's controller exists, has its uid and
// selects it; ReplicaSets are named after their Deployment and the hash of
// its template; StatefulSet, DaemonSet and Job pods carry their
// controllers' names, labels and fields; every Service selects pods.
func TestRealisticOwners(t *testing.T) {
	c := genRealistic(t, smallRealistic)
	type owner struct {
		uid string
		sel *metav1.LabelSelector
	}
	owners := map[string]owner{}
	add := func(kind, ns, name string, uid string, sel *metav1.LabelSelector) {
		owners[kind+" "+ns+"/"+name] = owner{uid, sel}
	}
	deploys := map[string]*appsv1.Deployment{}
	for _, d := range c.deploys {
		deploys[d.Namespace+"/"+d.Name] = d
	}
	current := 0
	for _, r := range c.rss {
		add("ReplicaSet", r.Namespace, r.Name, string(r.UID), r.Spec.Selector)
		d := deploys[r.Namespace+"/"+r.OwnerReferences[0].Name]
		if d == nil || string(d.UID) != string(r.OwnerReferences[0].UID) {
			t.Fatalf("ReplicaSet %s: no Deployment %s", r.Name, r.OwnerReferences[0].Name)
		}
		hash := r.Spec.Template.Labels[hashKey]
		if r.Name != d.Name+"-"+hash || r.Labels[hashKey] != hash || r.Spec.Selector.MatchLabels[hashKey] != hash {
			t.Fatalf("ReplicaSet %s: pod-template-hash %q", r.Name, hash)
		}
		tpl, err := json.Marshal(d.Spec.Template)
		if err != nil {
			t.Fatal(err)
		}
		if h, err := podTemplateHash(tpl, nil); err != nil {
			t.Fatal(err)
		} else if h == hash {
			current++
			if r.Annotations["deployment.kubernetes.io/revision"] != d.Annotations["deployment.kubernetes.io/revision"] {
				t.Errorf("ReplicaSet %s of the current template: revision %s, Deployment's %s", r.Name,
					r.Annotations["deployment.kubernetes.io/revision"], d.Annotations["deployment.kubernetes.io/revision"])
			}
		}
	}
	if current != len(c.deploys) {
		t.Errorf("%d of %d Deployments have the ReplicaSet of their template's hash", current, len(c.deploys))
	}
	svcNames := map[string]*corev1.Service{}
	for _, s := range c.svcs {
		svcNames[s.Namespace+"/"+s.Name] = s
	}
	for _, s := range c.stss {
		add("StatefulSet", s.Namespace, s.Name, string(s.UID), s.Spec.Selector)
		if h := svcNames[s.Namespace+"/"+s.Spec.ServiceName]; h == nil || h.Spec.ClusterIP != "None" {
			t.Errorf("StatefulSet %s: no headless Service %s", s.Name, s.Spec.ServiceName)
		}
	}
	for _, d := range c.dss {
		add("DaemonSet", d.Namespace, d.Name, string(d.UID), d.Spec.Selector)
	}
	for _, j := range c.jobs {
		add("Job", j.Namespace, j.Name, string(j.UID), j.Spec.Selector)
	}
	bare := 0
	for _, p := range c.pods {
		refs := p.OwnerReferences
		if len(refs) == 0 {
			bare++
			continue
		}
		r := refs[0]
		o, ok := owners[r.Kind+" "+p.Namespace+"/"+r.Name]
		if len(refs) != 1 || r.Controller == nil || !*r.Controller || !ok || o.uid != string(r.UID) {
			t.Fatalf("pod %s/%s: owner %+v not found", p.Namespace, p.Name, r)
		}
		if !selects(t, o.sel, p.Labels) {
			t.Fatalf("pod %s/%s: its %s %s does not select it", p.Namespace, p.Name, r.Kind, r.Name)
		}
		switch r.Kind {
		case "ReplicaSet":
			if p.GenerateName != r.Name+"-" || !strings.HasPrefix(p.Name, p.GenerateName) || len(p.Name) != len(p.GenerateName)+5 {
				t.Fatalf("pod %s: name of a pod of %s", p.Name, r.Name)
			}
		case "StatefulSet":
			ord := strings.TrimPrefix(p.Name, r.Name+"-")
			if _, err := strconv.Atoi(ord); err != nil || p.Labels["statefulset.kubernetes.io/pod-name"] != p.Name ||
				p.Labels["apps.kubernetes.io/pod-index"] != ord || p.Spec.Hostname != p.Name || p.Spec.Subdomain == "" {
				t.Fatalf("pod %s of StatefulSet %s: name, labels, hostname %q or subdomain %q", p.Name, r.Name, p.Spec.Hostname, p.Spec.Subdomain)
			}
		case "Job":
			if p.Labels["batch.kubernetes.io/job-name"] != r.Name || p.Labels["batch.kubernetes.io/controller-uid"] != string(r.UID) ||
				p.Labels["job-name"] != r.Name || p.Labels["controller-uid"] != string(r.UID) {
				t.Fatalf("pod %s of Job %s: labels %v", p.Name, r.Name, p.Labels)
			}
			if idx, ok := p.Annotations["batch.kubernetes.io/job-completion-index"]; ok {
				if p.Labels["batch.kubernetes.io/job-completion-index"] != idx || !strings.HasPrefix(p.Name, r.Name+"-"+idx+"-") {
					t.Fatalf("pod %s of Indexed Job %s: index %s", p.Name, r.Name, idx)
				}
			}
		}
	}
	if bare == 0 || bare > 50 {
		t.Errorf("%d bare pods", bare)
	}
	for _, s := range c.svcs {
		n := 0
		for _, p := range c.pods {
			if p.Namespace == s.Namespace && selects(t, &metav1.LabelSelector{MatchLabels: s.Spec.Selector}, p.Labels) {
				n++
			}
		}
		if n == 0 {
			t.Errorf("Service %s/%s selects no pod", s.Namespace, s.Name)
		}
	}
}

// TestRealisticDaemonSets: one pod per node the DaemonSet controller would
// run one on (its node selector matches, every NoSchedule and NoExecute
// taint tolerated with the controller's tolerations), pinned there by the
// controller's matchFields term; bound unless the node is new.
func TestRealisticDaemonSets(t *testing.T) {
	c := genRealistic(t, smallRealistic)
	for _, ds := range c.dss {
		onNode := map[string]int{}
		for _, p := range c.pods {
			if len(p.OwnerReferences) == 0 || p.OwnerReferences[0].UID != ds.UID {
				continue
			}
			req := p.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
			if len(req) != 1 || len(req[0].MatchFields) != 1 || req[0].MatchFields[0].Key != "metadata.name" || len(req[0].MatchFields[0].Values) != 1 {
				t.Fatalf("pod %s of %s: node affinity %+v", p.Name, ds.Name, req)
			}
			node := req[0].MatchFields[0].Values[0]
			if p.Spec.NodeName != "" && p.Spec.NodeName != node {
				t.Fatalf("pod %s of %s: on %s, pinned to %s", p.Name, ds.Name, p.Spec.NodeName, node)
			}
			onNode[node]++
			for _, k := range []string{"node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable", "node.kubernetes.io/unschedulable"} {
				if !slices.ContainsFunc(p.Spec.Tolerations, func(tl corev1.Toleration) bool { return tl.Key == k || tl.Key == "" && tl.Operator == "Exists" }) {
					t.Fatalf("pod %s of %s: no toleration of %s", p.Name, ds.Name, k)
				}
			}
		}
		want := 0
		for _, n := range c.nodes {
			eligible := labels.SelectorFromSet(ds.Spec.Template.Spec.NodeSelector).Matches(labels.Set(n.Labels))
			for _, tn := range n.Spec.Taints {
				if tn.Effect == corev1.TaintEffectPreferNoSchedule || strings.HasPrefix(tn.Key, "node.kubernetes.io/") {
					continue // the controller's own tolerations cover node conditions
				}
				if !slices.ContainsFunc(ds.Spec.Template.Spec.Tolerations, func(tl corev1.Toleration) bool { return tl.ToleratesTaint(klog.Background(), &tn, false) }) {
					eligible = false
				}
			}
			if eligible {
				want++
				if onNode[n.Name] != 1 {
					t.Fatalf("DaemonSet %s: %d pods for node %s", ds.Name, onNode[n.Name], n.Name)
				}
			} else if onNode[n.Name] != 0 {
				t.Fatalf("DaemonSet %s: a pod on node %s it does not run on", ds.Name, n.Name)
			}
		}
		if int(ds.Status.DesiredNumberScheduled) != want {
			t.Errorf("DaemonSet %s: desiredNumberScheduled %d, %d eligible nodes", ds.Name, ds.Status.DesiredNumberScheduled, want)
		}
	}
}

// TestRealisticRunning: running pods fit their nodes' allocatable, match
// their node selectors and tolerate the nodes' taints (but the condition
// taints, which come after pods start).
func TestRealisticRunning(t *testing.T) {
	c := genRealistic(t, smallRealistic)
	used := map[string]corev1.ResourceList{}
	running, pending := 0, 0
	for _, p := range c.pods {
		switch p.Status.Phase {
		case corev1.PodPending:
			pending++
			cond := p.Status.Conditions
			if p.Spec.NodeName != "" || len(cond) != 1 || cond[0].Type != corev1.PodScheduled || cond[0].Status != corev1.ConditionFalse || cond[0].Reason != "Unschedulable" {
				t.Fatalf("pending pod %s: node %q, conditions %+v", p.Name, p.Spec.NodeName, cond)
			}
			continue
		case corev1.PodRunning:
			running++
		default:
			continue
		}
		n := c.nodeByNm[p.Spec.NodeName]
		if n == nil || p.Status.HostIP != n.Status.Addresses[0].Address || len(p.Status.ContainerStatuses) != len(p.Spec.Containers) {
			t.Fatalf("running pod %s: node %q, hostIP %s, %d container statuses", p.Name, p.Spec.NodeName, p.Status.HostIP, len(p.Status.ContainerStatuses))
		}
		if !labels.SelectorFromSet(p.Spec.NodeSelector).Matches(labels.Set(n.Labels)) {
			t.Fatalf("running pod %s: node selector %v, node %s", p.Name, p.Spec.NodeSelector, n.Name)
		}
		for _, tn := range n.Spec.Taints {
			if tn.Effect == corev1.TaintEffectPreferNoSchedule || strings.HasPrefix(tn.Key, "node.kubernetes.io/") {
				continue
			}
			if !slices.ContainsFunc(p.Spec.Tolerations, func(tl corev1.Toleration) bool { return tl.ToleratesTaint(klog.Background(), &tn, false) }) {
				t.Fatalf("running pod %s does not tolerate %v of %s", p.Name, tn, n.Name)
			}
		}
		u := used[n.Name]
		if u == nil {
			u = corev1.ResourceList{}
			used[n.Name] = u
		}
		for r, q := range resourcehelper.PodRequests(p, resourcehelper.PodResourcesOptions{}) {
			v := u[r]
			v.Add(q)
			u[r] = v
		}
	}
	for node, u := range used {
		for r, q := range u {
			if a := c.nodeByNm[node].Status.Allocatable[r]; q.Cmp(a) > 0 {
				t.Errorf("node %s: %s requested %s > allocatable %s", node, r, q.String(), a.String())
			}
		}
	}
	if pending != smallRealistic.Pods {
		t.Errorf("%d pending pods, want %d", pending, smallRealistic.Pods)
	}
	if want := smallRealistic.Nodes * 10; running < want*9/10 || running > want {
		t.Errorf("%d running pods, want about %d", running, want)
	}
}

// TestRealisticSizes: thousands of workloads at scale, most with few pods;
// default spreading applies to nearly every pending pod (a Service or a
// ReplicaSet or StatefulSet selects it).
func TestRealisticSizes(t *testing.T) {
	c := genRealistic(t, smallRealistic)
	size := map[string]int{} // pods per owner (a Deployment's through its ReplicaSets)
	rsDeploy := map[string]string{}
	for _, r := range c.rss {
		rsDeploy[r.Namespace+"/"+r.Name] = r.OwnerReferences[0].Name
	}
	for _, p := range c.pods {
		if len(p.OwnerReferences) == 0 || p.OwnerReferences[0].Kind == "DaemonSet" {
			continue
		}
		o := p.OwnerReferences[0].Name
		if d, ok := rsDeploy[p.Namespace+"/"+o]; ok {
			o = d
		}
		size[p.Namespace+"/"+o]++
	}
	one, few, big := 0, 0, 0
	for _, n := range size {
		if n == 1 {
			one++
		}
		if n <= 3 {
			few++
		}
		big = max(big, n)
	}
	w := len(size)
	if w < 150 || one*5 < w || few*100 < w*45 || big < 80 {
		t.Errorf("%d workloads with pods: %d of one pod, %d of at most three, the largest %d", w, one, few, big)
	}
	spread, pending, replicas, fronted := 0, 0, 0, 0
	for _, p := range c.pods {
		if p.Status.Phase != corev1.PodPending {
			continue
		}
		pending++
		replica := len(p.OwnerReferences) > 0 && (p.OwnerReferences[0].Kind == "ReplicaSet" || p.OwnerReferences[0].Kind == "StatefulSet")
		svc := false
		for _, s := range c.svcs {
			svc = svc || p.Namespace == s.Namespace && selects(t, &metav1.LabelSelector{MatchLabels: s.Spec.Selector}, p.Labels)
		}
		if replica {
			replicas++
			if svc {
				fronted++
			}
		}
		if (replica || svc) && len(p.Spec.TopologySpreadConstraints) == 0 {
			spread++
		}
	}
	// Job and DaemonSet pods (a tenth of them those of a DaemonSet created
	// minutes ago) are the others.
	if spread*100 < pending*70 || fronted*100 < replicas*75 {
		t.Errorf("default spreading applies to %d of %d pending pods; Services select %d of %d pending replicas", spread, pending, fronted, replicas)
	}
}

// TestRealisticWorkloadsOnly: PendingAs workloads writes the same cluster
// without the pending pods: every other item is the same but for the
// statuses counting pods, and each controller wants as many more pods as
// it had pending.
func TestRealisticWorkloadsOnly(t *testing.T) {
	pods := genRealistic(t, smallRealistic)
	cfg := smallRealistic
	cfg.PendingAs = PendingAsWorkloads
	wl := genRealistic(t, cfg)
	bound := func(c *rCluster) map[string]*corev1.Pod {
		m := map[string]*corev1.Pod{}
		for _, p := range c.pods {
			if p.Status.Phase != corev1.PodPending {
				m[p.Namespace+"/"+p.Name] = p
			}
		}
		return m
	}
	a, b := bound(pods), bound(wl)
	if len(a) != len(b) || len(wl.pods) != len(b) {
		t.Fatalf("%d pods bound or finished, %d in workloads mode (of %d pods)", len(a), len(b), len(wl.pods))
	}
	for k, p := range a {
		if !reflect.DeepEqual(p, b[k]) {
			t.Fatalf("pod %s differs between the modes", k)
		}
	}
	if !reflect.DeepEqual(pods.nodes, wl.nodes) || len(pods.rss) != len(wl.rss) || len(pods.svcs) != len(wl.svcs) {
		t.Fatalf("nodes, ReplicaSets or Services differ")
	}
	// What each controller still has to create in workloads mode.
	owned := map[uidKey]int{}
	for _, p := range wl.pods {
		if len(p.OwnerReferences) > 0 && p.Status.Phase != corev1.PodSucceeded {
			owned[uidKey(p.OwnerReferences[0].UID)]++
		}
	}
	missing := 0
	for i, r := range wl.rss {
		if *r.Spec.Replicas != *pods.rss[i].Spec.Replicas || r.Status.Replicas != int32(owned[uidKey(r.UID)]) {
			t.Fatalf("ReplicaSet %s: replicas %d / %d, status %d, %d pods", r.Name, *r.Spec.Replicas, *pods.rss[i].Spec.Replicas, r.Status.Replicas, owned[uidKey(r.UID)])
		}
		missing += int(*r.Spec.Replicas) - owned[uidKey(r.UID)]
	}
	for _, s := range wl.stss {
		missing += int(*s.Spec.Replicas) - owned[uidKey(s.UID)]
	}
	for _, d := range wl.dss {
		missing += int(d.Status.DesiredNumberScheduled) - owned[uidKey(d.UID)]
	}
	for _, j := range wl.jobs {
		missing += int(*j.Spec.Parallelism) - owned[uidKey(j.UID)]
	}
	bare := 0
	for _, p := range pods.pods {
		if len(p.OwnerReferences) == 0 {
			bare++
		}
	}
	if missing != cfg.Pods-bare {
		t.Errorf("controllers want %d more pods; %d were pending (%d bare)", missing, cfg.Pods-bare, bare)
	}
}

// uidKey is an owner's uid.
type uidKey string

// TestRealisticIngest: kplace reads the export: every node, the running
// and pending pods, the selectors of the Services, ReplicaSets and
// StatefulSets.
func TestRealisticIngest(t *testing.T) {
	c := genRealistic(t, smallRealistic)
	path := filepath.Join(t.TempDir(), "cluster.json")
	if err := os.WriteFile(path, c.raw, 0o644); err != nil {
		t.Fatal(err)
	}
	in, err := ingest.Load([]string{path}, ingest.Options{AdmissionDefaults: true})
	if err != nil {
		t.Fatal(err)
	}
	running, pending := 0, 0
	for _, p := range c.pods {
		switch p.Status.Phase {
		case corev1.PodRunning:
			running++
		case corev1.PodPending:
			pending++
		}
	}
	gotRun, gotPend, rejected := 0, 0, 0
	for i := range in.Pods {
		switch {
		case in.Pods[i].Rejected != "":
			rejected++
		case in.Pods[i].NodeName != "":
			gotRun++
		default:
			gotPend++
		}
	}
	if len(in.Nodes) != len(c.nodes) || gotRun != running || gotPend != pending || rejected > 0 {
		t.Errorf("ingest: %d nodes, %d running, %d pending pods, %d rejected; want %d, %d, %d", len(in.Nodes), gotRun, gotPend, rejected, len(c.nodes), running, pending)
	}
	if w := len(c.svcs) + len(c.deploys) + len(c.rss) + len(c.stss) + len(c.dss) + len(c.jobs); len(in.Workloads) != w {
		t.Errorf("ingest: %d workloads, want %d", len(in.Workloads), w)
	}
}

// TestPodTemplateHash pins the hash of a template to the value
// k8s.io/kubernetes v1.36.3's controller.ComputeHash gives it (computed
// with that module, which kplace does not link).
func TestPodTemplateHash(t *testing.T) {
	tpl := []byte(`{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"image":"registry.example.com/web/web:1.2.3","imagePullPolicy":"IfNotPresent","name":"app","ports":[{"containerPort":8080,"name":"http","protocol":"TCP"}],"resources":{"limits":{"memory":"1Gi"},"requests":{"cpu":"500m","memory":"512Mi"}},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}],"dnsPolicy":"ClusterFirst","restartPolicy":"Always","schedulerName":"default-scheduler","securityContext":{},"terminationGracePeriodSeconds":30}}`)
	three := int32(3)
	for _, tc := range []struct {
		collisions *int32
		want       string
	}{{nil, "7495899449"}, {&three, "586584856b"}} {
		if got, err := podTemplateHash(tpl, tc.collisions); err != nil || got != tc.want {
			t.Errorf("podTemplateHash(collisions %v) = %q, %v; want %q", tc.collisions, got, err, tc.want)
		}
	}
	if _, err := podTemplateHash([]byte(`{"spec":{"containers":7}}`), nil); err == nil {
		t.Error("a malformed template hashed")
	}
}

// TestFieldsSet: the fieldsV1 set of a pod spec as the API server records
// it for the update that creates it.
func TestFieldsSet(t *testing.T) {
	spec := `{"containers":[{"image":"nginx:1.27","name":"web","ports":[{"containerPort":80,"protocol":"TCP"}],` +
		`"resources":{"limits":{"memory":"1Gi"}},"volumeMounts":[{"mountPath":"/etc/web","name":"config"}]}],` +
		`"dnsPolicy":"ClusterFirst","nodeSelector":{"pool":"general"},"securityContext":{},` +
		`"tolerations":[{"key":"a","operator":"Exists"}],"volumes":[{"configMap":{"defaultMode":420,"name":"web"},"name":"config"}]}`
	want := `{"f:containers":{"k:{\"name\":\"web\"}":{".":{},"f:image":{},"f:name":{},` +
		`"f:ports":{".":{},"k:{\"containerPort\":80,\"protocol\":\"TCP\"}":{".":{},"f:containerPort":{},"f:protocol":{}}},` +
		`"f:resources":{"f:limits":{".":{},"f:memory":{}}},` +
		`"f:volumeMounts":{".":{},"k:{\"mountPath\":\"/etc/web\"}":{".":{},"f:mountPath":{},"f:name":{}}}}},` +
		`"f:dnsPolicy":{},"f:nodeSelector":{".":{},"f:pool":{}},"f:securityContext":{},"f:tolerations":{},` +
		`"f:volumes":{".":{},"k:{\"name\":\"config\"}":{".":{},"f:configMap":{".":{},"f:defaultMode":{},"f:name":{}},"f:name":{}}}}`
	got, err := fieldsSet([]byte(spec), reflect.TypeFor[corev1.PodSpec]())
	if err != nil || string(got) != want {
		t.Fatalf("fieldsSet:\n got %s, %v\nwant %s", got, err, want)
	}
	if _, err := fieldsSet([]byte(`{"containerz":[]}`), reflect.TypeFor[corev1.PodSpec]()); err == nil {
		t.Error("an unknown field gave a set")
	}
}

// TestRealisticIntOrString: budgets and ports write int-or-string fields as
// the API does (numbers as numbers).
func TestRealisticIntOrString(t *testing.T) {
	c := genRealistic(t, smallRealistic)
	for _, p := range c.pdbs {
		v := p.Spec.MinAvailable
		if v == nil {
			v = p.Spec.MaxUnavailable
		}
		if v == nil || v.Type == intstr.String && !strings.HasSuffix(v.StrVal, "%") {
			t.Fatalf("PDB %s: %v", p.Name, v)
		}
	}
	if len(c.pdbs) == 0 {
		t.Fatal("no PodDisruptionBudget")
	}
}

func ExampleGenerate_realistic() {
	var b bytes.Buffer
	if err := Generate(GenConfig{Profile: "realistic", Nodes: 20, Pods: 100, Running: -1, Seed: 1}, &b); err != nil {
		panic(err)
	}
	fmt.Println(strings.HasPrefix(b.String(), `{"apiVersion":"v1","items":[`))
	// Output: true
}

// TestRealisticLoadsAcrossSeeds: every export the generator writes is one
// kplace reads without an error, over seeds and sizes where rollouts (a
// template drawn from another) occur: a template sharing its node selector
// with another must not render a mangled one.
func TestRealisticLoadsAcrossSeeds(t *testing.T) {
	dir := t.TempDir()
	for seed := uint64(1); seed <= 8; seed++ {
		cfg := GenConfig{Profile: "realistic", Nodes: 300, Pods: 3000, Running: -1, Seed: seed}
		path := filepath.Join(dir, "cluster.json")
		if err := os.WriteFile(path, generate(t, cfg), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ingest.Load([]string{path}, ingest.Options{AdmissionDefaults: true}); err != nil {
			t.Errorf("seed %d: %v", seed, err)
		}
	}
}
