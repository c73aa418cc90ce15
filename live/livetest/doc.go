// Package livetest starts a real kube-apiserver (v1.36.3) and etcd
// (v3.6.8) on loopback ports for tests: no fake clientset, since a fake
// accepts requests a real server refuses. Nothing runs controllers: pods
// keep the phase a test writes, nothing computes a PodDisruptionBudget's
// status, and a deleted pod with a grace period stays terminating until
// someone deletes it with grace 0 (the tests play the kubelet).
//
// # Binaries
//
// Binaries finds them, in order: in $KPLACE_APISERVER_BIN (a directory
// holding etcd and kube-apiserver, plain or .zst); in shared/apiserver/bin
// (etcd.zst, kube-apiserver.zst) beside the module root or any folder above
// it, unpacked once into .cache/apiserver/bin under the module root; in
// that cache, built earlier by Build. Build compiles them from the Go
// module proxy as the shared folder's README does (k8s.io/kubernetes
// v1.36.3 with its staging modules at v0.36.3, go.etcd.io/etcd/server/v3
// v3.6.8): about 45 minutes on 2 cores, which is why `make apiserver`
// runs it before the tests, not the tests themselves.
//
// # Server
//
// Start makes a CA, a serving certificate and a service-account key in Go
// (no openssl), starts etcd and the API server with the flags of the
// shared `up` script (token auth "admin-token" for a system:masters user,
// RBAC, the ServiceAccount admission plugin off) plus an audit log of
// every pods/binding and pods/eviction request, and waits for /readyz.
// The processes die with the test binary (Pdeathsig).
package livetest
