// Package client calls Runtime Extension hooks over HTTPS.
//
// It builds the URL from an ExtensionConfig's spec.clientConfig (url, or
// service as https://<name>.<namespace>.svc:<port>/<path>) and the hook
// catalog's path, verifies TLS against spec.clientConfig.caBundle (system
// roots when empty), bounds every call by the handler's timeout and every
// response by a size limit, refuses redirects, merges settings the way
// Cluster API does (ExtensionConfig spec.settings under the request's, the
// request wins), and checks that a response is of the expected kind before it
// is trusted. Discovery responses are defaulted and validated before anything
// is registered.
//
// Nothing here logs: errors carry what went wrong, never CA data or keys.
package client
