// Package live talks to a live cluster through client-go: it reads the
// objects kplace uses as a kubectl-style List (WriteSnapshot: paginated
// LISTs under a client-side QPS limit) and applies a result, the Bindings
// and Evictions `kplace place` writes, in the order they depend on each
// other (Bind: uid preconditions, per-pod failures, retries with backoff, a
// journal to resume from).
//
// # Applying a result
//
// ReadPlan reads a result (a List, JSON lines or a stream of objects; one
// file, or the two files of place --split) into a Plan. Each Binding waits
// for every Eviction before it in the result on its node and for every
// Eviction before it that names its pod as preemptor, until the victim is
// gone from the API server; each Eviction waits for the same Evictions to
// be accepted. An Eviction that fails blocks whatever waits on it: the
// Bindings that needed its room are not applied and are reported, and so
// are the Evictions whose preemptor can then no longer be bound. Items that
// wait on nothing run in parallel, at most Concurrency at a time; every
// request goes through one client-side rate limiter.
//
// # Journal
//
// The journal (JSON lines) starts with a header naming the result by its
// SHA-256, then records each outcome as it happens: "bound", "evicted"
// (accepted), "gone" (the victim no longer exists), "failed". A resumed run
// skips what the journal shows applied and waits again for victims
// evicted but not yet seen gone; what was in flight when the run stopped
// is recognised on the server (a Binding already there, a victim already
// gone or terminating), so nothing is applied twice.
//
// The package imports export for the result format's annotation keys and
// nothing else of kplace; cmd wires it.
package live
