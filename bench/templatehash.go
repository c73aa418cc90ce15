package bench

import "github.com/kplace/kplace/ingest"

// podTemplateHash is the deployment controller's pod-template-hash of a
// pod template (a Deployment's spec.template, as JSON, API defaults
// applied as the API server stores them), as ingest computes it when it
// expands Deployments; collisionCount is nil when the Deployment has none.
func podTemplateHash(template []byte, collisionCount *int32) (string, error) {
	return ingest.TemplateHash(template, collisionCount)
}
