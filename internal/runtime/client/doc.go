/*
Copyright 2026 The runtime-sdk-controller Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

// Package client calls Runtime Extension hooks over HTTPS.
//
// It builds the URL from an ExtensionConfig's spec.clientConfig (url, or
// service as https://<name>.<namespace>.svc:<port>/<path>) and the hook
// catalog's path, verifies TLS against spec.clientConfig.caBundle (system
// roots when empty), bounds every call by the handler's timeout and every
// answer by a size limit, refuses redirects, merges settings the way
// Cluster API does (ExtensionConfig spec.settings under the request's, the
// request wins), and decodes answers as Cluster API v1.14.2's client does:
// the first JSON value of the body, unknown fields ignored, apiVersion and
// kind optional (its server library writes neither). Discovery responses
// are defaulted and validated with Cluster API's checks before anything is
// registered. FailurePolicyApplies tells the errors a handler's failure
// policy decides from those it never turns into a success, as Cluster API
// tells them.
//
// # Stricter than Cluster API's client
//
// Every answer Cluster API's client accepts is accepted, except these. None
// refuses an answer that Cluster API's server library
// (sigs.k8s.io/cluster-api/exp/runtime/server) writes for a request it
// reads, and each fails the call under either failure policy:
//
//   - An HTTP 200 body over Options.MaxResponseBytes (32 MiB by default).
//     Cluster API reads it whole, however large; a bound keeps one extension
//     from exhausting the controller's memory, and 32 MiB holds the largest
//     answer a 20 MiB request (the most that server library reads) can call
//     for. Failing, not ignoring, keeps patches from being dropped silently.
//   - An answer that names another kind or apiVersion than the hook's
//     response (an extension serving one hook's answer at another's path).
//     Cluster API decodes whatever fields match; the server library sets
//     neither, so only a misrouted or foreign answer names them wrongly.
//
// answers_test.go tests both.
//
// And a clientConfig that Cluster API's client would still call is refused
// before any call, as its admission webhook refuses most of them: url and
// service both set (its client takes the service), a service without name
// or namespace, a port outside 1..65535, a url without a host, and a url
// with user info (a password readable by everyone who reads the spec), a
// query (the call's own timeout parameter goes there) or a fragment (never
// sent). These concern no answer; client_test.go tests them.
//
// Nothing here logs: errors carry what went wrong, never CA data or keys.
package client
