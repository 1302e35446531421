// Package benchfixture builds the objects the load tool and the drills
// create: namespaces split into two tiers by a label, ClusterClasses whose
// patches call the sample extension's handlers of given ExtensionConfigs,
// created with a few workers, and the variables the sample extensions
// answer. Both tools build from it, so a fixture change lands once.
package benchfixture
