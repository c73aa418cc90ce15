package ingest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writePodList writes a kubectl-style List of n running pods shaped like
// `kubectl get pods -o json` output for a Deployment (managed fields
// hidden, as kubectl hides them), about 4 KiB each.
func writePodList(tb testing.TB, path string, n int) int64 {
	return writePodListOf(tb, path, n, podTemplate)
}

// writePodListOf writes n pods of template (podTemplate's arguments).
func writePodListOf(tb testing.TB, path string, n int, template string) int64 {
	tb.Helper()
	var b bytes.Buffer
	b.WriteString("{\n    \"apiVersion\": \"v1\",\n    \"items\": [\n")
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, template, i%500, i, i, i%1000, i%7, i%60)
	}
	b.WriteString("\n    ],\n    \"kind\": \"List\",\n    \"metadata\": {\n        \"resourceVersion\": \"\"\n    }\n}\n")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		tb.Fatal(err)
	}
	return int64(b.Len())
}

const podTemplate = `        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {
                "annotations": {
                    "kubectl.kubernetes.io/restartedAt": "2024-05-01T10:00:00Z",
                    "prometheus.io/scrape": "true"
                },
                "creationTimestamp": "2024-05-01T10:00:%02[6]dZ",
                "generateName": "web-7c9d8b6f5d-",
                "labels": {
                    "app": "web-%[1]d",
                    "pod-template-hash": "7c9d8b6f5d",
                    "tier": "frontend"
                },
                "name": "web-7c9d8b6f5d-%[2]d",
                "namespace": "team-%[5]d",
                "ownerReferences": [
                    {
                        "apiVersion": "apps/v1",
                        "blockOwnerDeletion": true,
                        "controller": true,
                        "kind": "ReplicaSet",
                        "name": "web-7c9d8b6f5d",
                        "uid": "5f0c3b0e-8a51-4c9e-9c2a-0d7f3c1b2a4e"
                    }
                ],
                "resourceVersion": "123456%[3]d",
                "uid": "0b8e5c1a-0000-4000-8000-%012[3]d"
            },
            "spec": {
                "containers": [
                    {
                        "env": [
                            {"name": "LOG_LEVEL", "value": "info"},
                            {"name": "POD_NAME", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}}}
                        ],
                        "image": "registry.example.com/web:1.2.3",
                        "imagePullPolicy": "IfNotPresent",
                        "name": "web",
                        "ports": [
                            {"containerPort": 8080, "name": "http", "protocol": "TCP"}
                        ],
                        "readinessProbe": {
                            "failureThreshold": 3,
                            "httpGet": {"path": "/healthz", "port": 8080, "scheme": "HTTP"},
                            "periodSeconds": 10,
                            "successThreshold": 1,
                            "timeoutSeconds": 1
                        },
                        "resources": {
                            "limits": {"cpu": "500m", "memory": "512Mi"},
                            "requests": {"cpu": "250m", "memory": "256Mi"}
                        },
                        "terminationMessagePath": "/dev/termination-log",
                        "terminationMessagePolicy": "File",
                        "volumeMounts": [
                            {"mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "name": "kube-api-access-abcde", "readOnly": true}
                        ]
                    }
                ],
                "dnsPolicy": "ClusterFirst",
                "enableServiceLinks": true,
                "nodeName": "node-%[4]d",
                "preemptionPolicy": "PreemptLowerPriority",
                "priority": 0,
                "restartPolicy": "Always",
                "schedulerName": "default-scheduler",
                "securityContext": {},
                "serviceAccount": "default",
                "serviceAccountName": "default",
                "terminationGracePeriodSeconds": 30,
                "tolerations": [
                    {"effect": "NoExecute", "key": "node.kubernetes.io/not-ready", "operator": "Exists", "tolerationSeconds": 300},
                    {"effect": "NoExecute", "key": "node.kubernetes.io/unreachable", "operator": "Exists", "tolerationSeconds": 300}
                ],
                "volumes": [
                    {
                        "name": "kube-api-access-abcde",
                        "projected": {
                            "defaultMode": 420,
                            "sources": [
                                {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
                                {"configMap": {"items": [{"key": "ca.crt", "path": "ca.crt"}], "name": "kube-root-ca.crt"}},
                                {"downwardAPI": {"items": [{"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}, "path": "namespace"}]}}
                            ]
                        }
                    }
                ]
            },
            "status": {
                "conditions": [
                    {"lastProbeTime": null, "lastTransitionTime": "2024-05-01T10:00:01Z", "status": "True", "type": "Initialized"},
                    {"lastProbeTime": null, "lastTransitionTime": "2024-05-01T10:00:05Z", "status": "True", "type": "Ready"},
                    {"lastProbeTime": null, "lastTransitionTime": "2024-05-01T10:00:05Z", "status": "True", "type": "ContainersReady"},
                    {"lastProbeTime": null, "lastTransitionTime": "2024-05-01T10:00:00Z", "status": "True", "type": "PodScheduled"}
                ],
                "containerStatuses": [
                    {
                        "containerID": "containerd://4f6c2b0d9e8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c",
                        "image": "registry.example.com/web:1.2.3",
                        "imageID": "registry.example.com/web@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
                        "lastState": {},
                        "name": "web",
                        "ready": true,
                        "restartCount": 0,
                        "started": true,
                        "state": {"running": {"startedAt": "2024-05-01T10:00:03Z"}}
                    }
                ],
                "hostIP": "10.0.0.1",
                "phase": "Running",
                "podIP": "10.1.2.3",
                "podIPs": [{"ip": "10.1.2.3"}],
                "qosClass": "Burstable",
                "startTime": "2024-05-01T10:00:00Z"
            }
        }`

