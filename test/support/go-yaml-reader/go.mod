// The Go YAML readers that Kubernetes tooling uses, pinned; built by test/support/go-yaml-reader.ts.
module siteforge.local/test/go-yaml-reader

go 1.22

require (
	gopkg.in/yaml.v2 v2.4.0
	gopkg.in/yaml.v3 v3.0.1
	sigs.k8s.io/yaml v1.6.0
)

require go.yaml.in/yaml/v2 v2.4.2 // indirect
