package live

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
)

// SnapshotOptions tune WriteSnapshot.
type SnapshotOptions struct {
	// PageSize is the limit of each LIST request (kubectl's chunk size is
	// 500); the rest of a kind is read with the continue token.
	PageSize int64
	// Progress, when set, is called after each page with the kind, the
	// objects of it read so far and their expected total (read plus the
	// API server's remainingItemCount; 0 when it gives none).
	Progress func(kind string, done, total int)
}

// SnapshotStats is what WriteSnapshot read.
type SnapshotStats struct {
	// Objects counts the objects written, by kind, in SnapshotKinds order.
	Objects []KindCount
	// Lists is the number of LIST requests (pages).
	Lists int
}

// KindCount is a number of objects of one kind.
type KindCount struct {
	Kind  string `json:"kind"`
	Count int    `json:"count"`
}

// snapshotKind lists one kind, page by page.
type snapshotKind struct {
	apiVersion, kind string
	list             func(ctx context.Context, k kubernetes.Interface, o metav1.ListOptions, emit func(obj any, meta *metav1.ObjectMeta) error) (metav1.ListMeta, error)
}

// SnapshotKinds are the kinds a snapshot reads, in the order it writes
// them: every kind kplace reads (see docs/formats.md, Input).
func SnapshotKinds() []string {
	out := make([]string, len(snapshotKinds))
	for i, k := range snapshotKinds {
		out[i] = k.apiVersion + " " + k.kind
	}
	return out
}

var snapshotKinds = []snapshotKind{
	{"v1", "Namespace", pager(func(ctx context.Context, k kubernetes.Interface, o metav1.ListOptions) (*corev1.NamespaceList, error) {
		return k.CoreV1().Namespaces().List(ctx, o)
	}, func(l *corev1.NamespaceList) ([]corev1.Namespace, *metav1.ListMeta) { return l.Items, &l.ListMeta }, func(x *corev1.Namespace) *metav1.ObjectMeta { return &x.ObjectMeta })},
	{"scheduling.k8s.io/v1", "PriorityClass", pager(func(ctx context.Context, k kubernetes.Interface, o metav1.ListOptions) (*schedulingv1.PriorityClassList, error) {
		return k.SchedulingV1().PriorityClasses().List(ctx, o)
	}, func(l *schedulingv1.PriorityClassList) ([]schedulingv1.PriorityClass, *metav1.ListMeta) {
		return l.Items, &l.ListMeta
	}, func(x *schedulingv1.PriorityClass) *metav1.ObjectMeta { return &x.ObjectMeta })},
	{"v1", "Node", pager(func(ctx context.Context, k kubernetes.Interface, o metav1.ListOptions) (*corev1.NodeList, error) {
		return k.CoreV1().Nodes().List(ctx, o)
	}, func(l *corev1.NodeList) ([]corev1.Node, *metav1.ListMeta) { return l.Items, &l.ListMeta }, func(x *corev1.Node) *metav1.ObjectMeta { return &x.ObjectMeta })},
	{"policy/v1", "PodDisruptionBudget", pager(func(ctx context.Context, k kubernetes.Interface, o metav1.ListOptions) (*policyv1.PodDisruptionBudgetList, error) {
		return k.PolicyV1().PodDisruptionBudgets("").List(ctx, o)
	}, func(l *policyv1.PodDisruptionBudgetList) ([]policyv1.PodDisruptionBudget, *metav1.ListMeta) {
		return l.Items, &l.ListMeta
	}, func(x *policyv1.PodDisruptionBudget) *metav1.ObjectMeta { return &x.ObjectMeta })},
	{"v1", "Service", pager(func(ctx context.Context, k kubernetes.Interface, o metav1.ListOptions) (*corev1.ServiceList, error) {
		return k.CoreV1().Services("").List(ctx, o)
	}, func(l *corev1.ServiceList) ([]corev1.Service, *metav1.ListMeta) { return l.Items, &l.ListMeta }, func(x *corev1.Service) *metav1.ObjectMeta { return &x.ObjectMeta })},
	{"apps/v1", "Deployment", pager(func(ctx context.Context, k kubernetes.Interface, o metav1.ListOptions) (*appsv1.DeploymentList, error) {
		return k.AppsV1().Deployments("").List(ctx, o)
	}, func(l *appsv1.DeploymentList) ([]appsv1.Deployment, *metav1.ListMeta) { return l.Items, &l.ListMeta }, func(x *appsv1.Deployment) *metav1.ObjectMeta { return &x.ObjectMeta })},
	{"apps/v1", "ReplicaSet", pager(func(ctx context.Context, k kubernetes.Interface, o metav1.ListOptions) (*appsv1.ReplicaSetList, error) {
		return k.AppsV1().ReplicaSets("").List(ctx, o)
	}, func(l *appsv1.ReplicaSetList) ([]appsv1.ReplicaSet, *metav1.ListMeta) { return l.Items, &l.ListMeta }, func(x *appsv1.ReplicaSet) *metav1.ObjectMeta { return &x.ObjectMeta })},
	{"apps/v1", "StatefulSet", pager(func(ctx context.Context, k kubernetes.Interface, o metav1.ListOptions) (*appsv1.StatefulSetList, error) {
		return k.AppsV1().StatefulSets("").List(ctx, o)
	}, func(l *appsv1.StatefulSetList) ([]appsv1.StatefulSet, *metav1.ListMeta) { return l.Items, &l.ListMeta }, func(x *appsv1.StatefulSet) *metav1.ObjectMeta { return &x.ObjectMeta })},
	{"apps/v1", "DaemonSet", pager(func(ctx context.Context, k kubernetes.Interface, o metav1.ListOptions) (*appsv1.DaemonSetList, error) {
		return k.AppsV1().DaemonSets("").List(ctx, o)
	}, func(l *appsv1.DaemonSetList) ([]appsv1.DaemonSet, *metav1.ListMeta) { return l.Items, &l.ListMeta }, func(x *appsv1.DaemonSet) *metav1.ObjectMeta { return &x.ObjectMeta })},
	{"batch/v1", "Job", pager(func(ctx context.Context, k kubernetes.Interface, o metav1.ListOptions) (*batchv1.JobList, error) {
		return k.BatchV1().Jobs("").List(ctx, o)
	}, func(l *batchv1.JobList) ([]batchv1.Job, *metav1.ListMeta) { return l.Items, &l.ListMeta }, func(x *batchv1.Job) *metav1.ObjectMeta { return &x.ObjectMeta })},
	{"v1", "ReplicationController", pager(func(ctx context.Context, k kubernetes.Interface, o metav1.ListOptions) (*corev1.ReplicationControllerList, error) {
		return k.CoreV1().ReplicationControllers("").List(ctx, o)
	}, func(l *corev1.ReplicationControllerList) ([]corev1.ReplicationController, *metav1.ListMeta) {
		return l.Items, &l.ListMeta
	}, func(x *corev1.ReplicationController) *metav1.ObjectMeta { return &x.ObjectMeta })},
	{"v1", "Pod", pager(func(ctx context.Context, k kubernetes.Interface, o metav1.ListOptions) (*corev1.PodList, error) {
		return k.CoreV1().Pods("").List(ctx, o)
	}, func(l *corev1.PodList) ([]corev1.Pod, *metav1.ListMeta) { return l.Items, &l.ListMeta }, func(x *corev1.Pod) *metav1.ObjectMeta { return &x.ObjectMeta })},
}

