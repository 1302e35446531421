// Package controllers adds the ExtensionConfig and ClusterClass controllers
// to a controller-runtime manager, around one handler registry, runtime
// client, variables cache and response cache, each where Cluster API's
// feature gates would run its own. The drop-in's assembly (package dropin)
// calls AddToManager; tests run it through internal/test/managertest.
package controllers
