// Package drill runs fault drills against the controller binary on a local
// control plane: an extension that flaps, a kube-apiserver that goes away
// and comes back, a long soak of periodic changes, and a property run of
// random events (rounds where Discovery fails among them) after each round
// of which a freshly started controller must find nothing to write. Each
// drill runs the controller as its own process (the binary an operator
// runs), watches every ClusterClass's status continuously for lost
// variables, samples the process's memory, goroutines and metrics, and
// reports what it saw.
package drill
