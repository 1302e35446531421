// Package watchfilter is Cluster API's --watch-filter for our controllers:
// with a value set, only objects labelled cluster.x-k8s.io/watch-filter
// with that value are reconciled, so that several managers can share a
// management cluster, each with its own objects.
package watchfilter
