// Package readmetest reads what the README and the documents under docs/
// promise (flag tables, make targets, the layout of the tree) so that tests
// can hold them to the binaries' -h output, to the Makefile and to the
// tree.
package readmetest
