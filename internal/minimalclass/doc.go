// Package minimalclass builds the smallest valid ClusterClass: the
// infrastructure and control plane template references the CRD requires,
// and the patches a caller passes, together with the template CRDs and
// templates it references. Tests, the load tool and the drills all start
// from it, so a change to what the CRD requires lands in one place.
package minimalclass
