// Package procstat reads a process's CPU time and memory from Linux's
// /proc, so that the drills and the scale run measure a manager alike.
//
// It is for tools and tests; neither shipped binary links it.
package procstat
