package ingest

import "testing"

// TestEqualIgnoreHash checks the deployment controller's template equality
// on one Deployment's template against several ReplicaSets' in turn: the
// ReplicaSet's pod-template-hash label is left out, a template written
// with its keys in another order or a quantity spelled otherwise is still
// equal (the decoded comparison), and another image is not. The
// Deployment's template is decoded once, on the first comparison that
// needs it.
func TestEqualIgnoreHash(t *testing.T) {
	t.Parallel()
	d := deployTemplate{raw: []byte(`{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"web:2","resources":{"requests":{"cpu":"1"}}}]}}`)}
	for _, tc := range []struct {
		rs   string
		want bool
	}{
		{`{"metadata":{"labels":{"app":"web","pod-template-hash":"abc"}},"spec":{"containers":[{"name":"c","image":"web:2","resources":{"requests":{"cpu":"1"}}}]}}`, true},
		{`{"metadata":{"labels":{"pod-template-hash":"abc","app":"web"}},"spec":{"containers":[{"image":"web:2","name":"c","resources":{"requests":{"cpu":"1000m"}}}]}}`, true},
		{`{"metadata":{"labels":{"app":"web","pod-template-hash":"abc"}},"spec":{"containers":[{"name":"c","image":"web:1","resources":{"requests":{"cpu":"1"}}}]}}`, false},
		{`{"metadata":{"labels":{"app":"web","pod-template-hash":"abc"}},"spec":{"containers":[{"name":"c","image":"web:2","resources":{"requests":{"cpu":"2"}}}]}}`, false},
		{`{"metadata":{"labels":{"app":"web","pod-template-hash":"abc"}},"spec":{"containers":[{"name":"c","image":"web:2","resources":{"requests":{"cpu":"1"}}}]}}`, true},
		{`not json`, false},
	} {
		if got := d.equalIgnoreHash([]byte(tc.rs)); got != tc.want {
			t.Errorf("%s: equal %v, want %v", tc.rs, got, tc.want)
		}
	}
	if !d.decoded || d.dec == nil || d.dec.Labels["app"] != "web" {
		t.Errorf("the Deployment's template was not kept decoded: %+v", d)
	}
}
