// Package registry holds the Runtime Extension handlers discovered from
// ExtensionConfigs, under their full name `<handler>.<extensionconfig>`.
//
// Each registered handler carries everything needed to call it (endpoint,
// CA bundle, hook, timeout, failure policy, the config's settings and
// namespaceSelector) and a fingerprint over exactly the inputs that can
// change what a call returns or how it behaves. Callers cache responses by
// fingerprint, and the ExtensionConfig -> ClusterClass mapping compares
// fingerprints to decide which ClusterClasses an update can affect.
//
// The registry reports ready only after warm-up has registered every
// ExtensionConfig known at start, so no ClusterClass reconcile mistakes a
// not-yet-loaded handler for a missing one. It is current only once the
// replica that leads has rebuilt it from the ExtensionConfigs as they are
// then (Current): every extension call waits for that, since a standby's
// registry is as old as its start.
package registry
