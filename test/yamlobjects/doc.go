// Package yamlobjects decodes multi-document YAML files (manifests,
// examples, rendered templates) into unstructured objects, for the tools and
// tests that apply them.
package yamlobjects
