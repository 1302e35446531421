// Package cli holds what the project's binaries share on the command line:
// running a subcommand from its flags with one-line errors, a context that
// the first SIGINT or SIGTERM cancels, and starting the local control plane
// with the project's CRDs.
package cli