// pager adapts a typed List call: one page per call, each item handed to
// emit with its metadata.
func pager[L any, T any](list func(context.Context, kubernetes.Interface, metav1.ListOptions) (*L, error),
	items func(*L) ([]T, *metav1.ListMeta), meta func(*T) *metav1.ObjectMeta,
) func(context.Context, kubernetes.Interface, metav1.ListOptions, func(any, *metav1.ObjectMeta) error) (metav1.ListMeta, error) {
	return func(ctx context.Context, k kubernetes.Interface, o metav1.ListOptions, emit func(any, *metav1.ObjectMeta) error) (metav1.ListMeta, error) {
		l, err := list(ctx, k, o)
		if err != nil {
			return metav1.ListMeta{}, err
		}
		xs, lm := items(l)
		for i := range xs {
			if err := emit(&xs[i], meta(&xs[i])); err != nil {
				return metav1.ListMeta{}, err
			}
		}
		return *lm, nil
	}
}

// WriteSnapshot lists every kind of SnapshotKinds, page by page, and
// writes the objects to w as `kubectl get -o json` prints them: a v1 List
// whose items carry their apiVersion and kind, without managedFields (as
// kubectl shows them by default), one item per line. Each kind is read
// as one consistent list (the continue token keeps the first page's
// resourceVersion); kinds are read one after the other. A kind the
// server does not serve, or that the client may not list, is an error
// naming it.
func WriteSnapshot(ctx context.Context, c *Client, w io.Writer, opts SnapshotOptions) (SnapshotStats, error) {
	var st SnapshotStats
	if opts.PageSize <= 0 {
		opts.PageSize = 500
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	bw.WriteString(`{"apiVersion":"v1","items":[`)
	n := 0
	for _, sk := range snapshotKinds {
		kc := KindCount{Kind: sk.kind}
		emit := func(obj any, m *metav1.ObjectMeta) error {
			m.ManagedFields = nil
			setTypeMeta(obj, sk.apiVersion, sk.kind)
			b, err := json.Marshal(obj)
			if err != nil {
				return fmt.Errorf("%s %s: %w", sk.kind, key(m.Namespace, m.Name), err)
			}
			if n > 0 {
				bw.WriteByte(',')
			}
			bw.WriteByte('\n')
			bw.Write(b)
			n++
			kc.Count++
			return nil
		}
		cont := ""
		for {
			lm, err := sk.list(ctx, c.Kube, metav1.ListOptions{Limit: opts.PageSize, Continue: cont}, emit)
			st.Lists++
			if err != nil {
				if apierrors.IsResourceExpired(err) || apierrors.IsGone(err) {
					return st, fmt.Errorf("list %s: the list expired after %d objects (the API server compacted its history): run again, with a larger --page-size or --qps: %w", sk.kind, kc.Count, err)
				}
				return st, fmt.Errorf("list %s (%s): %w", sk.kind, sk.apiVersion, err)
			}
			if opts.Progress != nil {
				total := 0
				if lm.RemainingItemCount != nil {
					total = kc.Count + int(*lm.RemainingItemCount)
				}
				opts.Progress(sk.kind, kc.Count, total)
			}
			if cont = lm.Continue; cont == "" {
				break
			}
		}
		st.Objects = append(st.Objects, kc)
	}
	bw.WriteString("\n],\"kind\":\"List\",\"metadata\":{\"resourceVersion\":\"\"}}\n")
	return st, bw.Flush()
}

// setTypeMeta sets apiVersion and kind on a typed object (a LIST leaves
// them empty on its items; kubectl fills them in).
func setTypeMeta(obj any, apiVersion, kind string) {
	obj.(runtime.Object).GetObjectKind().SetGroupVersionKind(schema.FromAPIVersionAndKind(apiVersion, kind))
}

// key is "namespace/name", or the name of a cluster-scoped object.
func key(ns, name string) string {
	if ns == "" {
		return name
	}
	return ns + "/" + name
}
