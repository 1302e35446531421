/*
Copyright 2026 The runtime-sdk-controller Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

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