// BenchmarkLoadPodList measures decoding of a kubectl-style pod List.
func BenchmarkLoadPodList(b *testing.B) {
	benchLoadPods(b, 20000, writePodList)
}

// relationsSpec is what a Deployment's pod template often adds: a zone
// spread constraint and a hostname anti-affinity, keyed on the template
// hash.
const relationsSpec = `"topologySpreadConstraints": [
                    {
                        "labelSelector": {"matchLabels": {"app": "web"}},
                        "matchLabelKeys": ["pod-template-hash"],
                        "maxSkew": 1,
                        "topologyKey": "topology.kubernetes.io/zone",
                        "whenUnsatisfiable": "DoNotSchedule"
                    }
                ],
                "affinity": {
                    "podAntiAffinity": {
                        "preferredDuringSchedulingIgnoredDuringExecution": [
                            {
                                "podAffinityTerm": {
                                    "labelSelector": {"matchExpressions": [{"key": "app", "operator": "In", "values": ["web"]}]},
                                    "topologyKey": "kubernetes.io/hostname"
                                },
                                "weight": 100
                            }
                        ]
                    }
                },
                "containers": [`

// relationsTemplate is podTemplate with relationsSpec.
var relationsTemplate = strings.Replace(podTemplate, `"containers": [`, relationsSpec, 1)

// BenchmarkLoadPodListRelations is BenchmarkLoadPodList with every pod
// carrying relationsSpec.
func BenchmarkLoadPodListRelations(b *testing.B) {
	benchLoadPods(b, 20000, func(tb testing.TB, path string, n int) int64 {
		return writePodListOf(tb, path, n, relationsTemplate)
	})
}

// writeCompactPods writes a PodList of n small pending pods, compact JSON
// as a generator would emit it (about 400 bytes each).
func writeCompactPods(tb testing.TB, path string, n int) int64 {
	tb.Helper()
	var b bytes.Buffer
	b.WriteString(`{"kind":"PodList","apiVersion":"v1","items":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"metadata":{"name":"pod-%d","namespace":"ns-%d","labels":{"app":"app-%d","tier":"web"},"creationTimestamp":"2024-05-01T10:00:00Z"},`+
			`"spec":{"priorityClassName":"","containers":[{"name":"c","image":"img","resources":{"requests":{"cpu":"%dm","memory":"%dMi"}}}],`+
			`"tolerations":[{"key":"dedicated","operator":"Equal","value":"batch","effect":"NoSchedule"}],"nodeSelector":{"pool":"p%d"}}}`,
			i, i%10, i%100, 100+i%900, 64+i%512, i%4)
	}
	b.WriteString("]}\n")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		tb.Fatal(err)
	}
	return int64(b.Len())
}

// BenchmarkLoadCompactPods measures decoding of small compact pods.
func BenchmarkLoadCompactPods(b *testing.B) {
	benchLoadPods(b, 100000, writeCompactPods)
}

// benchLoadPods loads a file of n pods written by write, once per op.
func benchLoadPods(b *testing.B, n int, write func(testing.TB, string, int) int64) {
	path := filepath.Join(b.TempDir(), "pods.json")
	size := write(b, path, n)
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		in, err := Load([]string{path}, Options{AdmissionDefaults: true})
		if err != nil {
			b.Fatal(err)
		}
		if len(in.Pods) != n {
			b.Fatalf("%d pods", len(in.Pods))
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "pods/s")
}

// BenchmarkParseItem measures the JSON parser alone on one kubectl-style
// pod (about 6 KB).
func BenchmarkParseItem(b *testing.B) { benchParseItem(b, podTemplate) }

// BenchmarkParseItemRelations is BenchmarkParseItem with relationsSpec.
func BenchmarkParseItemRelations(b *testing.B) { benchParseItem(b, relationsTemplate) }

func benchParseItem(b *testing.B, template string) {
	item := []byte(fmt.Sprintf(template, 1, 2, 3, 4, 5, 6))
	b.SetBytes(int64(len(item)))
	b.ReportAllocs()
	for b.Loop() {
		p := &jp{b: item}
		var o wireObject
		if err := p.run(func() { p.object(&o) }); err != nil {
			b.Fatal(err)
		}
	}
}
