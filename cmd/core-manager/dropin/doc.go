// Package dropin assembles the drop-in core manager: the manager, caches,
// indexes, reconcilers, webhooks and runnables that Cluster API v1.14.2's
// core manager runs, with the same settings, except for three parts that are
// ours: the ExtensionConfig controller, the ClusterClass controller, and the
// runtime client and registry that Cluster API's own reconcilers call
// Runtime Extensions through; and the API version lookup its conversion
// webhooks need, whose Cluster API implementation is internal to its module.
//
// Parts lists what runs, each marked as Cluster API's or ours, so that the
// list the binary prints and the one its tests check are the same.
package dropin
