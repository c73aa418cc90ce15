// Package index holds the cluster as the engine sees it: the plain model
// types that ingest fills (types.go), and the interned, columnar, bitmap
// indexed Cluster that the solver reads and mutates (cluster.go).
//
// # Layout
//
// Nodes get dense ids ([NodeID]) in input order. Per-node numbers live in
// columns indexed by node id: Alloc[r][n] and Req[r][n] for every resource r
// (cpu in millicores, memory and storage in bytes, pods as a count, extended
// resources in units), and the scheduler's non-zero cpu/memory requests used
// for scoring. Labels and taints are interned ([Symbols]) and indexed as
// roaring bitmaps: label key=value -> nodes, label key -> nodes, distinct
// taint -> nodes, unschedulable nodes. Filters become set algebra on these.
//
// # Mutation
//
// Bind and Unbind change a node's requested resources and ports and bump the
// node's generation; every change is appended to Changes, a log that solvers
// replay to refresh whatever they derived from the node. A Cluster is not
// safe for concurrent mutation.
package index
