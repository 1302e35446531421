// Package managerprocess runs a controller manager binary as a child
// process and watches it from outside: readiness, exit, and its Prometheus
// metrics. The drills run our controller with it, and the differential
// tests run Cluster API's own manager the same way, so both are measured
// as what they are in production, a process of their own.
//
// It is for tools and tests; the controller binary never links it.
package managerprocess
