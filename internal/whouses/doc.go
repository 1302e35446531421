// Package whouses answers, for an operator about to change or delete a
// Runtime Extension, which ClusterClasses use it: for an ExtensionConfig or
// one of its handlers, every referencing ClusterClass with the fields that
// reference it, whether the config's namespaceSelector admits the
// ClusterClass's namespace, and whether the handler is discovered.
package whouses
