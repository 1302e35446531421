// Command sample-extension runs a Cluster API Runtime Extension for load runs
// and manual tests: Discovery, DiscoverVariables, GeneratePatches and
// ValidateTopology over HTTPS, as served by package
// internal/test/sampleextension.
//
// Without --cert-file and --key-file it generates a CA and a serving
// certificate for --hosts, and writes the CA to --ca-out for an
// ExtensionConfig's spec.clientConfig.caBundle. --variables-file (YAML or
// JSON, a list of ClusterClassVariables) sets what the discover-variables
// handler returns; --delay and --error-rate inject faults into every call.
// A plain HTTP admin endpoint on --admin-address (loopback by default)
// reports call counts and changes handlers, variables and faults at runtime;
// see sampleextension.Server.Admin for its requests.
//
// It prints the addresses it serves on, one line each, and stops cleanly on
// SIGINT or SIGTERM. Failures are one line on stderr: exit code 2 for a bad
// command line, 1 for everything else.
package main
