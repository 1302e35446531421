// Package drill runs fault drills against the drop-in core manager
// (cmd/core-manager) on a local control plane serving Cluster API's CRDs:
// an extension that flaps, a kube-apiserver that goes away and comes back,
// a long soak of periodic changes, and a property run of random events
// (rounds where Discovery fails among them) after each round of which a
// freshly started drop-in must find nothing to write. Each drill runs the
// drop-in as its own process (the binary an operator runs), watches every
// ClusterClass's status continuously for lost variables, samples the
// process's memory, goroutines and metrics, and reports what it saw.
package drill
