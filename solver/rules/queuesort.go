package rules

// QueueSort (pkg/scheduler/framework/plugins/queuesort, PrioritySort):
// pending pods are tried by priority, highest first. kube-scheduler then
// takes the time a pod entered the queue; a batch has no such time, so
// kplace takes the pod's creation time, oldest first, and then the input
// order (the caller's stable sort).

// QueueCompare orders two pending pods by priority (descending), then
// creation time (ascending); 0 leaves them in input order.
func QueueCompare(prioA int32, createdA int64, prioB int32, createdB int64) int {
	switch {
	case prioA != prioB:
		if prioA > prioB {
			return -1
		}
		return 1
	case createdA < createdB:
		return -1
	case createdA > createdB:
		return 1
	}
	return 0
}
