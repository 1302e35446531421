// Package minimalclass builds the smallest valid ClusterClass: the
// infrastructure and control plane template references the CRD requires,
// and the patches a caller passes, together with the template CRDs and
// templates it references. Tests, the load tool, the drills and the
// differential tests all start from it, so a change to what the CRD
// requires lands in one place.
//
// It is a fixture builder, so it lives with the test helpers under
// internal/test/ and no shipped binary links it. The load tool's and the drills' local control
// plane (localcluster.StartWithProjectCRDs) installs the same two template
// CRDs from YAML embedded in config/crd/templates; a test here keeps the
// files equal to what TemplateCRDs builds.
package minimalclass
