// Package variablestest builds ClusterClass variables shaped as Runtime
// Extensions write them, for the tests and tools that measure what a
// DiscoverVariables answer costs in memory. Only tests and the lab import it.
package variablestest
