package bench

import (
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
)

// TestRealisticAPIValid: the realistic pods pass the API server's checks
// of their node selectors (qualified-name keys, label values) and
// container port names (IANA service names): a cluster generated here can
// be created through the API (TestLiveScale does).
func TestRealisticAPIValid(t *testing.T) {
	for _, cfg := range []GenConfig{smallRealistic, {Profile: "realistic", Nodes: 200, Pods: 2000, Running: 400, Seed: 1}} {
		checkAPIValid(t, genRealistic(t, cfg))
	}
}

func checkAPIValid(t *testing.T, c *rCluster) {
	bad := 0
	report := func(pod, what string, errs []string) {
		if len(errs) > 0 {
			if bad++; bad <= 5 {
				t.Errorf("pod %s: %s: %v", pod, what, errs)
			}
		}
	}
	for _, p := range c.pods {
		for k, v := range p.Spec.NodeSelector {
			report(p.Name, "nodeSelector key "+k, validation.IsQualifiedName(k))
			report(p.Name, "nodeSelector value "+v, validation.IsValidLabelValue(v))
		}
		for _, ct := range append(p.Spec.InitContainers, p.Spec.Containers...) {
			for _, port := range ct.Ports {
				if port.Name != "" {
					report(p.Name, "port name "+port.Name, validation.IsValidPortName(port.Name))
				}
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d invalid fields in %d pods", bad, len(c.pods))
	}
}
