// Package quiet waits until something stops changing: a reconcile count,
// a set of counters, a snapshot of statuses. The load tool, the drills, the
// differential tests and the mapping tests all decide "the controller is
// done with this event" this one way, each with its own window and
// deadline, so their figures are measured alike.
//
// It is for tools and tests; neither shipped binary links it.
package quiet
