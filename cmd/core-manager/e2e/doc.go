// Package e2e tests the core-manager binary from the outside: it builds the
// command, runs it against a local control plane with Cluster API's CRDs,
// and checks what it does there, and that config/core-manager swaps it in.
// The tests live apart from package main so that the race-instrumented test
// binary does not link Cluster API's reconcilers.
package e2e
