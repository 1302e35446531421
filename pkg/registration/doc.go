// Package registration is the model of a Runtime Extension handler's
// registration, the one place each fact about it is read:
//
//   - the full name `<handler>.<config>` a handler is registered, referenced
//     and recorded under (FullHandlerName, ExtensionConfigOf), and how an
//     ExtensionConfig's status.handlers reads back (RecordedHandlers);
//   - what a registered handler is to everything keyed on it (HandlerState):
//     its Fingerprint over every input of a call, which the registry, the
//     variables cache and the response cache key on;
//   - what changed between two registrations (Diff), which the index maps
//     to ClusterClasses and the caches forget by;
//   - whether a namespaceSelector admits a namespace (Admits, Selector), as
//     Cluster API decides it, which every admission decision goes through.
//
// The registry (internal/runtime/registry) holds registrations; the index
// (pkg/extensionindex) maps their changes to ClusterClasses.
package registration
