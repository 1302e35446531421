// Package depstest checks what a shipped binary links, as `go list -deps`
// reports it: nothing of this module that only tests and tools use. Both
// shipped binaries' deps_test.go read the one list here, NotShipped.
package depstest
