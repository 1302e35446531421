// Package readmetest reads what the README promises about a command line
// (its flag tables and its make targets) so that tests can hold the README
// to the binaries' -h output and to the Makefile.
package readmetest
