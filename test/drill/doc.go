// Package drill runs fault drills against the controller binary on a local
// control plane: an extension that flaps, a kube-apiserver that goes away
// and comes back, and a long soak of periodic changes. Each drill runs the
// controller as its own process (the binary an operator runs), watches every
// ClusterClass's status continuously for lost variables, samples the
// process's memory, goroutines and metrics, and reports what it saw.
package drill
