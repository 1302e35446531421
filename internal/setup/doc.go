// Package setup assembles the controller-runtime manager that the
// runtime-sdk-controller binary runs: scheme, metrics and probe endpoints,
// leader election, and the controllers. Tests build the same manager through
// it, so what they exercise is what operators run.
package setup
