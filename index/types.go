package index

// Plain model types: the cluster as ingest hands it over, with strings not yet
// interned. ingest fills these (quantities parsed, admission defaults applied);
// Build turns them into the columnar, interned Cluster the solver works on.

// Resource names the engine knows by position. Extended resources get ids
// from ResExtended upward, in order of first appearance.
const (
	ResCPU              = 0 // millicores
	ResMemory           = 1 // bytes
	ResEphemeralStorage = 2 // bytes
	ResPods             = 3 // count
	ResExtended         = 4
)

// Well-known resource names.
const (
	NameCPU              = "cpu"
	NameMemory           = "memory"
	NameEphemeralStorage = "ephemeral-storage"
	NamePods             = "pods"
)

// Quantity is one resource amount in its base unit: millicores for cpu,
// whole units (rounded up) for everything else.
type Quantity struct {
	Name  string
	Value int64
}

// ResourceList is a small list of quantities, at most one per name.
type ResourceList []Quantity

// Get returns the value for name and whether it is present.
func (l ResourceList) Get(name string) (int64, bool) {
	for _, q := range l {
		if q.Name == name {
			return q.Value, true
		}
	}
	return 0, false
}

// Taint effects.
const (
	EffectNoSchedule       = "NoSchedule"
	EffectPreferNoSchedule = "PreferNoSchedule"
	EffectNoExecute        = "NoExecute"
)

// Taint is a node taint.
type Taint struct {
	Key, Value, Effect string
}

// Toleration operators.
const (
	OpEqual  = "Equal"
	OpExists = "Exists"
)

// Toleration is a pod toleration. Operator "" means Equal; Effect "" matches
// every effect. TolerationSeconds is nil when unset.
type Toleration struct {
	Key, Operator, Value, Effect string
	TolerationSeconds            *int64
}

// ToleratesTaint reports whether t tolerates taint, by the rules of
// k8s.io/api/core/v1 Toleration.ToleratesTaint.
func (t *Toleration) ToleratesTaint(taint *Taint) bool {
	if t.Effect != "" && t.Effect != taint.Effect {
		return false
	}
	if t.Key != "" && t.Key != taint.Key {
		return false
	}
	switch t.Operator {
	case OpExists:
		return true
	case OpEqual, "":
		return t.Value == taint.Value
	}
	return false
}

// Node selector operators.
const (
	SelIn           = "In"
	SelNotIn        = "NotIn"
	SelExists       = "Exists"
	SelDoesNotExist = "DoesNotExist"
	SelGt           = "Gt"
	SelLt           = "Lt"
)

// Requirement is one node selector expression (matchExpressions) or field
// expression (matchFields, key metadata.name).
type Requirement struct {
	Key      string
	Operator string
	Values   []string
}

// NodeSelectorTerm is one term of a required or preferred node affinity:
// all expressions and fields must match. A term with neither matches nothing.
type NodeSelectorTerm struct {
	MatchExpressions []Requirement
	MatchFields      []Requirement
}

// PreferredTerm is a weighted preferred scheduling term.
type PreferredTerm struct {
	Weight int32
	Term   NodeSelectorTerm
}

// HostPort is one container port with a hostPort set.
type HostPort struct {
	HostIP   string // "" means 0.0.0.0
	Protocol string // "TCP" when unset
	Port     int32
}

// Preemption policies.
const (
	PreemptLowerPriority = "PreemptLowerPriority"
	PreemptNever         = "Never"
)

// Source locates an object in the input, for error messages and reports.
type Source struct {
	File string
	Line int // 1-based line of the object's start, 0 when unknown
}

// Node is an input node.
type Node struct {
	Name          string
	Labels        map[string]string
	Taints        []Taint
	Unschedulable bool
	// Allocatable is status.allocatable, or status.capacity when allocatable
	// is absent (API defaulting).
	Allocatable ResourceList
	// Images is status.images: the images the node holds (ImageLocality).
	Images []NodeImage
	Src    Source
}

// NodeImage is one entry of a node's status.images: the image's names
// (tags and digests) and its size.
type NodeImage struct {
	Names []string
	Size  int64 // sizeBytes
}

// OwnerRef is the controller owner of a pod or workload (the
// ownerReference with controller: true).
type OwnerRef struct {
	Kind, Name string
	// APIVersion is the owner's apiVersion ("apps/v1", "v1"): default
	// topology spreading looks the owner up by group, version and kind.
	APIVersion string
	// UID is the owner's uid ("" when the reference has none): a
	// controller claims the pods whose reference carries its uid.
	UID string
}

