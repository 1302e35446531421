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

package sampleextensiontest

import (
	"io"
	"net"
	"net/http"
	"strconv"
	"testing"

	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/localcluster"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextension"
)

// Answering serves every call, until the test ends, with code and body as
// they are: an extension that answers what a test needs, right or wrong.
func Answering(t testing.TB, code int, body string) runtimev1.ClientConfig {
	t.Helper()
	url, ca, stop, err := sampleextension.StartTLS(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.WriteHeader(code)
		_, _ = io.WriteString(w, body)
	}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return runtimev1.ClientConfig{URL: url, CABundle: ca}
}

// UnreachableURL is an https URL on 127.0.0.1 where nothing listens: a port
// that was free a moment ago.
func UnreachableURL(t testing.TB) string {
	t.Helper()
	port, err := localcluster.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	return "https://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
}
