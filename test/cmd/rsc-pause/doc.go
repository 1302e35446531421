// Command rsc-pause is the lab node's sandbox ("pause") image: the first
// process of every Pod, which holds the Pod's namespaces while its
// containers come and go. It waits for SIGTERM or SIGINT and exits 0, and
// as PID 1 of a Pod that shares its process namespace it reaps the
// orphans the kernel gives it. The node has no registry to pull
// Kubernetes' own pause image from, so it runs this one.
package main
