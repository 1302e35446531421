// Package runtimeclient puts our runtime client and handler registry behind
// Cluster API's exp/runtime/client.Client interface, so that Cluster API's
// own reconcilers (topology, Machine, MachineDeployment) call Runtime
// Extensions through them. Every error a caller can see is worded as
// Cluster API v1.14.2's own client words it, so conditions and requeues are
// the same as under Cluster API's manager.
package runtimeclient