// Pod is an input pod, admission defaults already applied.
type Pod struct {
	Namespace, Name, UID string
	Labels               map[string]string
	// CreationUnix is metadata.creationTimestamp in Unix seconds (0 if absent).
	CreationUnix int64
	// StartUnix is status.startTime in Unix seconds (0 if absent: the
	// scheduler then takes the pod as started now, the latest start).
	StartUnix int64
	Owner     *OwnerRef
	// NodeName is spec.nodeName: set means bound and consuming resources.
	NodeName      string
	SchedulerName string
	// Requests is the effective pod request (init/sidecar/overhead rules
	// applied).
	Requests ResourceList
	// ScoreCPU and ScoreMemory are the scheduler's non-zero requests used for
	// scoring: computed like Requests, but each container lacking a cpu
	// (memory) request counts 100m (200Mi), as component-helpers'
	// PodRequests with NonMissingContainerRequests does.
	ScoreCPU, ScoreMemory int64
	Tolerations           []Toleration
	NodeSelector          map[string]string
	RequiredTerms         []NodeSelectorTerm // nil: no required node affinity
	HasRequired           bool               // required affinity present (even with zero terms)
	PreferredTerms        []PreferredTerm
	HostPorts             []HostPort
	Priority              int32
	PreemptionPolicy      string
	// Spread is spec.topologySpreadConstraints, defaults applied (see
	// SpreadConstraint); nil when the pod has none.
	Spread []SpreadConstraint
	// Affinity and AntiAffinity are the required pod (anti-)affinity terms
	// (requiredDuringSchedulingIgnoredDuringExecution); PreferredAffinity
	// and PreferredAntiAffinity the weighted preferred ones.
	Affinity, AntiAffinity                   []PodAffinityTerm
	PreferredAffinity, PreferredAntiAffinity []WeightedPodAffinityTerm
	// Unsupported names the first hard constraint the engine cannot honour
	// yet ("volumes", "resource claims"); the pod is left pending with
	// reason "unsupported: <field>".
	Unsupported string
	// Gated is true when the pod has schedulingGates, named in
	// SchedulingGates.
	Gated           bool
	SchedulingGates []string
	// Rejected is the admission rejection message, "" when admitted.
	Rejected string
	Src      Source

	// NonZeroCPU and NonZeroMemory are what the pod adds to its node's
	// non-zero requested totals (framework PodInfo.CalculateResource). They
	// equal ScoreCPU and ScoreMemory except for pods with pod-level requests
	// (spec.resources), where a container's missing request is defaulted only
	// if the pod as a whole requests nothing of that resource.
	NonZeroCPU, NonZeroMemory int64
	// PriorityClassName is spec.priorityClassName, or the globalDefault
	// class's name when the priority came from it ("" when none applied).
	PriorityClassName string
	// Images are the images of the init containers, the containers and the
	// image volumes, in that order, named as ImageLocality looks them up
	// (":latest" added to a name without a tag); ImageContainers is the
	// number of init and app containers (ImageLocality's threshold scales
	// with it).
	Images          []string
	ImageContainers int32
}

// Topology spread constants.
const (
	DoNotSchedule  = "DoNotSchedule"
	ScheduleAnyway = "ScheduleAnyway"
	PolicyHonor    = "Honor"
	PolicyIgnore   = "Ignore"
)

// SpreadConstraint is one topologySpreadConstraint with the scheduler's
// defaults filled in: WhenUnsatisfiable DoNotSchedule when unset, MinDomains
// 1 when unset, NodeAffinityPolicy Honor, NodeTaintsPolicy Ignore.
// MatchLabelKeys are already merged into Selector (key In (the pod's value)
// for each key the pod carries, as kube-scheduler and the API server do); the
// keys are kept for reports.
type SpreadConstraint struct {
	MaxSkew            int32
	TopologyKey        string
	WhenUnsatisfiable  string
	Selector           *LabelSelector // nil matches no pod
	MinDomains         int32
	MatchLabelKeys     []string
	NodeAffinityPolicy string
	NodeTaintsPolicy   string
}

// PodAffinityTerm is one pod (anti-)affinity term. MatchLabelKeys and
// MismatchLabelKeys are already merged into Selector (key In / NotIn the
// pod's value, as the API server does at admission).
type PodAffinityTerm struct {
	Selector *LabelSelector // nil matches no pod
	// Namespaces lists namespaces by name. When it is empty and
	// NamespaceSelector is nil, the term selects the pod's own namespace
	// (ingest fills Namespaces with it). A non-nil empty NamespaceSelector
	// selects every namespace.
	Namespaces        []string
	NamespaceSelector *LabelSelector
	TopologyKey       string
	MatchLabelKeys    []string
	MismatchLabelKeys []string
}

// WeightedPodAffinityTerm is a preferred pod (anti-)affinity term.
type WeightedPodAffinityTerm struct {
	Weight int32
	Term   PodAffinityTerm
}

// PriorityClass is a scheduling.k8s.io PriorityClass.
type PriorityClass struct {
	Name             string
	Value            int32
	GlobalDefault    bool
	PreemptionPolicy string
}

