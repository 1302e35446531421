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
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"
)

// answeredStatus is the status a call's answer said, from what Call
// returned: Success or Failure, and empty for anything else, so that an
// extension's words never become a label value.
func answeredStatus(err error) runtimehooksv1.ResponseStatus {
	var answered *StatusError
	switch {
	case err == nil:
		return runtimehooksv1.ResponseStatusSuccess
	case errors.As(err, &answered) && answered.Status == runtimehooksv1.ResponseStatusFailure:
		return runtimehooksv1.ResponseStatusFailure
	default:
		return ""
	}
}

// answer is what an extension sent back: its status and a body no longer
// than the bound.
type answer struct {
	status int
	body   []byte
}

// readAnswer accepts only a 200 carrying a response of the hook's kind
// with status Success, and decodes it into response.
func readAnswer(target *url.URL, a answer, responseGVK schema.GroupVersionKind, response runtimehooksv1.ResponseObject) error {
	if a.status >= 300 && a.status < 400 {
		// Where it redirects to is a response header, which never reaches a
		// condition.
		return failedCall{fmt.Errorf("%s answered HTTP %d, a redirect: redirects are refused", redact(target), a.status)}
	}
	if a.status != http.StatusOK {
		return failedCall{fmt.Errorf("%s answered HTTP %d: %s", redact(target), a.status, snippet(a.body))}
	}
	if err := decodeResponse(a.body, responseGVK, response); err != nil {
		return fmt.Errorf("response from %s: %w", redact(target), err)
	}
	if response.GetStatus() != runtimehooksv1.ResponseStatusSuccess {
		return &StatusError{URL: redact(target), Status: response.GetStatus(), Message: printable(response.GetMessage())}
	}
	return nil
}

// decodeResponse decodes the first JSON value of data into response, as
// Cluster API's client does (a json.Decoder, which never reads what follows
// the value), and refuses an answer that names another kind or apiVersion
// than want. Cluster API's server library writes neither, so an answer
// without them is taken for the kind asked for.
func decodeResponse(data []byte, want schema.GroupVersionKind, response runtimehooksv1.ResponseObject) error {
	// What is checked below is what the extension wrote, not what the
	// caller may have set.
	response.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
	if err := json.NewDecoder(bytes.NewReader(data)).Decode(response); err != nil {
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return failedCall{fmt.Errorf("not a JSON object (%s): %s", printable(err.Error()), snippet(data))}
		}
		return failedCall{fmt.Errorf("not a %s: %s", want.Kind, printable(err.Error()))}
	}
	switch got := typeMetaOf(response); {
	case got.Kind != "" && got.Kind != want.Kind:
		return fmt.Errorf("answered a %s where a %s was expected (another hook's answer)", printable(got.Kind), want.Kind)
	case got.APIVersion != "" && got.APIVersion != want.GroupVersion().String():
		return fmt.Errorf("answered a %s of apiVersion %q where %q was expected", want.Kind, printable(got.APIVersion), want.GroupVersion().String())
	}
	return nil
}

// typeMetaOf returns the apiVersion and kind obj holds, as written: every
// hook response embeds metav1.TypeMeta, and its parsed form would read an
// apiVersion that does not parse as none.
func typeMetaOf(obj runtime.Object) metav1.TypeMeta {
	if meta, ok := obj.GetObjectKind().(*metav1.TypeMeta); ok {
		return *meta
	}
	apiVersion, kind := obj.GetObjectKind().GroupVersionKind().ToAPIVersionAndKind()
	return metav1.TypeMeta{APIVersion: apiVersion, Kind: kind}
}
