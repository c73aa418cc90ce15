// Package ingest reads exported Kubernetes objects into the plain model of
// package index, as the API server would hold them.
//
// # Formats
//
// [Load] takes files and directories. A directory means every regular file
// directly in it (below it with Options.Recursive, as kubectl -R) named
// *.json, *.yaml, *.yml or *.arrow (optionally followed by .gz or .zst), in
// sorted path order; a file named explicitly is read whatever its name.
// The path "-" is standard input, read into memory first. Content decides the format: gzip and zstd are
// recognised by their magic numbers (so a misnamed file still works), then
// a snapshot (see Snapshots) by the Arrow IPC stream marker 0xFFFFFFFF,
// then JSON when the first significant byte is '{' or '[', YAML otherwise.
// A JSON file that does not parse and yields nothing is retried as YAML
// (flow style "{kind: Pod}").
//
// A file may hold a kubectl-style List (items carry their own kind), typed
// lists (NodeList, PodList, ...: items take their kind from the list, even
// when "kind" follows "items"), single objects, several top-level JSON
// values in a row, arrays of objects, Lists nested in Lists, or a YAML
// multi-document stream ("---" lines, as k8s.io/apimachinery splits them).
//
// JSON is streamed through a small validating parser of its own (jp.go):
// list items are decoded one at a time into structs holding only the fields
// kplace uses, everything else is skipped (a scalar validated, an object
// or array by its structure alone: brackets matched, strings closed, the
// content not checked, as most of a full object's bytes are fields kplace
// never reads), so a large list never sits in memory whole and no
// reflection is involved. Cutting items out and skipping by structure both
// scan 64 bytes at a time (structscan.go: the block's quotes, backslashes
// and brackets as bit masks, from SSE2 compares on amd64). Strings that
// repeat across objects (namespaces, label keys and values, node names)
// are shared. With [Options].Parallelism above 1 (the default is
// GOMAXPROCS) the items of a JSON stream are cut out by one goroutine,
// parsed and converted by workers, and applied in input order: the result
// is the same as a sequential read, errors included. The items of a long
// list are cut by its lines (kubectl's indentation, or one item per line)
// and the parser checks each cut, a wrong one sending the reader back to
// cut by structure (spec.go). A worker parses into
// one scratch object and cuts resource lists and tolerations from slabs it
// empties per item (conversion copies them out). YAML documents are read
// whole and converted to JSON with sigs.k8s.io/yaml.
//
// # Kinds
//
// Node, Pod, Namespace, Service and ReplicationController (v1), Deployment,
// ReplicaSet, StatefulSet and DaemonSet (apps/v1), Job (batch/v1),
// PriorityClass (scheduling.k8s.io, any version) and PodDisruptionBudget
// (policy/v1). A Service keeps its selector (default topology spreading);
// a controller keeps what its controller reads (index.Workload: counts
// with the API defaults, statuses, its pod template as JSON). Other kinds
// are counted in Input.SkippedKinds by "apiVersion Kind".
//
// # Expansion
//
// [Expand] adds to a loaded input the pods its controllers would create
// now and that it lacks (and the ReplicaSets of Deployments that have
// none), following the v1.36 controllers: which pods a controller claims,
// how many it wants, which nodes a DaemonSet runs on (index's node
// filters), names, labels and hashes. Each pod is rendered as its
// controller posts it and converted and admitted as an input pod is;
// [Expansion.EachObject] writes the created objects and [CopyInput] the
// input's, for kplace expand.
//
// # Semantics
//
// API defaulting: container requests default to limits; pod-level requests
// default as the API server does (PodLevelResources, with hugepage limits);
// host-network pods get hostPort = containerPort; ports default to TCP;
// node allocatable defaults to capacity; a ReplicationController's selector
// defaults to its template's labels; namespaces carry
// kubernetes.io/metadata.name; the default namespace is "default" and the
// default scheduler "default-scheduler". A pod keeps the UID the input
// gives it and gets none when it has none: kplace makes no UID up (a
// binder sends the UID it finds as a precondition).
//
// Quantities are parsed exactly as k8s.io/apimachinery parses them (the
// parser is fuzzed against it), rounded up to a thousandth as API
// defaulting does, and summed exactly; cpu is reported in millicores,
// everything else in whole units rounded up. Effective requests follow
// k8s.io/component-helpers/resource.PodRequests as the v1.36 scheduler
// calls it (sidecars, init containers, pod-level resources, overhead; bound
// pods also use the in-place resize status), tested against it. Only
// resources the scheduler accounts (cpu, memory, ephemeral-storage and
// scalar resources) with a nonzero total are listed.
//
// Topology spread constraints and pod (anti-)affinity terms are read for
// every pod, bound ones included, into index.SpreadConstraint and
// index.PodAffinityTerm with kube-scheduler's defaults (whenUnsatisfiable
// DoNotSchedule, minDomains 1, nodeAffinityPolicy Honor, nodeTaintsPolicy
// Ignore) and the API server's admission mutation: matchLabelKeys
// (mismatchLabelKeys) become "key In (value)" ("key NotIn (value)")
// requirements ANDed into the labelSelector for each key the pod's labels
// carry, unless the selector has that requirement already (a pod read back
// from a cluster); a nil selector stays nil (it matches nothing), an empty
// one stays empty. A pod affinity term without namespaces and
// namespaceSelector gets the pod's namespace. What API validation rejects
// there (maxSkew below 1, an empty topologyKey, an unknown
// whenUnsatisfiable or node inclusion policy, minDomains below 1 or with
// ScheduleAnyway, repeated {topologyKey, whenUnsatisfiable}, weights
// outside 1..100, label keys without a labelSelector or in both
// matchLabelKeys and mismatchLabelKeys, selector operators other than In,
// NotIn, Exists and DoesNotExist, values missing for In and NotIn or given
// for Exists and DoesNotExist) is an error.
//
// Admission: the Priority plugin always applies: a pod without
// spec.priority gets its class's value (the named class, else the
// lowest-valued globalDefault one, else 0; system-node-critical and
// system-cluster-critical always exist), a missing preemptionPolicy comes
// from the class, and a pending pod naming an unknown class is kept with
// Pod.Rejected set to the API server's message. DefaultTolerationSeconds
// applies to pending pods when [Options].AdmissionDefaults is set. Pending
// pods of another scheduler and Succeeded/Failed pods are counted and
// dropped. Namespaces that admitted pods use but the input lacks are added.
//
// # Snapshots
//
// [WriteSnapshot] (kplace convert) stores a loaded [index.Input], admission
// already applied, as Arrow IPC tables; [Load] reads one back without
// parsing JSON. A snapshot must be the only input of a Load (it holds a
// whole cluster after admission: merging it with other files would admit
// its pods twice), and its objects keep the source positions of the files
// it was converted from.
//
// The file is a sequence of Arrow IPC streams (the streaming format: each
// a schema message, dictionary batches, record batches of at most 65,536
// rows, an end-of-stream marker), buffers zstd-compressed. Every schema
// carries the metadata kplace.format = "kplace-snapshot",
// kplace.format_version = [SnapshotVersion] and kplace.table, naming the
// table. Tables, in order: snapshot (one row: admission_defaults, the skip
// counters, the row count of every other table, null for a nil slice;
// its schema also records kplace.admission_defaults), nodes, pods,
// priority_classes, pdbs, namespaces, workloads (one row per object, one
// column per field, snake_case; a workload's template and claim templates
// as binary JSON), and checksum (no columns; its metadata
// kplace.xxhash64.TABLE holds the XXH64 of each table's stream bytes).
// Repeated strings are dictionary encoded (one dictionary per column,
// written once); lists, structs and maps that the model can hold as nil
// are nullable, so nil and empty survive (labels map<string,string>,
// tolerations list<struct> with a nullable toleration_seconds, owner and
// selector nullable structs, ...). A pod's spread constraints and pod
// (anti-)affinity terms are the list<struct> columns spread, affinity,
// anti_affinity, preferred_affinity and preferred_anti_affinity, null for
// the (usual) pod without any. The same input always gives the same
// bytes.
//
// Decoding checks more than Arrow does: each schema message must be byte
// for byte the one this version writes (before the ipc package parses
// it), every offset, index and length must lie within its buffers, no
// message or buffer may exceed 1 GiB, row counts must match the snapshot
// table, and the checksums must match. Repeated strings are interned once
// per dictionary entry; the nested lists of a record batch share one
// backing array per column (each pod's slice capped at its length), the
// rows of a batch with equal tolerations, requests, images or other
// string lists share one slice and those of one owner one reference (as
// the JSON path's sharer does over the whole input), and pods with equal
// labels (node selectors) share one map. The model is
// read-only once loaded. Record batches are converted on
// [Options].Parallelism goroutines while the next is decompressed.
//
// # Errors
//
// Every problem is an [*Error] naming the file, the line of the object
// where known (of the offending byte for malformed JSON), the object and
// the field. Duplicate objects (same kind, namespace and name) are errors
// naming both places. A bad snapshot is an error naming the file and the
// table. Load never panics on bad input.
package ingest
