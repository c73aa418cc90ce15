// Package ingest reads exported Kubernetes objects into the plain model of
// package index, as the API server would hold them.
//
// # Formats
//
// [Load] takes files and directories. A file is JSON when its first
// significant byte is '{' or '[', YAML otherwise; gzip and zstd files are
// recognised by their magic numbers (so a misnamed file still works). A file
// may hold a kubectl-style List (items carry their own kind), a typed list
// (NodeList, PodList, ...: items take their kind from the list), single
// objects, several top-level JSON values in a row, or a YAML multi-document
// stream ("---"). JSON is streamed: a list's items are decoded one at a time
// into structs holding only the fields kplace uses. YAML documents are read
// whole and converted to JSON with sigs.k8s.io/yaml.
//
// # Kinds
//
// Node, Pod, Namespace, Service and ReplicationController (v1), ReplicaSet
// and StatefulSet (apps/v1), PriorityClass (scheduling.k8s.io, any
// version) and PodDisruptionBudget (policy/v1). Other kinds are counted in
// Input.SkippedKinds by "apiVersion Kind".
//
// # Semantics
//
// API defaulting: container requests default to limits; pod-level requests
// default as the API server does (PodLevelResources); host-network pods get
// hostPort = containerPort; node allocatable defaults to capacity;
// namespaces carry kubernetes.io/metadata.name. Quantities are parsed
// exactly as k8s.io/apimachinery parses them and summed exactly; cpu is
// reported in millicores, everything else in whole units rounded up.
// Effective requests follow k8s.io/component-helpers/resource.PodRequests
// (sidecars, init containers, pod-level resources, overhead; bound pods
// also use the in-place resize status).
//
// Admission: the Priority plugin always applies (a pending pod naming an
// unknown PriorityClass is kept with Pod.Rejected set to the API server's
// message); DefaultTolerationSeconds applies to pending pods when
// [Options].AdmissionDefaults is set. Pending pods of another scheduler and
// finished pods are counted and dropped.
//
// # Errors
//
// Every problem is an [*Error] naming the file, the line of the object
// where known, the object and the field. Duplicate objects (same kind,
// namespace and name) are errors naming both places. Load never panics on
// bad input.
package ingest
