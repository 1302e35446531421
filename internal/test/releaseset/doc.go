// Package releaseset holds a shipped binary's modules against the modules
// Cluster API's own core manager links, as `go version -m` reports both: a
// module both link must be at the release's version, and a module only the
// shipped binary links must be on an allow-list that says why. The
// binaries' tests in cmd/ read their build info here.
package releaseset
