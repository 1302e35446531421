// Package extensionindex maps events on Runtime Extension registrations to
// the ClusterClasses they can change, through a cache index instead of a
// scan of every ClusterClass.
//
// It has no dependency on this project's controllers: any controller-runtime
// manager (Cluster API's own included) can register the indexes with
// IndexClusterClasses and look up referencing ClusterClasses with
// ClusterClassesReferencing.
//
// ClusterClasses name handlers by their full name `<handler>.<config>` in
// spec.patches[].external (generatePatchesExtension,
// validateTopologyExtension, discoverVariablesExtension). References
// extracts them; malformed names are reported, never silently dropped.
package extensionindex
