package index

// WorkloadExpansion is what expansion (ingest.Expand) did for one
// controller: how many pods it wants, how many the input held, how many
// expansion created, and its pending pods.
type WorkloadExpansion struct {
	Kind, Namespace, Name string
	// Desired is the pods the controller wants now (a DaemonSet: the nodes
	// it runs on); Existing those of them the input held (pending ones
	// included); Created those expansion added to the batch.
	Desired, Existing, Created int
	// Pods are its pending pods, held by the input or created, by PodID
	// (an index into Input.Pods after expansion, and Cluster.Pods).
	Pods []PodID
	// Note says what kept the controller from creating pods or its pods
	// from being placed ("no pod template", "volumes: ...", ...); "" when
	// nothing did.
	Note string
}
