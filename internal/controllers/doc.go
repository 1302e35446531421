// Package controllers adds the ExtensionConfig and ClusterClass controllers
// to any controller-runtime manager, around one handler registry, runtime
// client and variables cache. It is the one piece both binaries share: each
// has one assembly package of its own that calls AddToManager, package
// standalone for runtime-sdk-controller and package dropin for core-manager.
package controllers
