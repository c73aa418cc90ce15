package ingest

import (
	"slices"
	"strings"
	"testing"
)

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
		// Keys in another case decode alike, and an escaped image is the
		// same string: equal, so the image comparison must not answer.
		{`{"Metadata":{"labels":{"app":"web","pod-template-hash":"abc"}},"SPEC":{"Containers":[{"name":"c","Image":"web\u003a2","resources":{"requests":{"cpu":"1"}}}]}}`, true},
		// Another init container image: not equal.
		{`{"metadata":{"labels":{"app":"web","pod-template-hash":"abc"}},"spec":{"initContainers":[{"name":"i","image":"x"}],"containers":[{"name":"c","image":"web:2","resources":{"requests":{"cpu":"1"}}}]}}`, false},
	} {
		if got := d.equalIgnoreHash([]byte(tc.rs)); got != tc.want {
			t.Errorf("%s: equal %v, want %v", tc.rs, got, tc.want)
		}
	}
	if !d.decoded || d.dec == nil || d.dec.Labels["app"] != "web" {
		t.Errorf("the Deployment's template was not kept decoded: %+v", d)
	}
}

// templateImagesCases are pod templates for TestTemplateImages and the
// fuzz target's seeds.
var templateImagesCases = []string{
	`{"spec":{"containers":[{"name":"a","image":"web:1"},{"name":"b","image":"side:3"}]}}`,
	`{"spec":{"initContainers":[{"image":"init:1"}],"containers":[{"image":"web:1"}]}}`,
	`{"SPEC":{"CONTAINERS":[{"IMAGE":"web:1"}],"InitContainers":null}}`,
	`{"spec":{"containers":[{"image":null},{"name":"x"}]}}`,
	`{"spec":{"containers":[{"image":"a\/b\u00e9"}]}}`,
	`{"spec":null}`,
	`{"metadata":{"labels":{"image":"x"}}}`,
	`{"spec":{"containers":[{"image":"a"}],"containers":[{"image":"b"}]}}`,
	`{"spec":{"containers":[{"image":"a","Image":"b"}]}}`,
	`{"spec":{"containers":[null]}}`,
	`{"spec":{"containers":[{"image":1}]}}`,
	`{"spec":{"containers":{}}}`,
	`[]`,
}

// decodedImages is templateImages' reference: the images of the decoded
// template, or ok false when it does not decode.
func decodedImages(t []byte) ([]string, bool) {
	d, err := decodeTemplate(t)
	if err != nil {
		return nil, false
	}
	var imgs []string
	for _, c := range d.Spec.InitContainers {
		imgs = append(imgs, c.Image)
	}
	imgs = append(imgs, "\x00")
	for _, c := range d.Spec.Containers {
		imgs = append(imgs, c.Image)
	}
	return append(imgs, "\x00"), true
}

// checkTemplateImages fails when t decodes and templateImages answers
// with other images. (Where t does not decode, equalIgnoreHash is false
// whatever templateImages answers.)
func checkTemplateImages(t *testing.T, raw []byte) (answered bool) {
	want, wok := decodedImages(raw)
	got, ok := templateImages(raw)
	if !wok || !ok {
		return false
	}
	if !slices.Equal(got, want) {
		t.Fatalf("%q: templateImages %q, decoded %q", raw, got, want)
	}
	return true
}

// TestTemplateImages: templateImages reads the images encoding/json
// decodes (keys in any case, escapes, null images, containers and lists),
// and declines what it cannot read alike (repeated keys, wrong types).
func TestTemplateImages(t *testing.T) {
	t.Parallel()
	var answered int
	for _, tc := range templateImagesCases {
		if checkTemplateImages(t, []byte(tc)) {
			answered++
		}
	}
	if answered != 8 {
		t.Errorf("templateImages answered for %d of %d templates, want 8", answered, len(templateImagesCases))
	}
}

// FuzzTemplateImages: wherever templateImages answers, the decoded
// template has those images.
func FuzzTemplateImages(f *testing.F) {
	for _, tc := range templateImagesCases {
		f.Add([]byte(tc))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		checkTemplateImages(t, raw)
	})
}

// TestEqualIgnoreHashIndented compares a Deployment's template with its
// ReplicaSets' as kubectl's indented export writes them, the hash label
// first, between others, last: equal without decoding (the label and its
// comma are cut, the whitespace between tokens ignored); a difference in
// a string's spaces, or in an escaped quote, is a difference.
func TestEqualIgnoreHashIndented(t *testing.T) {
	t.Parallel()
	indent := func(labels string, image string) string {
		return "{\n    \"metadata\": {\n        \"labels\": {\n" + labels + "\n        }\n    },\n" +
			"    \"spec\": {\n        \"containers\": [\n            {\n                \"image\": \"" + image + "\",\n" +
			"                \"name\": \"c\"\n            }\n        ]\n    }\n}"
	}
	const app, team, hash = `            "app": "web"`, `            "team": "a b"`, `            "pod-template-hash": "abc"`
	deploy := indent(app+",\n"+team, "web:2")
	for _, tc := range []struct {
		name, rs string
		want     bool
	}{
		{"hash last", indent(app+",\n"+team+",\n"+hash, "web:2"), true},
		{"hash first", indent(hash+",\n"+app+",\n"+team, "web:2"), true},
		{"hash between", indent(app+",\n"+hash+",\n"+team, "web:2"), true},
		{"compact", `{"metadata":{"labels":{"app":"web","pod-template-hash":"abc","team":"a b"}},"spec":{"containers":[{"image":"web:2","name":"c"}]}}`, true},
		{"a string's space", indent(app+",\n"+strings.Replace(team, "a b", "ab", 1)+",\n"+hash, "web:2"), false},
		{"an escaped quote", indent(app+",\n"+team+",\n"+hash, `web:2\" `), false},
	} {
		d := deployTemplate{raw: []byte(deploy)}
		if got := d.equalIgnoreHash([]byte(tc.rs)); got != tc.want {
			t.Errorf("%s: equal %v, want %v", tc.name, got, tc.want)
		}
		if tc.want && d.decoded {
			t.Errorf("%s: equal only once decoded", tc.name)
		}
	}
	if sameTokens([]byte(`{"a": "x\" y"}`), []byte(`{"a":"x\"y"}`)) || !sameTokens([]byte("{\n \"a\" : [1, 2]\n}"), []byte(`{"a":[1,2]}`)) {
		t.Error("sameTokens: spaces in a string after an escaped quote ignored, or spaces between tokens not")
	}
}
