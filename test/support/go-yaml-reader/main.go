// Command go-yaml-reader reads YAML documents the way Kubernetes tooling does, so the tests can
// check that what SiteForge writes is read back unchanged by Go's YAML 1.1 readers, not only by
// the `yaml` npm package.
//
// Stdin: a JSON array of YAML texts, one document each. Stdout: a JSON array with, per text, an
// object keyed by reader ("sigs.k8s.io/yaml", "gopkg.in/yaml.v2", "gopkg.in/yaml.v3"), each
// {"value": ...} or {"error": "..."}.
//
// With the argument "resolve", stdin is a JSON array of plain scalars instead, and stdout gives
// per scalar {"v2": kind, "v3": kind}: what each library resolves it to when written unquoted
// ("str", "bool", "int", "float", "null", "timestamp", "merge"; "syntax" when the text cannot be
// written as a plain value at all, which only yaml.v2's answer depends on).
//
// sigs.k8s.io/yaml (what the API server, kubectl and Argo CD use) gives its own JSON. For
// yaml.v2 and yaml.v3, decoded into interface{}, strings stay JSON strings and everything a
// string could turn into stays visibly different: booleans and null as JSON, integers as
// numbers, other scalars and non-string map keys as "!!tag value" text.
package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	yamlv2 "gopkg.in/yaml.v2"
	yamlv3 "gopkg.in/yaml.v3"
	sigsyaml "sigs.k8s.io/yaml"
)

type reading struct {
	Value json.RawMessage `json:"value,omitempty"`
	Error string          `json:"error,omitempty"`
}

func main() {
	var texts []string
	if err := json.NewDecoder(os.Stdin).Decode(&texts); err != nil {
		fmt.Fprintln(os.Stderr, "go-yaml-reader: stdin must be a JSON array of strings:", err)
		os.Exit(2)
	}
	var out interface{}
	if len(os.Args) > 1 && os.Args[1] == "resolve" {
		kinds := make([]map[string]string, len(texts))
		for i, text := range texts {
			kinds[i] = map[string]string{"v2": resolveV2(text), "v3": resolveV3(text)}
		}
		out = kinds
	} else {
		readings := make([]map[string]reading, len(texts))
		for i, text := range texts {
			readings[i] = map[string]reading{
				"sigs.k8s.io/yaml": readSigs(text),
				"gopkg.in/yaml.v2": readWith(text, yamlv2.Unmarshal),
				"gopkg.in/yaml.v3": readWith(text, yamlv3.Unmarshal),
			}
		}
		out = readings
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, "go-yaml-reader:", err)
		os.Exit(1)
	}
}

func readSigs(text string) (r reading) {
	defer recoverInto(&r)
	j, err := sigsyaml.YAMLToJSON([]byte(text))
	if err != nil {
		return reading{Error: err.Error()}
	}
	return reading{Value: j}
}

func readWith(text string, unmarshal func([]byte, interface{}) error) (r reading) {
	defer recoverInto(&r)
	var v interface{}
	if err := unmarshal([]byte(text), &v); err != nil {
		return reading{Error: err.Error()}
	}
	j, err := json.Marshal(visible(v))
	if err != nil {
		return reading{Error: "go-yaml-reader: " + err.Error()}
	}
	return reading{Value: j}
}

// resolveV3 asks yaml.v3 itself: a plain scalar node's ShortTag runs the library's resolver.
func resolveV3(plain string) string {
	n := yamlv3.Node{Kind: yamlv3.ScalarNode, Value: plain}
	return strings.TrimPrefix(n.ShortTag(), "!!")
}

// resolveV2 has no resolver to call, so it reads `v: <plain>` and looks at what came out;
// yaml.v3 first checks that the text is one plain scalar there (the parsers are the same);
// timestamps, which decode into interface{} as their text, show when decoded into time.Time.
func resolveV2(plain string) (kind string) {
	defer func() {
		if recover() != nil {
			kind = "syntax"
		}
	}()
	doc := []byte("v: " + plain + "\n")
	// Only text that stays one plain scalar there tells anything about the resolver.
	var node yamlv3.Node
	if yamlv3.Unmarshal(doc, &node) != nil || len(node.Content) != 1 ||
		len(node.Content[0].Content) != 2 {
		return "syntax"
	}
	if v := node.Content[0].Content[1]; v.Kind != yamlv3.ScalarNode || v.Style != 0 || v.Value != plain {
		return "syntax"
	}
	var m map[string]interface{}
	if err := yamlv2.Unmarshal(doc, &m); err != nil || len(m) != 1 {
		return "syntax"
	}
	switch v := m["v"].(type) {
	case nil:
		return "null"
	case bool:
		return "bool"
	case int, int64, uint64:
		return "int"
	case float64:
		return "float"
	case string:
		if v != plain {
			return "syntax"
		}
		var t map[string]time.Time
		if yamlv2.Unmarshal(doc, &t) == nil {
			return "timestamp"
		}
		return "str"
	default:
		return fmt.Sprintf("%T", v)
	}
}

// A reader that panics is a finding too; report it instead of dying.
func recoverInto(r *reading) {
	if p := recover(); p != nil {
		*r = reading{Error: fmt.Sprint("panic: ", p)}
	}
}

// visible turns a decoded value into JSON-able data in which no non-string scalar can pass for
// a string.
func visible(v interface{}) interface{} {
	switch t := v.(type) {
	case nil, bool, string:
		return t
	case int:
		return json.Number(strconv.FormatInt(int64(t), 10))
	case int64:
		return json.Number(strconv.FormatInt(t, 10))
	case uint64:
		return json.Number(strconv.FormatUint(t, 10))
	case float64:
		if math.IsInf(t, 0) || math.IsNaN(t) {
			return "!!float " + strconv.FormatFloat(t, 'g', -1, 64)
		}
		return t
	case time.Time:
		return "!!timestamp " + t.Format(time.RFC3339Nano)
	case []byte:
		return "!!binary " + base64.StdEncoding.EncodeToString(t)
	case []interface{}:
		out := make([]interface{}, len(t))
		for i, e := range t {
			out[i] = visible(e)
		}
		return out
	case map[string]interface{}:
		out := make(map[string]interface{}, len(t))
		for k, e := range t {
			out[k] = visible(e)
		}
		return out
	case map[interface{}]interface{}:
		out := make(map[string]interface{}, len(t))
		for k, e := range t {
			out[key(k)] = visible(e)
		}
		return out
	default:
		return fmt.Sprintf("!!%T %v", t, t)
	}
}

func key(k interface{}) string {
	if s, ok := k.(string); ok {
		return s
	}
	if k == nil {
		return "!!null"
	}
	switch t := k.(type) {
	case bool:
		return "!!bool " + strconv.FormatBool(t)
	case int, int64, uint64:
		return fmt.Sprintf("!!int %d", t)
	case float64:
		return "!!float " + strconv.FormatFloat(t, 'g', -1, 64)
	case []interface{}, map[interface{}]interface{}, map[string]interface{}:
		b, _ := json.Marshal(visible(t))
		return "!!complex " + string(b)
	default:
		return fmt.Sprintf("!!%T %v", t, t)
	}
}
