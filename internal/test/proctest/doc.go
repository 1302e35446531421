// Package proctest helps tests that run the project's binaries as
// processes: it builds them and checks that the processes they start are
// gone when they should be.
package proctest
