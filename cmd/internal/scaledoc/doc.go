// Package scaledoc holds no code: its test checks the Kubernetes Jobs of
// docs/scale.md against the Kubernetes API's own Go types (k8s.io/api,
// a test-only dependency, kept out of the programs) and runs the tasks
// of the Indexed Job the way a cluster would start them.
package scaledoc
