// Package cli holds what the project's binaries share on the command line:
// running a subcommand from its flags with one-line errors, a context that
// the first SIGINT or SIGTERM cancels, and paths printed as typed. It links
// nothing but the standard library, so every binary can use it.
package cli
