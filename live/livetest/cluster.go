package livetest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// Client is a clientset for setting a test up: JSON, a high rate limit.
func (s *Server) Client(t testing.TB) kubernetes.Interface {
	t.Helper()
	rc, err := clientcmd.BuildConfigFromFlags("", s.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	rc.QPS, rc.Burst, rc.UserAgent = 2000, 4000, "livetest"
	k, err := kubernetes.NewForConfig(rc)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// Node is a ready node with cpu (millicores), memory and pods
// allocatable.
func Node(name string, milliCPU int64, memory string, labels map[string]string) *corev1.Node {
	res := corev1.ResourceList{
		corev1.ResourceCPU:    *resource.NewMilliQuantity(milliCPU, resource.DecimalSI),
		corev1.ResourceMemory: resource.MustParse(memory),
		corev1.ResourcePods:   resource.MustParse("110"),
	}
	if labels == nil {
		labels = map[string]string{}
	}
	labels["kubernetes.io/hostname"] = name
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Status: corev1.NodeStatus{Capacity: res, Allocatable: res,
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}},
	}
}

// Pod is a pod of one container requesting milliCPU, pending unless node
// is set; its grace period is grace seconds.
func Pod(ns, name string, milliCPU int64, node string, grace int64, labels map[string]string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: labels},
		Spec: corev1.PodSpec{
			NodeName:                      node,
			TerminationGracePeriodSeconds: &grace,
			Containers: []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10",
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
					corev1.ResourceCPU: *resource.NewMilliQuantity(milliCPU, resource.DecimalSI)}}}},
		},
	}
}

// Create makes the objects (Namespace, Node, Pod, PodDisruptionBudget)
// and returns the created pods by name, uids filled in. A node is made
// ready (see CreateNode); a bound pod is made Running and Ready, as a
// kubelet would report it (an eviction checks budgets only for such pods).
func Create(t testing.TB, k kubernetes.Interface, objs ...any) map[string]*corev1.Pod {
	t.Helper()
	ctx := context.Background()
	pods := map[string]*corev1.Pod{}
	for _, o := range objs {
		var err error
		switch o := o.(type) {
		case *corev1.Namespace:
			_, err = k.CoreV1().Namespaces().Create(ctx, o, metav1.CreateOptions{})
		case *corev1.Node:
			err = CreateNode(ctx, k, o)
		case *corev1.Pod:
			var p *corev1.Pod
			if p, err = k.CoreV1().Pods(o.Namespace).Create(ctx, o, metav1.CreateOptions{}); err == nil && o.Spec.NodeName != "" {
				p, err = MarkRunning(ctx, k, p)
			}
			pods[o.Name] = p
		case *policyv1.PodDisruptionBudget:
			_, err = k.PolicyV1().PodDisruptionBudgets(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
		default:
			t.Fatalf("livetest.Create: %T", o)
		}
		if err != nil {
			t.Fatalf("create %T: %v", o, err)
		}
	}
	return pods
}

// CreateNode creates a node and takes off the not-ready taint the API
// server's TaintNodesByCondition admission puts on it, as the node
// lifecycle controller does once the node reports Ready.
func CreateNode(ctx context.Context, k kubernetes.Interface, n *corev1.Node) error {
	got, err := k.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{})
	if err != nil {
		return err
	}
	kept := got.Spec.Taints[:0]
	for _, tn := range got.Spec.Taints {
		if tn.Key != corev1.TaintNodeNotReady || hasTaint(n.Spec.Taints, tn.Key) {
			kept = append(kept, tn)
		}
	}
	if len(kept) == len(got.Spec.Taints) {
		return nil
	}
	got.Spec.Taints = kept
	_, err = k.CoreV1().Nodes().Update(ctx, got, metav1.UpdateOptions{})
	return err
}

func hasTaint(ts []corev1.Taint, key string) bool {
	for _, tn := range ts {
		if tn.Key == key {
			return true
		}
	}
	return false
}

