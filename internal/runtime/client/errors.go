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

package client

import (
	"errors"
	"fmt"

	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"
)

// FailurePolicyApplies reports whether err, returned by Call, is one that a
// handler's failurePolicy decides: the call got no answer a response could
// be read from. The extension was unreachable, TLS failed, the timeout
// passed, the answer was not HTTP 200 (redirects included), or its body was
// not JSON of the response's type. Cluster API's client lets failurePolicy
// Ignore turn exactly these into a success.
//
// It is false for everything else, which fails the call under either
// policy: a clientConfig no call can be made with (a caBundle without a
// PEM certificate, a URL that is not https), an answer over the size bound,
// an answer naming another hook's kind or apiVersion, and an answer that
// decoded but does not say Success (a StatusError).
func FailurePolicyApplies(err error) bool {
	return errors.As(err, new(failedCall))
}

// failedCall marks a call that got no answer a response could be read
// from; it reads as its cause.
type failedCall struct{ error }

func (e failedCall) Unwrap() error { return e.error }

// noTransportError marks a call that was never attempted, as no
// connection pool could be made for its CA bundle; it reads as its cause.
type noTransportError struct{ error }

func (e noTransportError) Unwrap() error { return e.error }

// StatusError is an answer that decoded but does not say Success: it says
// Failure, or a status the hooks do not define (an extension that sets
// none answers ""). No failure policy makes it a success.
type StatusError struct {
	// URL is where the answer came from, without user info or query.
	URL string
	// Status is the answer's status as it came.
	Status runtimehooksv1.ResponseStatus
	// Message is the answer's message, made fit for a condition.
	Message string
}

func (e *StatusError) Error() string {
	msg := e.Message
	if msg == "" {
		msg = "no message"
	}
	if e.Status == runtimehooksv1.ResponseStatusFailure {
		return fmt.Sprintf("%s answered status %q: %s", e.URL, e.Status, msg)
	}
	return fmt.Sprintf("%s answered status %q, which is neither %q nor %q: %s", e.URL, printable(string(e.Status)),
		runtimehooksv1.ResponseStatusSuccess, runtimehooksv1.ResponseStatusFailure, msg)
}