// PDB is a policy/v1 PodDisruptionBudget; kept for the preemption issue.
type PDB struct {
	Namespace, Name string
	Selector        *LabelSelector
	MinAvailable    string // int or percent, "" when unset
	MaxUnavailable  string
	// DisruptionsAllowed is status.disruptionsAllowed; -1 when the object has
	// no status.
	DisruptionsAllowed int32
}

// LabelSelector is a metav1.LabelSelector.
type LabelSelector struct {
	MatchLabels      map[string]string
	MatchExpressions []Requirement // operators In, NotIn, Exists, DoesNotExist
}

// Namespace is a v1 Namespace (labels only).
type Namespace struct {
	Name   string
	Labels map[string]string
}

// Workload kinds: Services, ReplicaSets, StatefulSets and
// ReplicationControllers feed default topology spreading with their
// selectors; every kind but Service is a controller whose missing pods
// expansion creates (ingest.Expand).
const (
	KindService               = "Service"
	KindReplicaSet            = "ReplicaSet"
	KindStatefulSet           = "StatefulSet"
	KindReplicationController = "ReplicationController"
	KindDeployment            = "Deployment"
	KindDaemonSet             = "DaemonSet"
	KindJob                   = "Job"
)

// Workload is a Service (v1), a ReplicaSet, StatefulSet, Deployment or
// DaemonSet (apps/v1), a ReplicationController (v1) or a Job (batch/v1).
// A Service keeps its selector only; a controller keeps what its
// controller needs to create its pods: the counts of its spec and status,
// API defaults applied, and its pod template as the input's JSON.
type Workload struct {
	Kind            string // KindService, ...
	Namespace, Name string
	// Selector is the pod selector. Service and ReplicationController
	// selectors are plain label maps (MatchLabels only; an RC without one is
	// defaulted from its template's labels, as the API server does). Nil when
	// the object has none: a Service with a nil selector selects nothing, and
	// so does a nil LabelSelector; an empty one selects everything.
	Selector *LabelSelector
	Src      Source

	// The fields below are zero for a Service.

	UID string
	// Owner is the controller ownerReference (a ReplicaSet's Deployment, a
	// Job's CronJob), nil when there is none.
	Owner *OwnerRef
	// CreationUnix is metadata.creationTimestamp in Unix seconds (0 if
	// absent): the deployment controller takes the oldest ReplicaSet whose
	// template matches.
	CreationUnix int64
	// Replicas is spec.replicas of a Deployment, ReplicaSet, StatefulSet or
	// ReplicationController (1 when unset, the API default).
	Replicas int32
	// Parallelism is a Job's spec.parallelism (1 when unset); Completions
	// its spec.completions, -1 when unset (the API defaults it to 1 when
	// parallelism is unset too).
	Parallelism, Completions int32
	// Indexed is a Job's spec.completionMode Indexed; Suspend its
	// spec.suspend; ManualSelector its spec.manualSelector.
	Indexed, Suspend, ManualSelector bool
	// Finished is true when a Job has a Complete or Failed condition with
	// status True: its controller creates no more pods.
	Finished bool
	// Succeeded is a Job's status.succeeded; CompletedIndexes and
	// FailedIndexes its status.completedIndexes and status.failedIndexes
	// ("1,3-5"), "" when none.
	Succeeded                       int32
	CompletedIndexes, FailedIndexes string
	// OrdinalsStart is a StatefulSet's spec.ordinals.start; ServiceName its
	// spec.serviceName; UpdateRevision its status.updateRevision ("" when
	// unset), the controller-revision-hash label of the pods it creates.
	OrdinalsStart  int32
	ServiceName    string
	UpdateRevision string
	// CollisionCount is status.collisionCount of a Deployment, DaemonSet or
	// StatefulSet, -1 when unset.
	CollisionCount int32
	// TemplateGeneration is a DaemonSet's
	// deprecated.daemonset.template.generation annotation, -1 when absent.
	TemplateGeneration int64
	// Template is spec.template (a PodTemplateSpec) as the input's JSON;
	// nil for a Service.
	Template []byte
	// ClaimTemplates is a StatefulSet's spec.volumeClaimTemplates as the
	// input's JSON (an array), nil when it has none.
	ClaimTemplates []byte
}

// Input is everything ingest read, in input order.
type Input struct {
	Nodes           []Node
	Pods            []Pod
	PriorityClasses []PriorityClass
	PDBs            []PDB
	Namespaces      []Namespace
	Workloads       []Workload
	// Stats counts what was skipped.
	SkippedKinds   map[string]int // kind -> count of objects of kinds not used
	OtherScheduler int            // pending pods for another schedulerName
	FinishedPods   int            // Succeeded/Failed pods ignored
}