// MarkRunning writes a bound pod's status as its kubelet would: Running
// and Ready.
func MarkRunning(ctx context.Context, k kubernetes.Interface, p *corev1.Pod) (*corev1.Pod, error) {
	now := metav1.Now()
	p.Status.Phase = corev1.PodRunning
	p.Status.StartTime = &now
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: now}}
	return k.CoreV1().Pods(p.Namespace).UpdateStatus(ctx, p, metav1.UpdateOptions{})
}

// PDB is a budget over the pods labelled app=app.
func PDB(ns, name, app string, minAvailable int) *policyv1.PodDisruptionBudget {
	v := intstr.FromInt32(int32(minAvailable))
	return &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec:       policyv1.PodDisruptionBudgetSpec{MinAvailable: &v, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}},
	}
}

// SetBudget writes a budget's status as the disruption controller would,
// allowing allowed disruptions.
func SetBudget(t testing.TB, k kubernetes.Interface, ns, name string, allowed int32) {
	t.Helper()
	ctx := context.Background()
	pdb, err := k.PolicyV1().PodDisruptionBudgets(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pdb.Status.ObservedGeneration = pdb.Generation
	pdb.Status.DisruptionsAllowed = allowed
	pdb.Status.CurrentHealthy = allowed + 1
	pdb.Status.DesiredHealthy = 1
	pdb.Status.ExpectedPods = allowed + 1
	if _, err := k.PolicyV1().PodDisruptionBudgets(ns).UpdateStatus(ctx, pdb, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// Kubelet plays the kubelets of a namespace: a pod marked for deletion is
// deleted for good after Delay, as a kubelet confirms a pod's end (without
// one, a pod with a grace period would stay terminating forever).
type Kubelet struct {
	Delay   time.Duration
	mu      sync.Mutex
	deleted map[string]time.Time
}

// RunKubelet starts a Kubelet for ns until ctx ends.
func RunKubelet(ctx context.Context, t testing.TB, k kubernetes.Interface, ns string, delay time.Duration) *Kubelet {
	t.Helper()
	kl := &Kubelet{Delay: delay, deleted: map[string]time.Time{}}
	w, err := k.CoreV1().Pods(ns).Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		defer w.Stop()
		for ev := range w.ResultChan() {
			p, ok := ev.Object.(*corev1.Pod)
			if !ok || ev.Type == watch.Deleted || p.DeletionTimestamp == nil {
				continue
			}
			go func() {
				select {
				case <-ctx.Done():
					return
				case <-time.After(kl.Delay):
				}
				zero := int64(0)
				uid := p.UID
				sent := time.Now()
				err := k.CoreV1().Pods(p.Namespace).Delete(context.Background(), p.Name,
					metav1.DeleteOptions{GracePeriodSeconds: &zero, Preconditions: &metav1.Preconditions{UID: &uid}})
				if err == nil {
					kl.mu.Lock()
					kl.deleted[p.Name] = sent
					kl.mu.Unlock()
				}
			}()
		}
	}()
	return kl
}

// DeletedAt is when the Kubelet sent the request that deleted the pod
// for good (zero if it did not): the pod existed until then.
func (kl *Kubelet) DeletedAt(name string) time.Time {
	kl.mu.Lock()
	defer kl.mu.Unlock()
	return kl.deleted[name]
}

// Namespace is a namespace object.
func Namespace(name string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
}

// NodeOf reads a pod's spec.nodeName ("" when pending; an error when it
// does not exist).
func NodeOf(k kubernetes.Interface, ns, name string) (string, error) {
	p, err := k.CoreV1().Pods(ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		return "", err
	}
	return p.Spec.NodeName, nil
}

// String makes fmt print a Kubelet's deletions.
func (kl *Kubelet) String() string {
	kl.mu.Lock()
	defer kl.mu.Unlock()
	return fmt.Sprint(kl.deleted)
}
