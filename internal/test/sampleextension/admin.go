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

package sampleextension

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"
)

// maxAdminBytes bounds admin request bodies; variable lists for load runs
// can be far larger than a hook call.
const maxAdminBytes = 8 << 20

// Admin returns a handler that controls s over plain HTTP, for a load tool
// in another process. Serve it on loopback only: it has no authentication.
//
//	GET    /healthz                 200 "ok"
//	GET    /calls                   200 {"total":N,"calls":{"<Hook>/<handler>":N,"Discovery":N}}
//	POST   /calls/reset             204; sets every count to zero
//	PUT    /faults?hook=TARGET      204; body: Faults in JSON (see Faults), e.g.
//	                                {"delay":"250ms","errorRate":0.1}; delay may also be
//	                                a number of nanoseconds. TARGET is as for SetFaults:
//	                                absent or empty for every call, "DiscoverVariables",
//	                                or "DiscoverVariables/discover-variables"
//	DELETE /faults                  204; removes all faults (ResetFaults)
//	PUT    /variables?handler=NAME  204; body: JSON list of ClusterClassVariable
//	PUT    /handlers                204; body: JSON list of ExtensionHandler
//
// Bodies are decoded strictly: unknown keys and invalid faults get 400, as
// does a missing handler parameter. Wrong methods get 405.
func (s *Server) Admin() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = io.WriteString(w, "ok")
	})
	mux.HandleFunc("GET /calls", func(w http.ResponseWriter, _ *http.Request) {
		body, err := json.Marshal(s.CallCounts())
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	})
	mux.HandleFunc("POST /calls/reset", func(w http.ResponseWriter, _ *http.Request) {
		s.ResetCalls()
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("PUT /faults", func(w http.ResponseWriter, r *http.Request) {
		var f Faults
		if !decodeAdmin(w, r, &f) {
			return
		}
		if err := f.Validate(); err != nil {
			http.Error(w, fmt.Sprintf("faults: %v", err), http.StatusBadRequest)
			return
		}
		s.SetFaults(r.URL.Query().Get("hook"), f)
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("DELETE /faults", func(w http.ResponseWriter, _ *http.Request) {
		s.ResetFaults()
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("PUT /variables", func(w http.ResponseWriter, r *http.Request) {
		handler := r.URL.Query().Get("handler")
		if handler == "" {
			http.Error(w, "variables: the handler query parameter names the DiscoverVariables handler", http.StatusBadRequest)
			return
		}
		var vars []clusterv1.ClusterClassVariable
		if !decodeAdmin(w, r, &vars) {
			return
		}
		s.SetVariables(handler, vars)
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("PUT /handlers", func(w http.ResponseWriter, r *http.Request) {
		var handlers []runtimehooksv1.ExtensionHandler
		if !decodeAdmin(w, r, &handlers) {
			return
		}
		// An empty list is a valid thing to advertise; null is not a list.
		if handlers == nil {
			http.Error(w, "handlers: body is not a JSON list", http.StatusBadRequest)
			return
		}
		s.SetHandlers(handlers)
		w.WriteHeader(http.StatusNoContent)
	})
	return mux
}

// decodeAdmin decodes the bounded body of r into v strictly, and answers
// 400 or 413 if that fails.
func decodeAdmin(w http.ResponseWriter, r *http.Request, v any) bool {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxAdminBytes))
	if err != nil {
		status := http.StatusBadRequest
		if tooLarge := (*http.MaxBytesError)(nil); errors.As(err, &tooLarge) {
			status = http.StatusRequestEntityTooLarge
		}
		http.Error(w, fmt.Sprintf("read %s body: %v", r.URL.Path, err), status)
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		http.Error(w, fmt.Sprintf("decode %s body: %v", r.URL.Path, err), http.StatusBadRequest)
		return false
	}
	if dec.More() {
		http.Error(w, fmt.Sprintf("decode %s body: more than one JSON value", r.URL.Path), http.StatusBadRequest)
		return false
	}
	return true
}
